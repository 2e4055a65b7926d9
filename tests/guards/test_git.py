"""truegreen's own git: NUL-separated names, the checkout's own repository, no identity."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from truegreen.guards.git import GitError, environment, git

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]


def repo(path: Path) -> Path:
    path.mkdir()
    subprocess.run([*GIT, "init", "-q", "-b", "main", str(path)], check=True)
    (path / "kept.txt").write_text("kept\n")
    subprocess.run([*GIT, "-C", str(path), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(path), "commit", "-q", "-m", "base"], check=True)
    return path


def test_names_with_spaces_and_newlines_come_back_whole(tmp_path: Path) -> None:
    top = repo(tmp_path / "r")
    for name in ("a b.py", "new\nline.py", "plain.py"):
        (top / name).write_text("")
    done = git(["ls-files", "--others", "-z"], str(top))
    assert done.ok
    assert sorted(done.names()) == ["a b.py", "new\nline.py", "plain.py"]


def test_it_asks_the_checkout_it_runs_in_not_where_git_dir_points(tmp_path: Path) -> None:
    """Ablation: replace `k not in GIT_REPOSITORY` with `True` in
    `src/truegreen/guards/git.py`."""
    here, elsewhere = repo(tmp_path / "here"), repo(tmp_path / "elsewhere")
    pointed = {**os.environ, "GIT_DIR": str(elsewhere / ".git")}
    plain = subprocess.run(["git", "rev-parse", "--absolute-git-dir"], cwd=here, env=pointed,
                           capture_output=True, text=True, check=True)  # fmt: skip
    # premise: GIT_DIR wins for git (which prints C:/... on Windows: compare paths, not text)
    assert Path(plain.stdout.strip()).resolve() == (elsewhere / ".git").resolve()
    done = git(
        ["rev-parse", "--absolute-git-dir"], str(here), environment(pointed, user_config=True)
    )
    assert Path(done.text()).resolve() == (here / ".git").resolve()


def test_without_user_config_it_sees_no_identity_and_no_global_config() -> None:
    environ = {"PATH": "/bin", "GIT_AUTHOR_NAME": "Dev", "EMAIL": "d@x", "GIT_CONFIG_GLOBAL": "/g",
               "GIT_WORK_TREE": "/w", "LANG": "de_DE.UTF-8"}  # fmt: skip
    assert environment(environ) == {
        "PATH": "/bin",
        "LANG": "de_DE.UTF-8",
        "LC_ALL": "C",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    assert environment(environ, user_config=True) == {
        "PATH": "/bin", "GIT_AUTHOR_NAME": "Dev", "EMAIL": "d@x", "GIT_CONFIG_GLOBAL": "/g",
        "LANG": "de_DE.UTF-8", "LC_ALL": "C",
    }  # fmt: skip


def test_a_missing_git_is_one_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "no-programs"
    empty.mkdir()
    with pytest.raises(GitError, match=r"^expected git on PATH, found none \("):
        git(["status"], str(tmp_path), {"PATH": str(empty)})


def test_what_git_complains_of_is_its_first_line(tmp_path: Path) -> None:
    done = git(["rev-parse", "--show-toplevel"], str(tmp_path))
    assert not done.ok
    assert done.complaint().startswith("fatal: not a git repository")
