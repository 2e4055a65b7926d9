"""TG305 bare-python."""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Iterator
from typing import Optional

from truegreen.audit.base import Finding, Rule, string_value

PYTHON = re.compile(r"python(\d+(\.\d+)?)?(\.exe)?", re.I)
# spawners whose first argument is the program, or an argv list starting with it
FIRST = frozenset(
    {f"subprocess.{name}" for name in ("run", "call", "check_call", "check_output", "Popen")}
    | {"asyncio.create_subprocess_exec", "anyio.run_process", "anyio.open_process",
       "trio.run_process", "pytester.run", "testdir.run"}
    | {f"os.exec{kind}" for kind in ("lp", "lpe", "vp", "vpe")}
)  # fmt: skip
# spawners that hand a command line to the shell
SHELL = frozenset(
    {"os.system", "os.popen", "asyncio.create_subprocess_shell", "subprocess.getoutput",
     "subprocess.getstatusoutput"}
)  # fmt: skip
# os.spawn*p(mode, file, ...): the program is the second argument
SECOND = frozenset(f"os.spawn{kind}" for kind in ("lp", "lpe", "vp", "vpe"))
CALLS = frozenset(name.rpartition(".")[2] for name in FIRST | SHELL | SECOND)


class BarePython(Rule):
    """## What it does
    Flags a test or fixture that starts a bare `python` (or `python3`, `python3.12`, ...) found
    on PATH: `subprocess.run(["python", ...])` and the rest of `subprocess`, `os.system`,
    `os.popen`, `os.exec*p`, `os.spawn*p`, `asyncio.create_subprocess_exec`/`_shell`, anyio's
    and trio's `run_process`, `pytester.run`; the argv or command line written in the call or
    assigned to a name in the same function.

    ## Why is this bad?
    `python` is whatever interpreter comes first on PATH, not the one running the tests: the
    system Python without the project installed, another version, a pyenv shim for a version
    that is not installed, or nothing at all (Ubuntu ships only `python3`; Windows may open
    the Store). The child then fails to import the project, or tests another interpreter and
    another install than the one under test, and the test passes or fails for that reason.

    ## Example
    ```python
    def test_cli_runs_as_a_module():
        out = subprocess.run(["python", "-m", "app", "--help"], capture_output=True)
        assert out.returncode == 0
    ```

    ## Use instead
    ```python
    def test_cli_runs_as_a_module():
        out = subprocess.run([sys.executable, "-m", "app", "--help"], capture_output=True)
        assert out.returncode == 0
    ```

    ## Known problems
    An argv built elsewhere (by a helper, in a fixture, with `shlex.split`) is not followed;
    a name counts only when the same function or the module assigns it a literal list, tuple
    or string. A test whose subject is finding `python` on PATH (a launcher, a virtualenv's
    activation) is flagged too: suppress it there with a reason. Opt-in for now: the
    real-world bench's 23 suites start `sys.executable` everywhere (53 places) and never a
    bare `python`, so the rule found nothing there and its precision is not measured yet
    ([realworld.md](../realworld.md)).
    """

    code = "TG305"
    name = "bare-python"
    default = False
    nodes = (ast.Call,)
    calls = CALLS
    triggers = ("python",)

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        assert isinstance(node, ast.Call)
        callee = self.ctx.qualname(node.func)
        if callee is None:
            return
        if callee in SECOND:
            argument = node.args[1] if len(node.args) > 1 else None
        elif callee in FIRST or callee in SHELL:
            argument = node.args[0] if node.args else _keyword(node, ("args", "cmd", "command"))
        else:
            return
        if callee in ("pytester.run", "testdir.run") or callee.startswith("os.exec"):
            program = string_value(argument)  # the program alone, then its arguments
        else:
            program = self._program(argument)
        if program is not None and PYTHON.fullmatch(program):
            yield self.finding(
                node,
                f'starts a bare "{program}", whatever interpreter is first on PATH: '
                "start sys.executable, the interpreter running the tests",
            )

    def _program(self, argument: Optional[ast.expr]) -> Optional[str]:
        """The program a command starts: the first item of a literal argv, or the first word
        of a command line (written in the call, or a name the function or module assigns)."""
        if isinstance(argument, ast.Name):
            values = self._values(argument.id)
            argument = values[0] if len(values) == 1 else None
        if isinstance(argument, (ast.List, ast.Tuple)):
            return string_value(argument.elts[0]) if argument.elts else None
        text = string_value(argument)
        if text is None:
            return None
        try:
            words = shlex.split(text)
        except ValueError:
            return None
        return words[0] if words else None

    def _values(self, name: str) -> list[ast.expr]:
        """The values assigned to ``name`` in the enclosing function, else at module level."""
        function = self.ctx.function
        scopes: list[list[ast.AST]] = [list(ast.walk(function))] if function is not None else []
        scopes.append(list(self.ctx.tree.body))
        for nodes in scopes:
            values = [
                node.value
                for node in nodes
                if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
            ]
            if values:
                return values
        return []


def _keyword(node: ast.Call, names: tuple[str, ...]) -> Optional[ast.expr]:
    for keyword in node.keywords:
        if keyword.arg in names:
            return keyword.value
    return None
