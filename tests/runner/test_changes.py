"""What changed since a revision: committed, staged, untracked; paths as git spells them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from truegreen.core.errors import UsageError
from truegreen.runner.changes import changed_files

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]


@pytest.fixture
def top(tmp_path: Path) -> Path:
    top = tmp_path / "checkout"
    top.mkdir()
    subprocess.run([*GIT, "init", "-q", "-b", "main", str(top)], check=True)
    for name in ("kept.py", "edited.py", "gone.py"):
        (top / name).write_text(f"# {name}\n")
    subprocess.run([*GIT, "-C", str(top), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(top), "commit", "-q", "-m", "base"], check=True)
    (top / "edited.py").write_text("# edited\n")
    (top / "gone.py").unlink()
    (top / "with space.py").write_text("")
    return top


def changed(top: Path, **kwargs: bool) -> list[str]:
    real = os.path.realpath(top)
    return [os.path.relpath(p, real) for p in changed_files(top, "HEAD", who="v", flag="--f",
                                                             **kwargs)]  # fmt: skip


def test_a_path_with_a_space_is_one_path(top: Path) -> None:
    """``ablate --changed-since`` once split git's output on whitespace.

    Ablation: replace `done.names()` with `done.text().split()` in
    `src/truegreen/runner/changes.py`."""
    assert changed(top) == ["edited.py", "with space.py"]


def test_deleted_files_are_listed_only_when_asked(top: Path) -> None:
    assert changed(top, deleted=True) == ["edited.py", "gone.py", "with space.py"]


def test_a_revision_that_is_not_one_is_a_usage_error(top: Path) -> None:
    with pytest.raises(UsageError, match=r"^v: --f expected a git revision, found 'nope'; "):
        changed_files(top, "nope", who="v", flag="--f")


def test_outside_a_checkout_it_says_so(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"^v: expected a git checkout, found none at "):
        changed_files(tmp_path, "HEAD", who="v", flag="--f")
