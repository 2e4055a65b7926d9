"""TG106 path-compared-as-text."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Optional

from truegreen.audit.base import Finding, Rule

TMP_NAMES = frozenset({"tmp_path", "tmpdir", "tmp_path_factory", "tmpdir_factory"})
TMP_CALLS = frozenset({"tempfile.mkdtemp", "tempfile.gettempdir", "tempfile.TemporaryDirectory",
                       "tempfile.mkstemp"})  # fmt: skip
# what another program, or the OS, answers: its text may spell the path another way
OUTPUT_CALLS = frozenset({"subprocess.run", "subprocess.Popen", "subprocess.check_output",
                          "subprocess.getoutput",
                          "subprocess.getstatusoutput", "os.getcwd", "pathlib.Path.cwd",
                          "os.path.realpath"})  # fmt: skip
OUTPUT_ATTRS = frozenset({"stdout", "stderr"})
TEXT_CALLS = frozenset({"str", "os.fspath", "os.path.join", "os.path.abspath"})
COMPARES = (ast.In, ast.NotIn, ast.Eq, ast.NotEq)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class PathComparedAsText(Rule):
    """## What it does
    Flags an assertion that compares a temporary path, as text, with what another program or
    the OS printed: `assert str(tmp_path) in proc.stdout`,
    `assert out == f"{tmp_path}/x\\n"`, `assert os.getcwd() == str(repo)`,
    `assert git_out.startswith(str(tmp_path))`. The path side is `str(...)`,
    `os.fspath(...)`, `os.path.join(...)`, `.as_posix()` or an f-string of pytest's
    `tmp_path`/`tmpdir` (or `tempfile`'s directories) or of a name made from them in the same
    function; the other side is a `.stdout`/`.stderr`, `subprocess.check_output(...)`,
    `subprocess.getoutput(...)`, `os.getcwd()`, `Path.cwd()` or `os.path.realpath(...)`, or a
    name assigned one of those.

    ## Why is this bad?
    The same directory has more than one spelling, and a program that prints a path prints
    its own. On macOS the temporary directory is under `/var/folders/...`, a symbolic link to
    `/private/var/folders/...`: git, `pwd` and `os.getcwd()` answer the resolved form, so a
    directory from `tempfile` (which does not resolve it) compared as text with their output
    fails there and passes on Linux. On Windows, git and the other tools built on MSYS print
    `C:/Users/...` with forward slashes where `str(tmp_path)` has backslashes, and a program
    may answer with another drive-letter case or an 8.3 short name (`C:\\Users\\RUNNER~1`).
    pytest resolves its own `tmp_path` (so the macOS link is already followed there), but not
    the separators a program prints. The test passes on the host it was written on and fails
    on the next, for a reason that has nothing to do with the code. Opt-in (see Known
    problems).

    ## Example
    ```python
    def test_toplevel(tmp_path):
        subprocess.run(["git", "init", "-b", "main", str(tmp_path)], check=True)
        cmd = ["git", "rev-parse", "--show-toplevel"]
        out = subprocess.check_output(cmd, cwd=tmp_path, text=True)
        assert out.strip() == str(tmp_path)
    ```

    ## Use instead
    Compare resolved paths, not their text:
    ```python
        assert Path(out.strip()).resolve() == tmp_path.resolve()
    ```
    (or `os.path.samefile(out.strip(), tmp_path)`); for a path inside longer output, resolve
    `tmp_path` before handing it to the program, so both sides spell it the same way.

    ## Known problems
    Opt-in: on the 32 real suites of the audit's precision bench it made 2 findings, 1 right
    (setuptools-scm compares a worktree path with what its command built from git's answer,
    a test already marked xfail for "sometimes relative path results") and 1 wrong
    (versioningit compares with a message its own code formats in a Python child, from the
    same resolved path it was given): 0.50. The rule cannot tell a program that re-spells the
    path (git on Windows, anything on macOS given a `tempfile` directory) from one that
    prints back what it was handed.

    Only paths made from pytest's and `tempfile`'s temporary directories are followed, and
    only through names assigned in the same function; a path from a fixture or a helper
    (`wd.cwd`, `repo`) is not seen. Output is recognised by how it was obtained, not by what
    it holds: text the product formats in the test's own process (an exception message,
    `capsys`) is not flagged, but `.stdout` of anything is taken for a program's. A
    comparison whose path side was resolved (`str(tmp_path.resolve())`) is not flagged.
    """

    code = "TG106"
    name = "path-compared-as-text"
    default = False
    nodes = (ast.Assign, ast.With, ast.AsyncWith, ast.Assert)
    triggers = ("tmp_path", "tmpdir", "tempfile")

    def begin(self) -> Iterator[Finding]:
        self.tmp: set[tuple[int, str]] = set()  # (function, name): a temporary path
        self.output: set[tuple[int, str]] = set()  # (function, name): a program's answer
        self.texts: set[tuple[int, str]] = set()  # (function, name): a temporary path's text
        return iter(())

    def _scope(self) -> int:
        function = self.ctx.function
        return id(function) if function is not None else 0

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        if isinstance(node, ast.Assign):
            self._assign(node.targets, node.value)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self._assign([item.optional_vars], item.context_expr)
        elif isinstance(node, ast.Assert):
            where = self._compares(node.test)
            if where is not None:
                yield self.finding(
                    node,
                    "compares a temporary path as text with what a program printed: it may "
                    "spell it resolved (/private/var on macOS) or shortened (Windows); "
                    "compare Path(...).resolve() on both sides",
                )

    def _assign(self, targets: list[ast.expr], value: ast.AST) -> None:
        names: list[str] = []
        for target in targets:
            if isinstance(target, ast.Name):
                names.append(target.id)
            elif isinstance(target, (ast.Tuple, ast.List)):
                names.extend(e.id for e in target.elts if isinstance(e, ast.Name))
        scope = self._scope()
        is_text = self._text(value)
        is_output = not is_text and self._output(value)
        is_tmp = not is_text and not is_output and self._tmp(value)
        for name in names:
            key = (scope, name)
            for held in (self.tmp, self.output, self.texts):
                held.discard(key)
            if is_text:
                self.texts.add(key)
            elif is_tmp:
                self.tmp.add(key)
            elif is_output:
                self.output.add(key)

    def _tmp(self, node: ast.AST) -> bool:
        """An expression that is or holds a temporary path, not resolved."""
        for inner in ast.walk(node):
            if isinstance(inner, ast.Attribute) and inner.attr in ("resolve", "realpath"):
                return False
            if isinstance(inner, ast.Call):
                name = self.ctx.qualname(inner.func)
                if name in ("os.path.realpath", "os.path.samefile"):
                    return False
                if name in TMP_CALLS:
                    return True
            if isinstance(inner, ast.Name) and (
                inner.id in TMP_NAMES or (self._scope(), inner.id) in self.tmp
            ):
                return True
        return False

    def _output(self, node: ast.AST) -> bool:
        """An expression that is, or is made from, what a program or the OS answered."""
        for inner in ast.walk(node):
            if isinstance(inner, ast.Attribute) and inner.attr in OUTPUT_ATTRS:
                return True
            if isinstance(inner, ast.Call):
                name = self.ctx.qualname(inner.func)
                if name in OUTPUT_CALLS or (name or "").endswith("Path.cwd"):
                    return True
                if isinstance(inner.func, ast.Attribute) and inner.func.attr == "communicate":
                    return True
            if isinstance(inner, ast.Name) and (self._scope(), inner.id) in self.output:
                return True
        return False

    def _text(self, node: ast.AST) -> bool:
        """A temporary path turned into text: str(), os.fspath(), .as_posix(), an f-string."""
        if isinstance(node, ast.JoinedStr):
            return any(
                isinstance(part, ast.FormattedValue) and self._tmp(part.value)
                for part in node.values
            )
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "as_posix":
                return self._tmp(func.value)
            if self.ctx.qualname(func) in TEXT_CALLS:
                return any(self._tmp(arg) for arg in node.args)
        return isinstance(node, ast.Name) and (self._scope(), node.id) in self.texts

    def _compares(self, test: ast.AST) -> Optional[ast.AST]:
        parts = test.values if isinstance(test, ast.BoolOp) else [test]
        for part in parts:
            if isinstance(part, ast.Compare):
                operands = [part.left, *part.comparators]
                for n, op in enumerate(part.ops):
                    if not isinstance(op, COMPARES):
                        continue
                    left, right = operands[n], operands[n + 1]
                    if (self._text(left) and self._output(right)) or (
                        self._text(right) and self._output(left)
                    ):
                        return part
            elif (
                isinstance(part, ast.Call)
                and isinstance(part.func, ast.Attribute)
                and part.func.attr in ("startswith", "endswith")
                and part.args
                and self._text(part.args[0])
                and self._output(part.func.value)
            ):
                return part
        return None
