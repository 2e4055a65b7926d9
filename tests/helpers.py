"""Shared helpers for truegreen's own tests."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pytest


def snapshot_tree(root: Path) -> dict[str, Optional[bytes]]:
    """Every file (with its bytes) and directory (None) under ``root``."""
    return {
        p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


def ambient_home(monkeypatch: pytest.MonkeyPatch, home: Path, *, identity: bool) -> Path:
    """Make ``home`` the ambient home an inner pytest starts with: a developer's machine.

    With ``identity`` it holds a ``~/.gitconfig`` naming a developer, as a laptop does.
    """
    home.mkdir(parents=True)
    if identity:
        (home / ".gitconfig").write_text("[user]\n\tname = Ambient Developer\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for name in (
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "GIT_CONFIG_NOSYSTEM",
        "XDG_CONFIG_HOME",
        "XDG_CACHE_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
    ):
        monkeypatch.delenv(name, raising=False)
    return home
