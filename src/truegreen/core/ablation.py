"""Ablation verdicts, decided from what a pytest run reported."""

from __future__ import annotations

from dataclasses import dataclass, field

from truegreen.core.protocol import TREE_CHANGED

KILLED = "killed"
SURVIVED = "survived"
BROKEN = "broken"
TIMEOUT = "timeout"
STALE = "stale"
AMBIGUOUS = "ambiguous"
PREMISE_FAILED = "premise-failed"
APPLIES = "applies"  # ``--records --check``: the snippet matches once; nothing was run
# Only a killed claim holds; everything else fails `truegreen ablate`.
PASSING = frozenset({KILLED})


@dataclass(frozen=True)
class Run:
    """One pytest run of a claim's tests: its exit status and each test's result."""

    status: int
    failed: tuple[tuple[str, str], ...] = ()  # (test, first line of why)
    passed: int = 0
    timed_out: bool = False
    tail: str = ""  # the last line of output, for a run that proves nothing


@dataclass(frozen=True)
class Verdict:
    verdict: str
    detail: str = ""
    failed: tuple[tuple[str, str], ...] = field(default=())


class Unapplied(Exception):
    """A claim that cannot be applied to its file; ``verdict`` says why (stale, ambiguous,
    broken), and no pytest run is needed to know it."""

    def __init__(self, verdict: str, detail: str) -> None:
        super().__init__(f"{verdict}: {detail}")
        self.verdict = Verdict(verdict, detail)


def premise(run: Run) -> Verdict | None:
    """None when the unablated tests passed; otherwise the premise-failed verdict."""
    if run.timed_out:
        return Verdict(PREMISE_FAILED, "the unablated run timed out")
    if run.status == 0 and run.passed and not run.failed:
        return None
    if run.passed and not run.failed:
        return Verdict(
            PREMISE_FAILED,
            f"the tests pass unablated, but the run fails (exit {run.status}): {run.tail}",
        )
    why = "; ".join(f"{test}: {line}" for test, line in run.failed[:3]) or run.tail
    return Verdict(PREMISE_FAILED, f"the tests do not pass unablated (exit {run.status}): {why}")


def why_run_failed(output: str, last_line: str) -> str:
    """What a run's output says it failed for, when no test did: the tree guard's changes (the
    checkout changed while it ran: a file edited or a branch switched during ``truegreen
    ablate``), else ``last_line``, pytest's last word."""
    lines = output.splitlines()
    for index, line in enumerate(lines):
        if line.startswith(TREE_CHANGED):
            changes = []
            for change in lines[index + 1 :]:
                if not change.startswith("  "):
                    break
                changes.append(change.strip())
            shown = ", ".join(changes[:3]) + (
                f" and {len(changes) - 3} more" if changes[3:] else ""
            )
            return (
                f"the working tree changed while the run ran ({shown or 'git status differed'}): "
                "was the checkout edited during it? Run again on a tree left alone"
            )
    return last_line


def judge(run: Run) -> Verdict:
    """The verdict of an ablated run."""
    if run.timed_out:
        return Verdict(TIMEOUT, "the ablated run did not finish in time")
    if run.status in (2, 3, 4, 5) or (not run.failed and not run.passed):
        return Verdict(BROKEN, f"exit {run.status}: {run.tail or 'no test ran'}")
    if run.failed:
        test, line = run.failed[0]
        return Verdict(KILLED, f"{test}: {line}", run.failed)
    return Verdict(SURVIVED, "every test passed with the gate gone: the test cannot see it")
