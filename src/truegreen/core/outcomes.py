"""One pytest run in a given environment, read back as per-test outcomes from its event stream."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from truegreen.core.errors import ConfigError
from truegreen.core.metrics import read_dir, summarize

# The outcome of a test the run was asked for and did not report (it was not collected).
MISSING = "missing"


@dataclass(frozen=True)
class Outcomes:
    """What one run did: its exit status and each test's outcome, by node id."""

    status: int
    tests: Mapping[str, str]

    def of(self, nodeid: str) -> str:
        return self.tests.get(nodeid, MISSING)


def _selection(only: Sequence[str], cwd: Path, pytest_args: Sequence[str]) -> list[str]:
    """Arguments that narrow a run to ``only``: the node ids themselves when their files
    resolve from ``cwd`` (so only those files are collected), and a list the plugin keeps
    the run to whatever the user's own arguments select."""
    if "--pyargs" in pytest_args:
        return []
    files = {nodeid.split("::", 1)[0] for nodeid in only}
    if all((cwd / path).is_file() for path in files):
        return list(only)
    return []


def run_outcomes(
    pytest_args: Sequence[str],
    env: Mapping[str, str],
    cwd: Path,
    *,
    only: Optional[Sequence[str]] = None,
    python: str = sys.executable,
) -> Outcomes:
    """Run ``python -m pytest PYTEST_ARGS`` in ``cwd`` with exactly ``env``, recording the
    event stream into a temporary directory, and return each test's outcome.

    With ``only``, the run is kept to those node ids. Output is captured and discarded:
    it may hold the values of variables, and callers print names only. A run that leaves
    no event stream (the plugin is off, or pytest stopped before starting) is a
    :class:`ConfigError` naming the exit status.
    """
    metrics = Path(tempfile.mkdtemp(prefix="truegreen-outcomes-"))
    try:
        argv = [python, "-m", "pytest", f"--truegreen-metrics={metrics}", *pytest_args]
        if only is not None:
            listing = metrics / "only.txt"
            listing.write_text("".join(f"{nodeid}\n" for nodeid in only), encoding="utf-8")
            argv += [f"--truegreen-only-ids={listing}", *_selection(only, cwd, pytest_args)]
        done = subprocess.run(
            argv, cwd=cwd, env=dict(env), stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT, check=False,
        )  # fmt: skip
        if not any(metrics.rglob("*.jsonl")):
            raise ConfigError(
                f"pytest left no event stream (exit {done.returncode}): expected the truegreen "
                "plugin on (no -p no:truegreen, no enabled = false) and PYTEST_ARGS pytest "
                "accepts; run pytest with them to see why"
            )
        return Outcomes(done.returncode, dict(summarize(read_dir(metrics)).outcomes))
    finally:
        shutil.rmtree(metrics, ignore_errors=True)


def differing(ambient: Outcomes, sealed: Outcomes) -> list[str]:
    """Node ids whose outcome is not the same in both runs, in a stable order."""
    names = sorted({*ambient.tests, *sealed.tests})
    return [name for name in names if ambient.of(name) != sealed.of(name)]
