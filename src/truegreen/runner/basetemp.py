"""One temporary base for an isolated run: every file's session keeps its tmp_path under it.

pytest gives each session a numbered directory (``pytest-of-USER/pytest-N``), locks it,
points ``pytest-current`` at it and deletes the oldest beyond ``tmp_path_retention_count``.
An isolated run used to do that once per file, which costs a file's session more than its
tests on a slow disk, and left only the last few files' directories. Now the session that
collects makes the run's numbered directory (or empties the user's ``--basetemp``), as a
plain run's session would, and each file's session gets ``--basetemp=BASE/NAME`` under it,
as xdist gives its workers: one run is one numbered directory, kept or removed as one.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from truegreen.core.errors import DataError
from truegreen.core.protocol import Basetemp

LOCK = ".lock"  # pytest's lock: a numbered directory with a fresh one is never rotated away


def removed_at_end(*, given: bool, policy: str, status: int) -> bool:
    """Whether pytest would remove a session's basetemp at its end: never the user's
    ``--basetemp``; with ``tmp_path_retention_policy = "none"`` always; with ``"failed"``
    when the run passed."""
    return not given and (policy == "none" or (policy == "failed" and status == 0))


def session_dir(path: str, index: int, attempt: int) -> str:
    """A file's directory under the run's base, readable and unique: ``f3-test_api``,
    ``f3-test_api-retry1``."""
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(path).stem)[:40]
    return f"f{index}-{stem}" + (f"-retry{attempt}" if attempt else "")


@dataclass(frozen=True)
class RunBase:
    """The run's base as the collecting session wrote it; ``path`` None when it wrote none
    (the plugin was off there): then every session makes its own, as before."""

    path: Optional[Path]
    given: bool = False
    policy: str = "all"

    @classmethod
    def read(cls, written: Path) -> RunBase:
        try:
            found = Basetemp.read(written.read_text(encoding="utf-8"), str(written))
        except (OSError, DataError):
            return cls(None)
        return cls(Path(found.path), found.given, found.policy)

    def option(self, name: str) -> list[str]:
        """The pytest option that puts a session's basetemp under the base, if there is one."""
        return [] if self.path is None else [f"--basetemp={self.path / name}"]

    def hold(self) -> Optional[Path]:
        """Make sure the base exists and lock it for the run (the collecting session released
        its lock, and may have removed the directory under its retention policy); the lock,
        or None when there is nothing to lock or someone else holds it."""
        if self.path is None:
            return None
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        if self.given:
            return None  # pytest never rotates a --basetemp away, and never locks one
        lock = self.path / LOCK
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except OSError:
            return None
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        return lock

    def release(self, lock: Optional[Path], status: int) -> None:
        """Unlock the base, and remove it where pytest would have removed a session's."""
        if lock is not None:
            lock.unlink(missing_ok=True)
        if self.path is not None and removed_at_end(
            given=self.given, policy=self.policy, status=status
        ):
            shutil.rmtree(self.path, ignore_errors=True)
