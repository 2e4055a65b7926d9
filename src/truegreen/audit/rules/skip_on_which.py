"""TG304 skip-on-which."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Optional

from truegreen.audit.base import Finding, Rule, string_value

# the decorators that skip when their condition is true (skipif) or false (skipUnless)
SKIP_WHEN_TRUE = frozenset({"pytest.mark.skipif", "unittest.skipIf"})
SKIP_WHEN_FALSE = frozenset({"unittest.skipUnless"})
# a call or a raise that skips the test from inside it
SKIPS = frozenset({"pytest.skip", "pytest.mark.skip", "unittest.SkipTest", "pytest.skip.Exception"})
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# an argument that makes a call a probe: it runs the tool and asks for its version
VERSION_FLAGS = frozenset({"--version", "-version", "-V", "version"})
NESTED = (*FUNCTIONS, ast.Lambda, ast.ClassDef)


class SkipOnWhich(Rule):
    """## What it does
    Flags a test gated on `shutil.which("tool")`: a `pytest.mark.skipif`, `unittest.skipIf`
    or `unittest.skipUnless` whose condition calls it (directly, through a name assigned from
    it, or through a function of the same file that returns it), and an `if` on it whose
    branch calls `pytest.skip(...)`, `self.skipTest(...)` or raises `unittest.SkipTest`. A
    gate that also runs the tool (a `subprocess` call in the condition, or a call given
    `"--version"`) is a probe, and is not flagged.

    ## Why is this bad?
    `shutil.which` runs nothing: it says that a file by that name is on PATH and executable.
    A version manager's shim for a tool that is not installed (pyenv's `python3.7`), a
    launcher with nothing behind it (Windows' `bash.exe` with no WSL distribution), or a
    broken install all pass the gate, and the test then fails on that machine for a reason
    that has nothing to do with the code. Where the tool is missing, the test is skipped
    without a word, on every run, and nobody notices that it never runs. A gate the other
    way round (`skipif(shutil.which("git") is not None)`, "git must not be installed") runs
    only on machines without the tool, which is none of the machines CI uses.

    ## Example
    ```python
    @pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
    def test_version_from_tag(tmp_path): ...
    ```

    ## Use instead
    Probe the tool by running it, once per session:
    ```python
    def _runs(*argv):
        try:
            return subprocess.run(argv, capture_output=True, timeout=30).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return False


    HAVE_GIT = _runs("git", "--version")


    @pytest.mark.skipif(not HAVE_GIT, reason="git --version does not run")
    def test_version_from_tag(tmp_path): ...
    ```
    For a test of what happens without the tool, take it off PATH for that test
    (`monkeypatch.setenv("PATH", str(tmp_path))`) so the test runs everywhere.

    ## Known problems
    The rule reads one file: a gate built in another module (a `needs_git` marker imported
    from a helper) is not seen, and a name counts only when the same function or the module
    assigns it from an expression that calls `shutil.which`. Any skip under an `if` that
    mentions `shutil.which` is flagged, also when the `if` tests other things beside it.
    A `which` that is not `shutil`'s (an import of another package's `which`) is not
    recognised.
    """

    code = "TG304"
    name = "skip-on-which"
    nodes = (ast.Call, ast.If)
    calls = frozenset({"skipif", "skipIf", "skipUnless"})
    triggers = ("which",)

    @classmethod
    def wants(cls, source: str) -> bool:
        # a call that resolves to shutil.which names shutil somewhere in the file's text
        return "which" in source and "shutil" in source

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        if isinstance(node, ast.Call):
            yield from self._decorator(node)
        elif isinstance(node, ast.If):
            yield from self._if(node)

    def _decorator(self, node: ast.Call) -> Iterator[Finding]:
        name = self.ctx.qualname(node.func)
        if name not in SKIP_WHEN_TRUE and name not in SKIP_WHEN_FALSE:
            return
        condition = node.args[0] if node.args else None
        for keyword in node.keywords:
            if keyword.arg == "condition":
                condition = keyword.value
        if condition is None:
            return
        which = self._which(condition, set())
        if which is None or self._probes(condition):
            return
        polarity = self._polarity(condition, set())
        # skipif skips when the condition holds; skipUnless when it does not
        inverted = polarity > 0 if name in SKIP_WHEN_TRUE else polarity < 0
        yield self.finding(node, _message(which, inverted))

    def _if(self, node: ast.If) -> Iterator[Finding]:
        which = self._which(node.test, set())
        if which is None or self._probes(node.test):
            return
        polarity = self._polarity(node.test, set())
        for branch, inverted in ((node.body, polarity > 0), (node.orelse, polarity < 0)):
            if any(self._skips(statement) for statement in branch):
                yield self.finding(node, _message(which, inverted))
                return

    def _skips(self, statement: ast.stmt) -> bool:
        """Whether a statement skips the test (not inside a nested function)."""
        for node in _within(statement):
            if isinstance(node, ast.Call):
                name = self.ctx.qualname(node.func) or ""
                if name in SKIPS or name.endswith(".skipTest"):
                    return True
            if isinstance(node, ast.Raise) and node.exc is not None:
                raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if self.ctx.qualname(raised) in SKIPS:
                    return True
        return False

    def _probes(self, expr: ast.AST) -> bool:
        """Whether the gate also runs the tool: a ``subprocess`` call in it, or a call with a
        version flag among its arguments (``runs(path, "--version")``)."""
        for node in ast.walk(expr):
            if not isinstance(node, ast.Call):
                continue
            if (self.ctx.qualname(node.func) or "").startswith("subprocess."):
                return True
            if any(string_value(n) in VERSION_FLAGS for a in node.args for n in ast.walk(a)):
                return True
        return False

    def _which(self, expr: ast.AST, seen: set[str]) -> Optional[ast.Call]:
        """The ``shutil.which(...)`` call an expression depends on, if any: in it, in the
        value of a name it reads, or in what a function of this file it calls returns."""
        for node in ast.walk(expr):
            if isinstance(node, ast.Call):
                if self.ctx.qualname(node.func) == "shutil.which":
                    return node
                if isinstance(node.func, ast.Name) and node.func.id not in seen:
                    seen.add(node.func.id)
                    for value in self._returns(node.func.id):
                        found = self._which(value, seen)
                        if found is not None:
                            return found
            elif isinstance(node, ast.Name) and node.id not in seen:
                seen.add(node.id)
                for value in self._values(node.id):
                    found = self._which(value, seen)
                    if found is not None:
                        return found
        return None

    def _polarity(self, expr: ast.AST, seen: set[str]) -> int:
        """+1 when the expression is true where the tool is found, -1 where it is missing,
        0 when the rule cannot tell (then the gate is taken as skipping where it is missing)."""
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            return -self._polarity(expr.operand, seen)
        if isinstance(expr, ast.Call):
            if self.ctx.qualname(expr.func) == "shutil.which":
                return 1
            if self.ctx.qualname(expr.func) == "bool" and expr.args:
                return self._polarity(expr.args[0], seen)
            return 0
        if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
            left, right, op = expr.left, expr.comparators[0], expr.ops[0]
            other = right if _is_none(left) else left
            if _is_none(left) or _is_none(right):
                if isinstance(op, (ast.In, ast.NotIn)):
                    return -1 if isinstance(op, ast.In) else 1
                inner = self._polarity(other, seen)
                return -inner if isinstance(op, (ast.Is, ast.Eq)) else inner
            return 0
        if isinstance(expr, ast.Name) and expr.id not in seen:
            seen.add(expr.id)
            values = self._values(expr.id)
            return self._polarity(values[-1], seen) if values else 0
        if isinstance(expr, ast.BoolOp):
            signs = {self._polarity(value, set(seen)) for value in expr.values} - {0}
            return signs.pop() if len(signs) == 1 else 0
        return 0

    def _values(self, name: str) -> list[ast.expr]:
        """What ``name`` is assigned in the enclosing function and at module level."""
        values = list(self._assigned(self.ctx.tree).get(name, ()))
        function = self.ctx.function
        if function is not None:
            values.extend(self._assigned(function).get(name, ()))
        return values

    def _assigned(self, scope: ast.AST) -> dict[str, list[ast.expr]]:
        """The values each name is assigned in a scope, in source order: read once per scope
        (a gate that reads several names would otherwise walk the module for each)."""
        index: dict[int, dict[str, list[ast.expr]]] = self.__dict__.setdefault("_index", {})
        found = index.get(id(scope))
        if found is None:
            found = index[id(scope)] = {}
            for statement in _statements(scope):
                if isinstance(statement, ast.Assign):
                    targets: list[ast.expr] = statement.targets
                elif isinstance(statement, (ast.AnnAssign, ast.NamedExpr)):
                    targets = [statement.target]
                else:
                    continue
                if statement.value is not None:
                    for name in {t.id for t in targets if isinstance(t, ast.Name)}:
                        found.setdefault(name, []).append(statement.value)
        return found

    def _returns(self, name: str) -> list[ast.expr]:
        """What a module-level function of this file named ``name`` returns."""
        for statement in self.ctx.tree.body:
            if isinstance(statement, FUNCTIONS) and statement.name == name:
                return [
                    node.value
                    for node in _statements(statement)
                    if isinstance(node, ast.Return) and node.value is not None
                ]
        return []


def _statements(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a scope, not those of the functions and classes nested in it."""
    for child in ast.iter_child_nodes(scope):
        yield from _within(child)


def _within(node: ast.AST) -> Iterator[ast.AST]:
    """A node and the nodes under it, not those of a function or class nested in it."""
    if isinstance(node, NESTED):
        return
    yield node
    for child in ast.iter_child_nodes(node):
        yield from _within(child)


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _message(which: ast.Call, inverted: bool) -> str:
    tool = string_value(which.args[0]) if which.args else None
    shown = tool or "the tool"
    called = f'shutil.which("{tool}")' if tool else "shutil.which(...)"
    if inverted:
        return (
            f"the test runs only where {called} finds nothing, so it is skipped wherever "
            f"{shown} is installed: take {shown} off PATH for the test instead"
        )
    probe = f"`{tool} --version`" if tool else "the tool (`--version`)"
    return (
        f"the test is gated on {called}, which runs nothing: a shim or a broken {shown} "
        f"passes it, and where {shown} is missing the test is skipped for good; run {probe} "
        "to decide instead"
    )
