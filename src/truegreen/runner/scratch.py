"""The temporary folders a process names for itself (its pid in the name), so that whoever
starts next can tell the folders of a process that was killed before it could remove them:
``truegreen ablate``'s runs and pytest's session homes."""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Optional

from truegreen.runner.procs import alive


def sweep(prefix: str, directory: Optional[str] = None) -> list[str]:
    """Remove the temporary folders that killed processes left in ``directory`` (by default
    the temporary directory): this user's folders named ``<prefix>PID-...`` for a process
    that is gone. The folders removed."""
    if os.name != "posix":  # elsewhere a signal 0 is no question: it ends the process
        return []
    where = directory or tempfile.gettempdir()
    removed = []
    try:
        entries = list(os.scandir(where))
    except OSError:
        return []
    for entry in entries:
        pid, dash, _ = entry.name[len(prefix) :].partition("-")
        if not entry.name.startswith(prefix) or not dash or not pid.isdigit():
            continue
        try:
            if not entry.is_dir(follow_symlinks=False) or alive(int(pid)):
                continue
            if entry.stat(follow_symlinks=False).st_uid != os.getuid():
                continue
        except OSError:
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(entry.path)
    return removed
