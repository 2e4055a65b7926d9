"""Naming what a spawn runs: basenames, git verbs, through sh -c and env."""

from __future__ import annotations

import pytest

from truegreen.guards.spawns import git_verb, program_of
from truegreen.guards.violations import Spawn, from_record


@pytest.mark.parametrize(
    ("executable", "args", "expected"),
    [
        (None, ["git", "status"], ("git", "status")),
        (None, ["/usr/bin/git", "-C", "repo", "-c", "a=b", "--no-pager", "log"], ("git", "log")),
        ("/bin/sh", "git commit -m x", ("git", "commit")),
        (None, ["/bin/sh", "-c", "docker run --rm x"], ("docker", None)),
        (None, ["env", "A=1", "docker", "ps"], ("docker", None)),
        (None, "python3 -m pip install x", ("python3", None)),
        ("C:\\Tools\\docker.exe", ["docker", "ps"], ("docker", None)),
        (None, [], ("?", None)),
    ],
)
def test_program_of(executable: object, args: object, expected: tuple[str, object]) -> None:
    assert program_of(executable, args) == expected


def test_git_without_a_verb() -> None:
    assert git_verb(["git", "--version"]) is None


def test_a_spawn_record_round_trips_and_an_older_one_reads_as_not_anonymous() -> None:
    spawn = Spawn("t.py::test", "git", "commit", "t.py:3", 42, anonymous=True)
    again = from_record(spawn.record())
    assert isinstance(again, Spawn)
    assert (again.verb, again.anonymous) == ("commit", True)
    older = {k: v for k, v in spawn.record().items() if k != "anonymous"}
    read = from_record(older)
    assert isinstance(read, Spawn)
    assert read.anonymous is False
