"""Shared helpers for truegreen's own tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Optional

import pytest


def runs(*argv: str) -> bool:
    """Whether a program runs and succeeds (``runs("git", "--version")``): a probe that a shim
    or a broken install on PATH does not pass, as finding the file (``shutil.which``) does."""
    try:
        done = subprocess.run(argv, capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


HAVE_GIT = runs("git", "--version")


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


# A suite with three leaks, each flipped by a different ambient factor: a variable the seal
# does not know to clear (read inside the test), a git identity read by a session-scoped
# fixture, a time zone read at import. Its project turns the seal off (leaky_machine): the
# process seal would keep the last two from reaching the tests.
LEAKY_SUITE = """
import os
import subprocess
import time

import pytest

EPOCH_HOUR = time.localtime(0).tm_hour


@pytest.fixture(scope="session")
def default_author():
    done = subprocess.run(["git", "config", "user.name"], capture_output=True, text=True)
    return done.stdout.strip() or None


def test_mode_defaults_to_modern():
    assert os.environ.get("MYAPP_MODE", "modern") == "modern"


def test_without_an_identity_there_is_no_author(default_author):
    assert default_author is None


def test_the_epoch_is_midnight():
    assert EPOCH_HOUR == 0


def test_arithmetic():
    assert 1 + 1 == 2
"""

LEAKY_CULPRITS = {
    "test_leaky.py::test_mode_defaults_to_modern": ["variable MYAPP_MODE"],
    "test_leaky.py::test_without_an_identity_there_is_no_author": ["~/.gitconfig"],
    "test_leaky.py::test_the_epoch_is_midnight": ["time zone (TZ)"],
}


def leaky_machine(root: Path, secret: str, noise: int = 30) -> tuple[Path, dict[str, str], Path]:
    """(project, ambient environment, ambient home) of a developer's machine under ``root``:
    ``noise`` harmless variables and dotfiles around the three culprits; ``secret`` is the
    value of the variable that leaks."""
    project, home = root / "project", root / "home"
    project.mkdir()
    (project / "test_leaky.py").write_text(LEAKY_SUITE)
    # The project turned the seal off: with it on, the process seal already keeps the zone
    # read at import and the identity the session fixture reads from reaching the tests.
    (project / "pyproject.toml").write_text("[tool.truegreen]\nhermetic = false\n")
    (home / ".config" / "someapp").mkdir(parents=True)
    (home / ".config" / "someapp" / "rc").write_text("colour = on\n")
    (home / ".gitconfig").write_text("[user]\n\tname = Ambient Developer\n")
    (home / ".netrc").write_text("machine example.invalid\n")
    (home / ".bashrc").write_text("export PS1='$ '\n")
    ambient = {f"NOISE_{i:03}": f"value {i}" for i in range(noise)}
    ambient.update(PATH=os.environ["PATH"], HOME=str(home), TZ="XYZ-3", MYAPP_MODE=secret)
    return project, ambient, home
