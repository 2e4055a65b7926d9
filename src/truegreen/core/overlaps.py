"""Plugins that do part of truegreen's work, and which of the two decides where they meet.

``truegreen doctor`` (from the installed pytest11 entry points and the pytest addopts) and the
plugin's run header (from the plugins pytest loaded) both say it, so a user never wonders why
an ``allow-hosts`` entry does nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Overlap:
    """One plugin loaded beside truegreen: what it overlaps with and who wins."""

    plugin: str  # the distribution, as users know it
    says: str  # one line, ending with who decides
    problem: bool = False  # it silently overrides a truegreen setting


# pytest11 entry-point names (what ``-p no:NAME`` takes), by plugin.
KNOWN = {
    "socket": "pytest-socket",
    "randomly": "pytest-randomly",
    "rerunfailures": "pytest-rerunfailures",
    "env": "pytest-env",
    "home": "pytest-home",
}

_SOCKET_ON = ("--disable-socket", "--allow-hosts")


def overlaps(loaded: Iterable[str], opts: Sequence[str]) -> list[Overlap]:
    """What each known plugin among ``loaded`` (entry-point names) does beside truegreen, given
    the pytest options in force (addopts, PYTEST_ADDOPTS, the command line)."""
    found = []
    names = set(loaded)
    words = " ".join(opts)
    if "socket" in names:
        on = [flag for flag in _SOCKET_ON if flag in words]
        if on:
            found.append(Overlap("pytest-socket", (
                f"pytest-socket's {' and '.join(on)} refuses sockets before truegreen's network "
                "guard sees them: pytest-socket decides, and allow-hosts, the owned mode and "
                "truegreen_network markers do nothing; drop it (network = \"block\" is "
                "--disable-socket) or run with -p no:socket"
            ), problem=True))  # fmt: skip
        else:
            found.append(Overlap("pytest-socket", (
                "pytest-socket is loaded but refuses nothing (no --disable-socket or "
                "--allow-hosts): truegreen's network guard decides"
            )))  # fmt: skip
    if "randomly" in names:
        found.append(Overlap("pytest-randomly", (
            "pytest-randomly shuffles the test order and reseeds random before each test: its "
            "order is this run's; truegreen flakes turns it off and runs orders of its own"
        )))  # fmt: skip
    if "rerunfailures" in names:
        found.append(Overlap("pytest-rerunfailures", (
            "pytest-rerunfailures reruns failing tests: a test that passes only on a rerun is "
            "listed as flaky in truegreen's run integrity, whatever the rerun plugin reports"
        )))  # fmt: skip
    if "env" in names:
        found.append(Overlap("pytest-env", (
            "pytest-env sets its variables after truegreen seals the process: they are the "
            "suite's decision and stay, even where the seal would remove the name (a fake "
            "credential for a mock)"
        )))  # fmt: skip
    if "home" in names:
        found.append(Overlap("pytest-home", (
            "pytest-home's tmp_home_dir fixture points HOME at a directory of its own: for "
            "the tests that request it, its HOME wins over truegreen's per-test home"
        )))  # fmt: skip
    return found
