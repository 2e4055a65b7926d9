"""Why a file a verb was given, or found while walking a tree, cannot be read: in words, for
the one line that names it."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Optional


def walked(path: Path) -> bool:
    """Whether a file found while walking a tree is one to read: a regular file, or a link to
    one. A FIFO, socket or device is passed over, as pytest passes over it (opening a FIFO waits
    for a writer for ever); a dangling link is kept, for the caller to report as unreadable."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return True  # dangling, or unreadable: the reading says which, in one line
    return stat.S_ISREG(mode)


def unreadable(path: Path, error: Optional[OSError] = None) -> Optional[str]:
    """What keeps ``path`` from being read as a file or walked as a directory (``a dangling
    symbolic link``, ``a directory``, ``permission denied``), or None when nothing does.

    With ``error``, the OSError that reading it raised, the answer is never None."""
    if error is None:
        if path.is_dir():
            return None
        if path.is_file():
            return None if os.access(path, os.R_OK) else "permission denied"
    if path.is_symlink() and not path.exists():
        return "a dangling symbolic link"
    if path.is_dir():
        return "a directory"
    if not path.exists():
        return "no such file or directory"
    if not path.is_file():
        return "not a regular file"
    if error is not None:
        return (error.strerror or str(error)).lower()
    return "permission denied"
