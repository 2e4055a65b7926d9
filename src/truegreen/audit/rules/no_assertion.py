"""TG105 no-assertion."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from truegreen.audit.asserting import OUTCOMES, Function, Resolver, Summary, looks_up
from truegreen.audit.base import Finding, Rule

Findings = Sequence[Finding]
XFAIL = frozenset({"xfail"})
OUTCOME_NAMES = frozenset(name.rpartition(".")[2] for name in OUTCOMES)
UNITTEST = frozenset({"unittest.TestCase", "TestCase", "unittest.IsolatedAsyncioTestCase"})


class NoAssertion(Rule):
    """## What it does
    Flags a test that checks nothing: no `assert` statement, no `raise`, no
    `pytest.raises`/`pytest.warns`/`pytest.deprecated_call`/`pytest.fail`, no call that
    asserts by its name, and no helper or fixture that does.

    A call asserts by its name when the called function or method is named `assert*`
    (`mock.assert_called_once_with`, `self.assertEqual`, pytester's `assert_outcomes` and
    `assertoutcome`, `assert_frame_equal`), `check_*`, `verify_*`, `expect_*`, `ensure_*`
    (or `checkFoo`, `verify`, ...), or is one of pytester's line matchers (`fnmatch_lines`,
    `re_match_lines`, `no_fnmatch_line`, `no_re_match_line` and their `_random` forms).
    Helpers are followed transitively: functions of the same module, methods of the test's
    class called through `self`, functions of the `conftest.py` files above the test, and
    functions of modules the test imports that live beside it or under the project root.
    A fixture the test requests (by parameter or `usefixtures`) that asserts counts too.
    Tests in `Test*` classes and `unittest.TestCase` subclasses are checked.

    Three checks that fail by raising count as well: a test whose body is nothing but
    imports (the modules import), an attribute access or `getattr(obj, "name")` written as
    a statement (the attribute exists), and `warnings.simplefilter("error")` or
    `warnings.filterwarnings("error", ...)` (a warning fails the test).

    ## Why is this bad?
    A test with no assertion passes whenever its code does not raise: it stays green when
    the behaviour it is named for is gone. It is the purest false green, and it is common,
    because a test that was meant to be finished later looks exactly like a finished one.

    ## Example
    ```python
    def test_export_writes_the_report(tmp_path):
        export(tmp_path / "report.csv")
    ```

    ## Use instead
    ```python
    def test_export_writes_the_report(tmp_path):
        export(tmp_path / "report.csv")
        assert (tmp_path / "report.csv").read_text().startswith("name,total")
    ```

    ## Known problems
    A test whose whole point is "this does not raise" is flagged; say so with an assertion
    on the result, or suppress the line with the reason. A test that skips or xfails
    unconditionally at its top level, is marked `xfail(raises=...)`, or requests
    pytest-benchmark's `benchmark` fixture (a measurement, not a check) is not flagged.
    Helpers reached through a variable, a class instance or `from module import *` are not
    followed, so a test that only calls such a helper is flagged (a false positive: suppress
    it or name the helper `check_*`). A call named `check*` that does not assert hides a
    missing assertion, and so does an `assert` in a nested function the test never calls.
    """

    code = "TG105"
    name = "no-assertion"
    kinds = frozenset({"test"})
    nodes = (
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
        ast.Assert,
        ast.Raise,
        ast.Call,
        ast.Expr,
    )

    def begin(self) -> Iterator[Finding]:
        self.summary = Summary(self.ctx.path, self.ctx)
        return iter(())

    # One method per node type, each straight to what the summary records for it.

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Findings:
        self.summary.define(self.ctx, node)
        return ()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> Findings:
        self.summary.define_class(self.ctx, node)
        return ()

    def visit_Assert(self, node: ast.Assert) -> Findings:
        self.summary.mark(self.ctx)
        return ()

    def visit_Raise(self, node: ast.Raise) -> Findings:
        if node.exc:
            self.summary.mark(self.ctx)
        return ()

    def visit_Call(self, node: ast.Call) -> Findings:
        self.summary.call(self.ctx, node)
        return ()

    def visit_Expr(self, node: ast.Expr) -> Findings:
        # `module.name` or `getattr(obj, "name")` as a statement, its value dropped: a check
        # that the attribute exists (AttributeError fails the test).
        if looks_up(node.value):
            self.summary.mark(self.ctx)
        return ()

    def end(self) -> Iterator[Finding]:
        resolver = Resolver(self.ctx.project)
        test_classes = self._test_classes()
        named = self.ctx.project.naming.test_function
        tests = [f for n, f in self.summary.functions.items() if named(n)]
        tests.extend(
            f for (c, n), f in self.summary.methods.items() if c in test_classes and named(n)
        )
        tests = [f for f in tests if f.fixture is None]
        for test in sorted(tests, key=lambda f: f.node.lineno):
            if (
                not self._concludes(test)
                and not _imports_only(test.node)
                and not resolver.asserts(self.summary, test)
            ):
                yield self.finding(
                    test.node,
                    f"{test.node.name} asserts nothing: assert the outcome it is named for "
                    f"(or call a helper that does)",
                )

    def _test_classes(self) -> set[str]:
        classes = set()
        for node in self.ctx.tree.body:
            if isinstance(node, ast.ClassDef):
                bases = {self.ctx.qualname(b) for b in node.bases}
                if self.ctx.project.naming.test_class(node.name) or bases & UNITTEST:
                    classes.add(node.name)
        return classes

    def _concludes(self, test: Function) -> bool:
        """A top-level, unconditional skip or xfail, or an xfail mark that names the exception
        it expects: the test reports no pass to doubt."""
        if "benchmark" in test.requests:
            return True  # pytest-benchmark: a measurement, not a check
        # may_name first: qualname is dearer, and most decorators and statements are neither.
        ctx = self.ctx
        for decorator in test.node.decorator_list:
            if (
                isinstance(decorator, ast.Call)
                and ctx.may_name(decorator.func, XFAIL)
                and any(kw.arg == "raises" for kw in decorator.keywords)
                and ctx.qualname(decorator.func) == "pytest.mark.xfail"
            ):
                return True
        for statement in test.node.body:
            if (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Call)
                and ctx.may_name(statement.value.func, OUTCOME_NAMES)
                and ctx.qualname(statement.value.func) in OUTCOMES
            ):
                return True
        return False


def _imports_only(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A test of nothing but imports (a docstring aside) checks that they import: an
    ImportError fails it."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return bool(body) and all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in body)
