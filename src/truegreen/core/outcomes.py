"""One pytest run read back as per-test outcomes, and what differs between two runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from truegreen.core.metrics import Stream, summarize

# The outcome of a test the run was asked for and did not report (it was not collected).
MISSING = "missing"


@dataclass(frozen=True)
class Outcomes:
    """What one run did: its exit status, each test's outcome by node id, the event streams
    it was read from (one per process: the pytest process, or each xdist worker), and
    whether a deadline ended it."""

    status: int
    tests: Mapping[str, str]
    streams: tuple[Stream, ...] = ()
    timed_out: bool = False

    @classmethod
    def from_streams(
        cls, status: int, streams: Sequence[Stream], *, timed_out: bool = False
    ) -> Outcomes:
        summary = summarize(list(streams))
        return cls(status, dict(summary.outcomes), tuple(streams), timed_out)

    def of(self, nodeid: str) -> str:
        return self.tests.get(nodeid, MISSING)


def differing(ambient: Outcomes, sealed: Outcomes) -> list[str]:
    """Node ids whose outcome is not the same in both runs, in a stable order."""
    names = sorted({*ambient.tests, *sealed.tests})
    return [name for name in names if ambient.of(name) != sealed.of(name)]
