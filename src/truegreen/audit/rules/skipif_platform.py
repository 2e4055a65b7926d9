"""TG302 skipif-platform."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import Optional

from truegreen.audit.base import FileContext, Finding, Rule
from truegreen.audit.hostos import mentions_host
from truegreen.audit.iniopts import config_path, entries

_SKIPS = {
    "pytest.mark.skipif": True,  # skip when the condition holds
    "unittest.skipIf": True,
    "unittest.skipUnless": False,  # run only when it holds
}

# The spec the condition *runs on*, for the simple comparisons people write.
_SPECS = {"win32": "windows", "nt": "windows", "windows": "windows", "darwin": "macos",
          "macos": "macos", "linux": "linux", "posix": "posix"}  # fmt: skip


class SkipifPlatform(Rule):
    """## What it does
    Flags `pytest.mark.skipif(...)`, `unittest.skipIf(...)` and `unittest.skipUnless(...)`
    whose condition is about the host OS (`sys.platform`, `os.name`, `platform.system()`, a
    host flag such as `IS_WINDOWS`, or pytest's string conditions naming them), unless a
    `platforms` marker reaches the same test.

    ## Why is this bad?
    Such a test runs only on the hosts its condition allows and is skipped on every other,
    where it reports green: if none of your CI lanes is such a host, it runs nowhere and
    nothing says so. Nothing outside the condition says where it runs either: a lane that
    picks its files with `truegreen platforms --os windows` reads the
    `platforms` marker, so it never imports a test gated only by
    `skipif(sys.platform != "win32")`, and the full-suite lanes skip it.

    ## Example
    ```python
    @pytest.mark.skipif(sys.platform != "win32", reason="Windows only")
    def test_detach_flags(): ...
    ```

    ## Use instead
    ```python
    @pytest.mark.platforms("windows")
    def test_detach_flags(): ...
    ```
    Register the marker in your pytest configuration, so that the suite still collects
    under `--strict-markers` when it runs without truegreen (`pytest -p no:truegreen`, a
    packager's build):
    ```toml
    [tool.pytest.ini_options]
    markers = ["platforms(*specs, arch=None): the hosts a test runs on (truegreen)"]
    ```
    Without truegreen the marker selects nothing and the test runs on every host: a suite
    that must also run right without truegreen keeps the `skipif` beside the marker, which
    this rule accepts. A condition that is not about the host (`os.geteuid() == 0`, a
    missing program, the Python version) stays a `skipif` beside the marker.

    ## Known problems
    **Opt-in.** This rule runs only when selected: `select = ["ALL", "skipif-platform"]` or
    `extend-select = ["skipif-platform"]` under `[tool.truegreen.audit]`, or `truegreen
    audit --extend-select TG302`. Select it when your CI lanes pick their test files with
    `truegreen platforms`: then a test gated only by a host `skipif` is never imported by
    the lane it was written for. In a project whose lanes run the whole suite on each OS,
    such a `skipif` is right where it is. It is off by default because the audit does not
    know your CI lanes: on 12 real projects with Windows and macOS lanes, all 51 of its
    findings were such skips, correct as written.

    The suggested spec is derived only from simple comparisons (`sys.platform == "win32"`,
    `os.name != "nt"`, `sys.platform.startswith("linux")`); otherwise the message names the
    marker without a spec. The audit does not know your CI lanes: the message says which
    hosts the test runs on, and you judge whether a lane is one. A `platforms` marker is
    recognised on the test, its class, or the module's `pytestmark`; one applied another way
    (a conftest hook, an alias) is not, and the `skipif` beside it is flagged.
    """

    code = "TG302"
    name = "skipif-platform"
    default = False  # the audit does not know the CI lanes; see the page
    nodes = (ast.Call,)
    calls = frozenset({"skipif", "skipIf", "skipUnless"})
    triggers = ("skipif", "skipIf", "skipUnless")

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.module_marked: Optional[bool] = None  # the module's pytestmark has the marker

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        assert isinstance(node, ast.Call)
        name = self.ctx.qualname(node.func)
        if name not in _SKIPS or not node.args:
            return
        condition = node.args[0]
        host = mentions_host(self.ctx, condition)
        if host is None or self._beside_the_marker():
            return
        runs_on = _runs_on(condition, skip_when_true=_SKIPS[name])
        spec = f'"{runs_on}"' if runs_on else "..."
        yield self.finding(
            node,
            f"{name.rsplit('.', 1)[-1]} on the host OS ({host}) runs the test {_hosts(runs_on)}, "
            "and lanes that pick their files with `truegreen platforms` never import it: add "
            f"@pytest.mark.platforms({spec}){self._registration()}; the skipif may stay "
            "beside it",
        )

    def _registration(self) -> str:
        """The advice that keeps ``pytest -p no:truegreen --strict-markers`` collecting."""
        registered = entries(self.ctx.project.pytest_options.get("markers"))
        if any(re.match(r"platforms\s*[(:]", entry) for entry in registered):
            return ""
        return (
            f' and register it in {config_path(self.ctx.project)} (markers: "platforms: the '
            'hosts a test runs on"), so --strict-markers still collects without truegreen'
        )

    def _beside_the_marker(self) -> bool:
        """Whether a ``platforms`` marker reaches the test this skip is on: on an enclosing
        function or class, in a class's or the module's ``pytestmark``."""
        for scope in self.ctx.scopes:
            decorators = getattr(scope, "decorator_list", ())
            if any(self._is_marker(d) for d in decorators):
                return True
            if isinstance(scope, ast.ClassDef) and self._marks(scope.body):
                return True
        if self.module_marked is None:
            self.module_marked = self._marks(self.ctx.tree.body)
        return self.module_marked

    def _marks(self, body: list[ast.stmt]) -> bool:
        """Whether a ``pytestmark = ...`` among these statements holds the marker."""
        for statement in body:
            if isinstance(statement, ast.Assign):
                targets, value = statement.targets, statement.value
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                targets, value = [statement.target], statement.value
            else:
                continue
            named = any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets)
            if named and any(self._is_marker(n) for n in ast.walk(value)):
                return True
        return False

    def _is_marker(self, node: ast.AST) -> bool:
        target = node.func if isinstance(node, ast.Call) else node
        if not isinstance(target, (ast.Attribute, ast.Name)):
            return False
        return (self.ctx.qualname(target) or "").endswith("mark.platforms")


def _hosts(runs_on: Optional[str]) -> str:
    """Where a test gated by the condition runs, in words."""
    if runs_on is None:
        return "only where its condition allows (nowhere, if none of your lanes does)"
    if runs_on.startswith("not "):
        return f"everywhere but {runs_on[4:]}"
    return f"only on {runs_on} (nowhere, if none of your lanes is {runs_on})"


def _runs_on(condition: ast.AST, *, skip_when_true: bool) -> Optional[str]:
    """``sys.platform == "win32"`` as a skip condition runs on ``not windows``."""
    holds_on: Optional[str] = None
    negated = False
    if isinstance(condition, ast.UnaryOp) and isinstance(condition.op, ast.Not):
        condition, negated = condition.operand, True
    if (
        isinstance(condition, ast.Compare)
        and len(condition.ops) == 1
        and isinstance(condition.comparators[0], ast.Constant)
        and isinstance(condition.ops[0], (ast.Eq, ast.NotEq))
    ):
        spec = _SPECS.get(str(condition.comparators[0].value).lower())
        if spec is None:
            return None
        negated ^= isinstance(condition.ops[0], ast.NotEq)
        holds_on = spec
    elif (
        isinstance(condition, ast.Call)
        and isinstance(condition.func, ast.Attribute)
        and condition.func.attr == "startswith"
        and condition.args
        and isinstance(condition.args[0], ast.Constant)
    ):
        holds_on = _SPECS.get(str(condition.args[0].value).lower())
    if holds_on is None:
        return None
    runs_where_it_holds = negated == skip_when_true
    return holds_on if runs_where_it_holds else f"not {holds_on}"
