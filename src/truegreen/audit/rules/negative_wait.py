"""TG407 negative-wait."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import Optional

from truegreen.audit.base import Finding, Rule

# A waiting callee by its last name: wait_until, wait_for, waitForReady, _wait, poll_until,
# eventually; not waitpid/wait4/waitstatus (an exit status), not a bare poll() (a look, no wait).
WAITS = re.compile(r"(?i)^_*(?:.*wait(?!pid|status|4|3).*|poll_?\w+|.*eventually.*)$")
FALSE_CHECKS = frozenset({"assertFalse"})


def _callee(node: ast.AST) -> Optional[tuple[str, ast.Call]]:
    if isinstance(node, ast.Await):
        node = node.value
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name is None or WAITS.match(name) is None:
        return None
    if name.lower().strip("_") == "wait" and (node.keywords or not node.args):
        # proc.wait() and proc.wait(timeout=5) return an exit status, not whether it came
        return None
    return name, node


def _is_false(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


class NegativeWait(Rule):
    """## What it does
    Flags an assertion that a wait runs out: `assert not wait_until(...)`,
    `assert not event.wait(0.1)`, `assert poll_for(...) is False` (or `== False`),
    `self.assertFalse(wait_for(...))`, awaited or not. A wait is a call whose name says so:
    it contains `wait` (not `waitpid`) or `eventually`, or starts with `poll` and goes on
    (`poll_until`). Opt-in.

    ## Why is this bad?
    A wait that times out proves only that the condition did not hold *within the timeout on
    this machine, this time*. On a slow or loaded machine the thing the test says must not
    happen can happen a moment after the deadline, and the test passes; the faster the
    machine, the more likely it is to fail. The assertion is green for the wrong reason
    exactly where it matters, and it costs the whole timeout on every run, since the happy
    path is the wait running out.

    ## Example
    ```python
    def test_a_cancelled_job_never_runs(queue, ran):
        job = queue.submit(work)
        job.cancel()
        assert not ran.wait(timeout=0.5)
    ```

    ## Use instead
    Wait for something that must come *after* the unwanted event, then assert it did not
    happen:
    ```python
    def test_a_cancelled_job_never_runs(queue, ran):
        job = queue.submit(work)
        job.cancel()
        queue.submit(noop).result(timeout=10)  # the queue has moved past the cancelled job
        assert not ran.is_set()
    ```
    or drive the scheduler with a clock the test controls and step it past the deadline.

    ## Known problems
    Opt-in: on the 32 real suites of the audit's precision bench no test asserts that a wait
    runs out, so its precision there is not measured. A wait is recognised by its name only:
    a helper named otherwise is missed, and a `wait` that returns something else than
    whether the condition came is taken for one (`proc.wait()` and `proc.wait(timeout=5)`,
    which return an exit status, are left out; `proc.wait(5)` is not). Expecting the
    timeout's exception (`pytest.raises(TimeoutError)` around a wait) is the same trap and
    is not flagged.
    """

    code = "TG407"
    name = "negative-wait"
    default = False
    nodes = (ast.Assert, ast.Call)
    calls = FALSE_CHECKS
    triggers = ("wait", "poll", "eventually")

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        found: Optional[tuple[str, ast.Call]] = None
        if isinstance(node, ast.Assert):
            test = node.test
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                found = _callee(test.operand)
            elif (
                isinstance(test, ast.Compare)
                and len(test.ops) == 1
                and isinstance(test.ops[0], (ast.Is, ast.Eq))
                and _is_false(test.comparators[0])
            ):
                found = _callee(test.left)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in FALSE_CHECKS
            and node.args
        ):
            found = _callee(node.args[0])
        if found is not None:
            name, _ = found
            yield self.finding(
                node,
                f"asserts that {name}() runs out: on a slow machine it runs out whatever the "
                "code did; wait for something that comes after, then assert it did not happen",
            )
