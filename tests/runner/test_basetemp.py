"""The temporary base of an isolated run: read, held, named, and removed as pytest would."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from truegreen.runner.basetemp import LOCK, RunBase, removed_at_end, session_dir


def written(tmp_path: Path, *, given: bool = False, policy: str = "all") -> Path:
    info = tmp_path / "basetemp.json"
    data = {"basetemp": str(tmp_path / "pytest-3"), "given": given, "policy": policy}
    info.write_text(json.dumps(data))
    return info


@pytest.mark.parametrize(
    ("given", "policy", "status", "expected"),
    [
        (False, "all", 0, False),
        (False, "failed", 0, True),
        (False, "failed", 1, False),
        (False, "none", 1, True),
        (True, "none", 0, False),
        (True, "failed", 0, False),
    ],
)
def test_it_removes_the_base_where_pytest_removes_a_sessions(
    given: bool, policy: str, status: int, expected: bool
) -> None:
    actual = removed_at_end(given=given, policy=policy, status=status)
    assert actual == expected


def test_it_names_a_files_directory_after_the_file_and_the_attempt() -> None:
    actual = [session_dir("tests/api/test_users.py", 3, 0), session_dir("t/test a+b.py", 4, 2)]
    expected = ["f3-test_users", "f4-test_a_b-retry2"]
    assert actual == expected


def test_it_reads_what_the_collecting_session_wrote(tmp_path: Path) -> None:
    actual = RunBase.read(written(tmp_path, given=True, policy="failed"))
    expected = RunBase(tmp_path / "pytest-3", True, "failed")
    assert actual == expected
    assert actual.option("f0-test_a") == [f"--basetemp={tmp_path / 'pytest-3' / 'f0-test_a'}"]


def test_without_a_written_base_every_session_makes_its_own(tmp_path: Path) -> None:
    base = RunBase.read(tmp_path / "missing.json")
    assert base == RunBase(None)
    assert base.option("f0-test_a") == []
    assert base.hold() is None


def test_it_locks_the_base_for_the_run_and_unlocks_it_at_the_end(tmp_path: Path) -> None:
    base = RunBase.read(written(tmp_path))
    lock = base.hold()
    assert lock == tmp_path / "pytest-3" / LOCK
    assert lock.read_text() == str(os.getpid())
    base.release(lock, 1)
    assert sorted(os.listdir(tmp_path / "pytest-3")) == []


def test_it_brings_back_a_base_the_collecting_session_removed(tmp_path: Path) -> None:
    base = RunBase.read(written(tmp_path, policy="failed"))
    assert not (tmp_path / "pytest-3").exists()  # removed: the collection passed
    lock = base.hold()
    assert (tmp_path / "pytest-3").is_dir()
    base.release(lock, 0)
    assert not (tmp_path / "pytest-3").exists()


def test_it_keeps_the_base_of_a_failed_run_under_the_failed_policy(tmp_path: Path) -> None:
    """Ablation: replace `policy == "failed" and status == 0` with `policy == "failed"` in
    `src/truegreen/runner/basetemp.py`."""
    base = RunBase.read(written(tmp_path, policy="failed"))
    lock = base.hold()
    (tmp_path / "pytest-3" / "f0-test_a").mkdir()
    base.release(lock, 1)
    assert os.listdir(tmp_path / "pytest-3") == ["f0-test_a"]


def test_it_neither_locks_nor_removes_the_users_basetemp(tmp_path: Path) -> None:
    """Ablation: delete `if self.given: return None` in `src/truegreen/runner/basetemp.py`."""
    base = RunBase.read(written(tmp_path, given=True, policy="none"))
    assert removed_at_end(given=False, policy="none", status=0)  # were it not the user's
    lock = base.hold()
    assert lock is None
    assert os.listdir(tmp_path / "pytest-3") == []
    base.release(lock, 0)
    assert (tmp_path / "pytest-3").is_dir()


def test_it_leaves_a_lock_it_did_not_take(tmp_path: Path) -> None:
    """Ablation: replace `os.O_WRONLY | os.O_CREAT | os.O_EXCL` with `os.O_WRONLY | os.O_CREAT`
    in `src/truegreen/runner/basetemp.py`."""
    base = RunBase.read(written(tmp_path))
    (tmp_path / "pytest-3").mkdir()
    (tmp_path / "pytest-3" / LOCK).write_text("4242")
    lock = base.hold()
    base.release(lock, 1)
    assert (tmp_path / "pytest-3" / LOCK).read_text() == "4242"
