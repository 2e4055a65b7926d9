"""TG402 sleep-in-test."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from truegreen.audit.base import Finding, Rule

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)

SLEEPS = frozenset({"time.sleep", "asyncio.sleep", "trio.sleep", "anyio.sleep"})
LAST = frozenset({"sleep"})
# Clock doubles: under one, a sleep is what the test exercises (the frozen clock ticking, the
# real event loop's timers), not a wait for something.
CLOCK_DOUBLES = frozenset({"freezegun.freeze_time", "freezegun.api.freeze_time",
                           "time_machine.travel"})  # fmt: skip
CLOCK_LAST = frozenset(name.rpartition(".")[2] for name in CLOCK_DOUBLES)


class SleepInTest(Rule):
    """## What it does
    Flags `time.sleep(...)` and `asyncio.sleep(...)` (also trio's and anyio's) called in a
    test or a fixture, however the function was imported.

    ## Why is this bad?
    A sleep is a guess about how long something takes. On a loaded CI machine the guess is
    too short and the test flakes; everywhere else it is too long and the suite is slow.
    Time in tests comes from a clock the test controls, and a wait is a wait
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

    A sleep inside the `with` block of a clock double, `freezegun.freeze_time(...)` or
    `time_machine.travel(...)` (whatever its arguments), is not flagged, nor one in a function
    that is called inside such a block (a coroutine handed to `asyncio.run`): under a clock
    double the sleep is the subject of the test (the frozen clock ticking with `tick=True`,
    real asyncio timers with `real_asyncio=True`), not a wait for something. A sleep in the
    same test outside the block is flagged. A clock double applied as a decorator does not
    exempt the test's sleeps. On 32 real suites, 14 of this rule's 15 false findings were such
    sleeps, all in the tests of a clock library (freezegun); the fifteenth sleeps just after
    the block, to show that real sleeping still works, and is still flagged.
    """

    code = "TG402"
    name = "sleep-in-test"
    nodes = (ast.Call, ast.While, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)
    calls = LAST
    triggers = ("sleep",)

    def begin(self) -> Iterator[Finding]:
        self._loops: list[tuple[int, int]] = []  # line ranges of loops: a sleep there polls
        self._clocks: list[tuple[int, int]] = []  # line ranges of clock doubles' with blocks
        # (the outermost function, a name called inside a clock double's block in it)
        self._under_clock: set[tuple[int, str]] = set()
        # sleeps in nested functions, decided at the end: the call may come after the def
        self._pending: list[tuple[int, tuple[str, ...], Finding]] = []
        return iter(())

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        if isinstance(node, (ast.While, ast.For, ast.AsyncFor)):
            self._loops.append((node.lineno, node.end_lineno or node.lineno))
            return
        if isinstance(node, (ast.With, ast.AsyncWith)):
            self._clock_block(node)
            return
        assert isinstance(node, ast.Call)
        if not self.ctx.may_name(node.func, LAST):
            return
        name = self.ctx.qualname(node.func)
        if name not in SLEEPS or _yields_only(node):
            return
        if any(start <= node.lineno <= end for start, end in self._loops + self._clocks):
            return
        where = self.ctx.test_function or self._fixture()
        if where is None:
            return
        finding = self.finding(
            node, f"{name}() in {where.name}: advance a frozen clock or wait for a condition"
        )
        functions = [s for s in self.ctx.scopes if isinstance(s, FUNCTIONS)]
        if len(functions) > 1:  # in a nested function: whether it runs under a clock double
            outer = id(functions[0])
            self._pending.append((outer, tuple(f.name for f in functions[1:]), finding))
        else:
            yield finding

    def _clock_block(self, node: ast.With | ast.AsyncWith) -> None:
        """Record a clock double's block, and the functions called by name inside it."""
        ctx = self.ctx
        if not any(
            isinstance(item.context_expr, ast.Call)
            and ctx.may_name(item.context_expr.func, CLOCK_LAST)
            and ctx.qualname(item.context_expr.func) in CLOCK_DOUBLES
            for item in node.items
        ):
            return
        self._clocks.append((node.lineno, node.end_lineno or node.lineno))
        functions = [s for s in ctx.scopes if isinstance(s, FUNCTIONS)]
        if functions:
            outer = id(functions[0])
            for statement in node.body:
                for inner in ast.walk(statement):
                    if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name):
                        self._under_clock.add((outer, inner.func.id))

    def end(self) -> Iterator[Finding]:
        for outer, names, finding in self._pending:
            if not any((outer, name) in self._under_clock for name in names):
                yield finding

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
