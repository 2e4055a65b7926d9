"""Which git commands need an author identity, and whether one reached them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import HAVE_GIT
from truegreen.guards.identity import anonymous, names_a_user, needs_identity, split_command

DEVNULL = "/dev/null"
SEALED = {"GIT_CONFIG_GLOBAL": DEVNULL, "PATH": "/usr/bin"}


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git commit -m x", True),
        ("git -C repo -c core.x=1 cherry-pick abc", True),
        ("git merge topic", True),
        ("git rebase main", True),
        ("git tag v1", False),
        ("git tag -a v1 -m x", True),
        ("git tag -am x v1", True),
        ("git tag --message=x v1", True),
        ("git tag -l", False),
        ("git tag --list --merged main", False),
        ("git stash", True),
        ("git stash -u", True),
        ("git stash push -m x", True),
        ("git stash list", False),
        ("git status", False),
        ("git log -1", False),
        ("git --version", False),
    ],
)
def test_which_commands_need_an_identity(command: str, expected: bool) -> None:
    _, verb, after = split_command(command.split())
    assert needs_identity(verb, after) == expected


def test_a_command_line_splits_around_its_verb() -> None:
    actual = split_command(["git", "-C", "repo", "--no-pager", "log", "-1"])
    assert actual == (["-C", "repo", "--no-pager"], "log", ["-1"])


def test_a_commit_in_the_sealed_environment_has_no_identity(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n\tbare = false\n")
    assert anonymous(["git", "commit", "-m", "x"], SEALED, tmp_path, devnull=DEVNULL)


@pytest.mark.parametrize(
    "env",
    [
        {**SEALED, "GIT_CONFIG_GLOBAL": "/h/.gitconfig"},
        {**SEALED, "GIT_AUTHOR_NAME": "A", "GIT_COMMITTER_NAME": "A"},
        {**SEALED, "EMAIL": "a@example.invalid"},
        {**SEALED, "GIT_CONFIG_PARAMETERS": "'user.name'='A'"},
        {"PATH": "/usr/bin"},
    ],
)
def test_an_identity_in_the_environment_is_one(tmp_path: Path, env: dict[str, str]) -> None:
    """Ablation: delete `if any(env.get(name) for name in _IDENTITY_VARS): return True` in
    `src/truegreen/guards/identity.py`."""
    assert anonymous(["git", "commit"], SEALED, tmp_path, devnull=DEVNULL)
    assert not anonymous(["git", "commit"], env, tmp_path, devnull=DEVNULL)


def test_an_identity_on_the_command_line_is_one(tmp_path: Path) -> None:
    """Ablation: delete `if word == "-c" and options[index + 1].startswith(("user.name",
    "user.email")): return False` in `src/truegreen/guards/identity.py`."""
    assert anonymous(["git", "commit"], SEALED, tmp_path, devnull=DEVNULL)
    command = ["git", "-c", "user.name=A", "-c", "user.email=a@x.invalid", "commit"]
    assert not anonymous(command, SEALED, tmp_path, devnull=DEVNULL)


def test_the_repository_own_identity_is_found_from_a_subdirectory_or_through_dash_c(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub").mkdir()
    (repo / ".git" / "config").write_text("[user]\n\tname = Repo\n\temail = r@x.invalid\n")
    assert anonymous(["git", "commit"], SEALED, tmp_path, devnull=DEVNULL)
    assert not anonymous(["git", "commit"], SEALED, repo / "sub", devnull=DEVNULL)
    assert not anonymous(["git", "-C", "repo", "commit"], SEALED, tmp_path, devnull=DEVNULL)


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ("[user]\n\tname = A\n", True),
        ("[core]\n\tbare = false\n[User]\n\tEmail=a@x.invalid\n", True),
        ("[user]\n\tuseConfigOnly = true\n", False),
        ("[core]\n\tname = not a user\n", False),
    ],
)
def test_a_configuration_names_a_user_only_by_name_or_email(config: str, expected: bool) -> None:
    assert names_a_user(config) == expected


@pytest.mark.skipif(not HAVE_GIT, reason="needs git (git --version does not run)")
def test_a_real_git_refuses_the_commit_the_guard_calls_anonymous(tmp_path: Path) -> None:
    """user.useConfigOnly: git may not guess an identity from the host name."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
    command = ["git", "-c", "user.useConfigOnly=true", "commit", "-q", "--allow-empty", "-m", "x"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode != 0
    assert anonymous(command, None, tmp_path)
