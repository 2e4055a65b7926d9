"""The ``hermetic`` fixture's helpers: what each establishes in the sealed home, and only that."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import HAVE_GIT
from truegreen.plugin.sealed import Hermetic

requires_git = pytest.mark.skipif(not HAVE_GIT, reason="needs git (git --version does not run)")


def git_global(*args: str) -> str:
    done = subprocess.run(["git", "config", "--global", *args], capture_output=True, text=True)
    return done.stdout


@pytest.fixture
def hermetic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Hermetic:
    """A Hermetic of its own, whose GIT_CONFIG_GLOBAL change monkeypatch undoes."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    home = tmp_path / "home"
    home.mkdir()
    return Hermetic(home=home)


def test_git_identity_writes_the_identity_and_nothing_else(hermetic: Hermetic) -> None:
    """Following the hint must not bring back a default branch the seal took away.

    Ablation: replace `default_branch is not None` with `True` in
    `src/truegreen/plugin/sealed.py`."""
    path = hermetic.git_identity("Fixture Author", "fixture@example.invalid")
    assert path == hermetic.home / ".gitconfig"
    assert os.environ["GIT_CONFIG_GLOBAL"] == str(path)
    expected = "[user]\n\tname = Fixture Author\n\temail = fixture@example.invalid\n"
    assert path.read_text(encoding="utf-8") == expected


def test_git_identity_writes_a_default_branch_only_when_given_one(hermetic: Hermetic) -> None:
    path = hermetic.git_identity(default_branch="trunk")
    assert path.read_text(encoding="utf-8").endswith("[init]\n\tdefaultBranch = trunk\n")


@requires_git
def test_git_reads_only_the_identity_from_it(hermetic: Hermetic) -> None:
    """Ablation: replace `default_branch is not None` with `True` in
    `src/truegreen/plugin/sealed.py`."""
    assert git_global("--list") == ""
    hermetic.git_identity("Fixture Author", "fixture@example.invalid")
    listed = git_global("--list").splitlines()
    assert listed == ["user.name=Fixture Author", "user.email=fixture@example.invalid"]


@requires_git
def test_git_starts_on_the_given_branch(hermetic: Hermetic, tmp_path: Path) -> None:
    hermetic.git_identity(default_branch="trunk")
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    head = (tmp_path / "repo" / ".git" / "HEAD").read_text(encoding="utf-8")
    assert head == "ref: refs/heads/trunk\n"
