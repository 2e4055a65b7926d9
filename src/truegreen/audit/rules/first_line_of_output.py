"""TG103 first-line-of-output."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from truegreen.audit.base import FileContext, Finding, Rule

# Calls whose result is a program's output, or a result object carrying it.
RESULTS = frozenset({"subprocess.run", "subprocess.Popen"})
OUTPUTS = frozenset({"subprocess.check_output", "subprocess.getoutput", "os.popen"})
LAST_PARTS = frozenset(name.rsplit(".", 1)[1] for name in RESULTS | OUTPUTS)
STREAMS = frozenset({"stdout", "stderr"})  # a process's streams, whatever holds them
RUNNER_METHODS = frozenset({"run", "runpytest", "runpytest_subprocess", "runpytest_inprocess",
                            "invoke", "runpython", "run_command"})  # fmt: skip
RUNNER_NAMES = frozenset({"pytester", "testdir", "runner", "cli_runner", "script_runner"})
LINE_ATTRS = frozenset({"outlines", "errlines"})  # pytester's RunResult
CAPTURES = frozenset({"capsys", "capfd", "capsysbinary", "capfdbinary"})
# Methods that keep a text what it was, for this purpose: the first line stays first.
SAME_TEXT = frozenset({"strip", "rstrip", "lstrip", "decode", "str", "read", "lower", "upper"})
OUTPUT, RESULT, LINES = "output", "result", "lines"


class FirstLineOfOutput(Rule):
    """## What it does
    Flags taking the first line of a program's output by position: `splitlines()[0]`,
    `split("\\n")[0]` or `partition("\\n")[0]` on a subprocess result's `stdout`/`stderr`,
    `check_output(...)`, a `CliRunner` result's `output`, `capsys.readouterr().out`, or
    pytester's `result.stdout`, and `outlines[0]`/`errlines[0]`.

    ## Why is this bad?
    A command that falls back loudly prints a warning before its normal output; a deprecation
    notice or a log line does the same. Line 0 is then the warning, and the assertion breaks,
    or worse, passes on the wrong line. A test of a command's output should scan for the line
    it expects, never index `splitlines()[0]`.

    ## Example
    ```python
    def test_version(run):
        result = run(["app", "--version"])
        assert result.stdout.splitlines()[0] == "app 1.2"
    ```

    ## Use instead
    ```python
    def test_version(run):
        result = run(["app", "--version"])
        assert "app 1.2" in result.stdout.splitlines()
    ```
    Or find the line that carries the marker:
    `next(line for line in out.splitlines() if line.startswith("version:"))`.

    ## Known problems
    Output is recognised through names assigned in the same function from the forms above and
    through `strip()`/`decode()` chains; output returned by a helper function is not
    recognised. The last line (`[-1]`) is not flagged.
    """

    code = "TG103"
    name = "first-line-of-output"
    nodes = (ast.Assign, ast.Subscript)
    triggers = ("[0]",)

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.kinds_of: dict[tuple[int, str], str] = {}  # (function id, name) -> what it holds

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        if isinstance(node, ast.Assign):
            self._bind(node)
            return
        assert isinstance(node, ast.Subscript)
        index = node.slice
        if not (isinstance(index, ast.Constant) and index.value == 0):
            return
        if self.kind(node.value) == LINES:
            yield self.finding(
                node,
                "the first line of a program's output is whatever it printed first (a warning, "
                "a notice): find the line that carries what you check, or assert on all lines",
            )

    def _scope(self) -> int:
        function = self.ctx.function
        return id(function) if function is not None else 0

    def _bind(self, node: ast.Assign) -> None:
        kind = self.kind(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                if kind:
                    self.kinds_of[(self._scope(), target.id)] = kind
                else:
                    self.kinds_of.pop((self._scope(), target.id), None)
            elif isinstance(target, ast.Tuple) and self._pairs_output(node.value):
                for element in target.elts[:2]:  # out, err = capsys.readouterr()
                    if isinstance(element, ast.Name):
                        self.kinds_of[(self._scope(), element.id)] = OUTPUT

    def _is_readouterr(self, node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "readouterr"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in CAPTURES
        )

    def _pairs_output(self, node: ast.AST) -> bool:
        """``capsys.readouterr()`` or ``process.communicate()``: (out, err)."""
        if self._is_readouterr(node):
            return True
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "communicate"
            and self.kind(node.func.value) == RESULT
        )

    def _splits(self, node: ast.Call) -> bool:
        func = node.func
        if not isinstance(func, ast.Attribute):
            return False
        if func.attr == "splitlines":
            return True
        if func.attr in ("split", "partition") and node.args:
            sep = node.args[0]
            if isinstance(sep, ast.Constant):
                return sep.value in ("\n", b"\n", "\r\n")
            return self.ctx.qualname(sep) == "os.linesep"
        return False

    def kind(self, node: ast.AST) -> str:
        """What an expression holds: a program's OUTPUT text, a RESULT object carrying it,
        its LINES, or nothing known ("")."""
        if isinstance(node, ast.Name):
            return self.kinds_of.get((self._scope(), node.id), "")
        if isinstance(node, ast.Attribute):
            base = self.kind(node.value)
            if node.attr in STREAMS:
                return "" if self.ctx.qualname(node) in ("sys.stdout", "sys.stderr") else OUTPUT
            if node.attr == "output" and base == RESULT:
                return OUTPUT
            if node.attr in LINE_ATTRS and base == RESULT:
                return LINES
            if node.attr == "lines" and base == OUTPUT:  # pytester: result.stdout.lines
                return LINES
            if node.attr in ("out", "err") and base == RESULT:
                return OUTPUT
            return ""
        if isinstance(node, ast.Subscript):  # process.communicate()[0]
            index = node.slice
            paired = isinstance(index, ast.Constant) and index.value in (0, 1)
            return OUTPUT if paired and self._pairs_output(node.value) else ""
        if isinstance(node, ast.Call):
            named = self.ctx.may_name(node.func, LAST_PARTS)
            name = (self.ctx.qualname(node.func) or "") if named else ""
            if name in RESULTS or self._is_readouterr(node):
                return RESULT
            if name in OUTPUTS:
                return OUTPUT
            if isinstance(node.func, ast.Attribute):
                base = self.kind(node.func.value)
                if base == OUTPUT and (self._splits(node) or node.func.attr == "readlines"):
                    return LINES
                if base == OUTPUT and node.func.attr in SAME_TEXT:
                    return OUTPUT
                receiver = node.func.value
                if node.func.attr in RUNNER_METHODS and isinstance(receiver, ast.Name):
                    return RESULT if receiver.id in RUNNER_NAMES else ""
        return ""
