"""TG105 no-assertion."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from typing import Optional

from truegreen.audit.asserting import OUTCOMES, Function, Resolver, Summary, looks_up
from truegreen.audit.base import Finding, Rule

Findings = Sequence[Finding]
XFAIL = frozenset({"xfail"})
OUTCOME_NAMES = frozenset(name.rpartition(".")[2] for name in OUTCOMES)
UNITTEST = frozenset({"unittest.TestCase", "TestCase", "unittest.IsolatedAsyncioTestCase"})
# A test named for not raising: test_reset_shouldnt_raise, testNoError (in snake case).
NOT_RAISING_NAME = re.compile(
    r"(^|_)((not|no|doesnt|does_not|shouldnt|should_not)_raises?|no_(errors?|exceptions?))(_|$)"
)
# A docstring or comment saying so: "# just check it doesn't raise", "should not raise".
NOT_RAISING_TEXT = re.compile(
    r"\b(does|do|should|must|will|would)\s*(not|n['\u2019]t)\s+raise|\bno\s+exception",
    re.IGNORECASE,
)
# What expects an exception, by its qualified name: as a with item, or handed a callable
RAISES = frozenset({"pytest.raises", "self.assertRaises", "self.assertRaisesRegex"})
RAISES_LAST = frozenset(name.rpartition(".")[2] for name in RAISES)
# How many tests before and after a test may be the refusing half of its pair
PAIRED = 2


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

    A test that says its point is that nothing raises is not flagged: its name says so
    (`not_raise`, `no_raise`, `doesnt_raise`, `does_not_raise`, `shouldnt_raise`,
    `no_error`, `no_exception`, in snake or camel case), or its docstring or a comment in it
    does ("does not raise", "doesn't raise", "should not raise", "no exception"). Neither is
    the accepting half of a pair: a test one of whose neighbours (the two tests before it
    and the two after it, in its class or, for a module-level test, among the module's
    functions) calls one of the same callees, by the same dotted name, inside
    `pytest.raises` or `self.assertRaises` (`v(None, attr, 42)` beside `with
    pytest.raises(TypeError): v(None, attr, "42")`): raising is how it fails.

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
    **Opt-in.** This rule runs only when selected: `extend-select = ["no-assertion"]` under
    `[tool.truegreen.audit]` (or in `select`), or `truegreen audit --extend-select TG105`.
    It is off by default because most tests it flags on real suites are deliberate: on 32
    well-known projects' suites, 51 of the 71 tests it flagged checked on purpose that a
    call does not raise (said so in their name or a comment, or were the accepting half of a
    pair whose twin expects the error), and 20 were tests that really check nothing. With
    the two exemptions above, 19 of its 45 findings on those suites are right: still too few
    for a default rule. The accepting half of a pair is read from the two tests before and
    after it, so it can hide a real finding beside a test that expects an error from the
    same call. Select it to review a suite for unfinished tests, or in a project whose
    convention is that every test asserts.

    A test whose whole point is "this does not raise" and says so nowhere is flagged; say so
    with an assertion on the result, a comment, or suppress the line with the reason. A test
    that skips or xfails unconditionally at its top level, is marked `xfail(raises=...)`, or
    requests pytest-benchmark's `benchmark` fixture (a measurement, not a check) is not
    flagged. Helpers reached through a variable, a class instance or `from module import *`
    are not followed, so a test that only calls such a helper is flagged (a false positive:
    suppress it or name the helper `check_*`). A call named `check*` that does not assert
    hides a missing assertion, and so does an `assert` in a nested function the test never
    calls.
    """

    code = "TG105"
    name = "no-assertion"
    default = False  # most real findings are deliberate: see the page
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
        # per class (None: the module), its tests in source order
        self._siblings: dict[Optional[str], list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        # per test (by id), what it calls expecting an exception
        self._refusing: dict[int, set[str]] = {}
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
                and not self._says_it_does_not_raise(test.node)
                and not self._accepting_half(test)
            ):
                yield self.finding(
                    test.node,
                    f"{test.node.name} asserts nothing: assert the outcome it is named for "
                    f"(or call a helper that does)",
                )

    def _says_it_does_not_raise(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """A test that says it checks that nothing raises: by its name, its docstring or a
        comment in it. Raising is how it fails."""
        snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", node.name).lower()
        if NOT_RAISING_NAME.search(snake):
            return True
        if NOT_RAISING_TEXT.search(ast.get_docstring(node) or ""):
            return True
        lines = self.ctx.lines[node.lineno - 1 : node.end_lineno]
        return any(NOT_RAISING_TEXT.search(line.partition("#")[2]) for line in lines)

    def _accepting_half(self, test: Function) -> bool:
        """The accepting half of a pair: a neighbouring test (one of the ``PAIRED`` tests
        before or after it in its class, or among the module's functions) calls one of this
        test's callees inside ``pytest.raises`` or ``self.assertRaises``. Raising is how
        this one fails."""
        siblings = self._siblings.get(test.cls)
        if siblings is None:
            found = (
                self.summary.functions.values()
                if test.cls is None
                else [f for (c, _), f in self.summary.methods.items() if c == test.cls]
            )
            siblings = self._siblings[test.cls] = sorted(
                (f.node for f in found if f.node.name.startswith("test")),
                key=lambda node: node.lineno,
            )
        at = siblings.index(test.node)
        refused: set[str] = set()
        for sibling in siblings[max(at - PAIRED, 0) : at] + siblings[at + 1 : at + 1 + PAIRED]:
            key = id(sibling)
            if key not in self._refusing:
                self._refusing[key] = set(self._called_under_raises(sibling))
            refused |= self._refusing[key]
        if not refused:
            return False
        ctx = self.ctx
        return any(
            isinstance(node, ast.Call) and ctx.qualname(node.func) in refused
            for node in ast.walk(test.node)
        )

    def _called_under_raises(self, node: ast.AST) -> Iterator[str]:
        """The qualified names of what ``node`` calls expecting an exception."""
        ctx = self.ctx
        for inner in ast.walk(node):
            if isinstance(inner, (ast.With, ast.AsyncWith)):
                if any(self._raises(item.context_expr) for item in inner.items):
                    for statement in inner.body:
                        for call in ast.walk(statement):
                            if isinstance(call, ast.Call):
                                name = ctx.qualname(call.func)
                                if name is not None:
                                    yield name
            elif isinstance(inner, ast.Call) and len(inner.args) > 1 and self._raises(inner):
                name = ctx.qualname(inner.args[1])  # pytest.raises(E, func, *args)
                if name is not None:
                    yield name

    def _raises(self, node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Call)
            and self.ctx.may_name(node.func, RAISES_LAST)
            and self.ctx.qualname(node.func) in RAISES
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
