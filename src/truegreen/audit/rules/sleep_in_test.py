"""TG402 sleep-in-test."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from truegreen.audit.base import Finding, Rule

SLEEPS = frozenset({"time.sleep", "asyncio.sleep", "trio.sleep", "anyio.sleep"})
LAST = frozenset({"sleep"})


class SleepInTest(Rule):
    """## What it does
    Flags `time.sleep(...)` and `asyncio.sleep(...)` (also trio's and anyio's) called in a
    test or a fixture, however the function was imported.

    ## Why is this bad?
    A sleep is a guess about how long something takes. On a loaded CI machine the guess is
    too short and the test flakes; everywhere else it is too long and the suite is slow.
    Doctrine 001: time in tests comes from a clock the test controls, and a wait is a wait
    *for a condition*, with a deadline.

    ## Example
    ```python
    def test_cache_expires(cache):
        cache.put("k", 1, ttl=1)
        time.sleep(1.1)
        assert cache.get("k") is None
    ```

    ## Use instead
    ```python
    def test_cache_expires(cache, frozen_clock):
        cache.put("k", 1, ttl=1)
        frozen_clock.advance(1.1)
        assert cache.get("k") is None
    ```

    ## Known problems
    A sleep inside a helper function that a test calls is not followed. `asyncio.sleep(0)`,
    which yields to the event loop rather than waiting, is not flagged, and neither is a
    sleep inside a `while` or `for` loop: that is a poll, a wait for a condition (a loop that
    sleeps a fixed number of times and checks nothing is missed).
    """

    code = "TG402"
    name = "sleep-in-test"
    nodes = (ast.Call, ast.While, ast.For, ast.AsyncFor)
    calls = LAST
    triggers = ("sleep",)

    def begin(self) -> Iterator[Finding]:
        self._loops: list[tuple[int, int]] = []  # line ranges of loops: a sleep there polls
        return iter(())

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        if isinstance(node, (ast.While, ast.For, ast.AsyncFor)):
            self._loops.append((node.lineno, node.end_lineno or node.lineno))
            return
        assert isinstance(node, ast.Call)
        if not self.ctx.may_name(node.func, LAST):
            return
        name = self.ctx.qualname(node.func)
        if name not in SLEEPS or _yields_only(node):
            return
        if any(start <= node.lineno <= end for start, end in self._loops):
            return
        where = self.ctx.test_function or self._fixture()
        if where is not None:
            yield self.finding(
                node, f"{name}() in {where.name}: advance a frozen clock or wait for a condition"
            )

    def _fixture(self) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        for scope in self.ctx.scopes:
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and self.ctx.is_fixture(
                scope
            ):
                return scope
        return None


def _yields_only(call: ast.Call) -> bool:
    """``sleep(0)``: a yield to the event loop, not a wait."""
    return (
        len(call.args) == 1 and isinstance(call.args[0], ast.Constant) and call.args[0].value == 0
    )
