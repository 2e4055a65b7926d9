"""The directories a run writes its records into, checked before any test runs."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from truegreen.core.config import Config
from truegreen.guards.hook import quiet


def check_directories(settings: Config) -> None:
    """The metrics and manifest directories, each made and proven writable; one usage line
    naming the flag and the directory when not."""
    for flag, directory in (("--truegreen-metrics", settings.metrics),
                            ("--truegreen-manifest", settings.manifest)):  # fmt: skip
        if directory:
            _writable(flag, directory)


def _writable(flag: str, directory: str) -> None:
    """Make ``directory`` (truegreen's own write, which the guards look away from) and prove a
    file can be created in it: a file of that name, ``/proc`` or a read-only place would
    otherwise end the run with a traceback at its first record."""
    path = Path(directory)
    if path.exists() and not path.is_dir():
        found = "a file"
    else:
        try:
            with quiet():
                path.mkdir(parents=True, exist_ok=True)
                handle, probe = tempfile.mkstemp(prefix=".truegreen-", dir=path)
                os.close(handle)
                os.unlink(probe)
            return
        except OSError as exc:
            found = f"one where creating a file fails ({exc.strerror})"
    raise pytest.UsageError(
        f"truegreen: {flag}={directory}: expected a directory to write into, found {found}"
    )
