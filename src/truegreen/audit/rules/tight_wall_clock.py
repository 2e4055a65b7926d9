"""TG406 tight-wall-clock-assertion."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Optional

from truegreen.audit.base import Finding, Rule

# Clocks that read real time in seconds (the _ns variants count nanoseconds, a threshold
# under 1 would never be written against them).
CLOCKS = frozenset({"time.time", "time.monotonic", "time.perf_counter", "time.process_time",
                    "time.thread_time", "timeit.default_timer"})  # fmt: skip
CLOCK_LAST = frozenset(name.rpartition(".")[2] for name in CLOCKS)
# The budget under which a wall-clock bound is a finding, in seconds: see the rule's page.
TIGHT = 1.0
UPPER = {ast.Lt: True, ast.LtE: True, ast.Gt: False, ast.GtE: False}  # op -> left is below
UNITTEST = {"assertLess": True, "assertLessEqual": True, "assertGreater": False,
            "assertGreaterEqual": False}  # fmt: skip


def _number(node: ast.AST) -> Optional[float]:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return float(node.value)
    return None


class TightWallClock(Rule):
    """## What it does
    Flags an assertion that bounds a span of real time from above by less than one second:
    `assert elapsed < 0.1`, `assert time.monotonic() - t0 <= 0.5`,
    `assert 0.02 <= time.time() - before < 0.3`, `self.assertLess(duration, 0.2)`. The span
    is a difference of two readings of a real clock (`time.time`, `time.monotonic`,
    `time.perf_counter`, `time.process_time`, `time.thread_time`, `timeit.default_timer`),
    written in the assertion or held in a name assigned from one in the same function.

    ## Why is this bad?
    How long a piece of code takes is not a property of the code alone: it is the code plus
    the machine, its load, its scheduler, its garbage collector and the first import of a
    module. On an idle laptop the call takes 20 ms and the assertion holds; on a CI runner
    sharing its cores with other jobs, a pause of a few hundred milliseconds is ordinary, and
    the test fails for a reason that has nothing to do with the change under review. Retried,
    it passes, and the team learns to retry. The bound is a guess about the machine, and a
    tight one is the first to be wrong.

    The line is drawn at one second: below it, a single scheduling delay on a loaded machine
    can cross the bound; at a second and above the check is usually a guard against a hang
    (something that should return at once and might block forever), which still flakes
    sometimes but rarely.

    ## Example
    ```python
    def test_cache_hit_is_fast(cache):
        t0 = time.monotonic()
        cache.get("k")
        assert time.monotonic() - t0 < 0.01
    ```

    ## Use instead
    Test the behaviour that makes it fast, not the time it takes:
    ```python
    def test_cache_hit_does_not_reach_the_store(cache, store):
        cache.get("k")
        cache.get("k")
        assert store.reads == 1
    ```
    For code that must not block, bound it with a generous timeout (`pytest-timeout`, a
    deadline of seconds on a wait) so only a hang fails it; for code that schedules by time,
    drive a clock the test controls. Measure speed in a benchmark, where the machine is part
    of what is measured.

    ## Known problems
    A lower bound (`assert elapsed >= 0.1`, checking that a sleep or a back-off waited) is not
    flagged: a loaded machine only makes the span longer. A bound held in a variable or
    computed (`0.3 * (1 + tol)`) is not read, nor a `timedelta` span
    (`datetime.now() - start < timedelta(milliseconds=100)`), nor a span measured in a helper
    function or on `self`. A span measured under a frozen clock (freezegun's
    `tick=True`) is flagged like any other. On the 32 real suites of the audit's precision
    bench it made 2 findings, both right: a small sample.
    """

    code = "TG406"
    name = "tight-wall-clock-assertion"
    nodes = (ast.Assign, ast.AnnAssign, ast.Assert, ast.Call)
    calls = frozenset(UNITTEST)
    triggers = tuple(sorted(CLOCK_LAST))

    def begin(self) -> Iterator[Finding]:
        self.stamps: set[tuple[int, str]] = set()  # (function, name): a clock reading
        self.spans: set[tuple[int, str]] = set()  # (function, name): a difference of readings
        return iter(())

    def _scope(self) -> int:
        function = self.ctx.function
        return id(function) if function is not None else 0

    def _clock(self, node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Call)
            and self.ctx.may_name(node.func, CLOCK_LAST)
            and self.ctx.qualname(node.func) in CLOCKS
        )

    def _reads_clock(self, node: ast.AST) -> bool:
        """A clock call or a name holding a reading, somewhere in a difference."""
        if self._clock(node):
            return True
        if isinstance(node, ast.Name):
            return (self._scope(), node.id) in self.stamps
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Sub, ast.Add)):
            return any(self._reads_clock(side) for side in (node.left, node.right))
        return False

    def _span(self, node: ast.AST) -> bool:
        """A difference of clock readings, or a name assigned one."""
        if isinstance(node, ast.Name):
            return (self._scope(), node.id) in self.spans
        return (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Sub)
            and self._reads_clock(node.left)
            and self._reads_clock(node.right)
        )

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            self._assign(node)
        elif isinstance(node, ast.Assert):
            yield from self._assert(node.test)
        elif isinstance(node, ast.Call):
            yield from self._unittest(node)

    def _assign(self, node: ast.Assign | ast.AnnAssign) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = node.value
        for target in targets:
            if not isinstance(target, ast.Name):
                continue
            key = (self._scope(), target.id)
            is_stamp = value is not None and self._clock(value)
            is_span = value is not None and not is_stamp and self._span(value)
            # a rebinding forgets what the name held before (t = time() - t)
            self.stamps.discard(key)
            self.spans.discard(key)
            if is_stamp:
                self.stamps.add(key)
            elif is_span:
                self.spans.add(key)

    def _assert(self, test: ast.AST) -> Iterator[Finding]:
        tests = test.values if isinstance(test, ast.BoolOp) else [test]
        for part in tests:
            if not isinstance(part, ast.Compare):
                continue
            operands = [part.left, *part.comparators]
            for n, op in enumerate(part.ops):
                below = UPPER.get(type(op))
                if below is None:
                    continue
                span, bound = operands[n], operands[n + 1]
                if not below:
                    span, bound = bound, span
                finding = self._tight(part, span, bound)
                if finding is not None:
                    yield finding
                    return

    def _unittest(self, call: ast.Call) -> Iterator[Finding]:
        if not isinstance(call.func, ast.Attribute) or len(call.args) < 2:
            return
        below = UNITTEST.get(call.func.attr)
        if below is None:
            return
        span, bound = call.args[0], call.args[1]
        if not below:
            span, bound = bound, span
        finding = self._tight(call, span, bound)
        if finding is not None:
            yield finding

    def _tight(self, where: ast.AST, span: ast.AST, bound: ast.AST) -> Optional[Finding]:
        limit = _number(bound)
        if limit is None or not 0 < limit < TIGHT or not self._span(span):
            return None
        return self.finding(
            where,
            f"asserts a wall-clock span under {limit:g} s: a loaded CI machine pauses longer "
            "than that; test what makes it fast, or bound a hang with a timeout of seconds",
        )
