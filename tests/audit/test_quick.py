"""The audit's quick answer: an unchanged tree's output replayed from the index, without the
key's reads; any change to what the answer depends on goes the usual way."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from truegreen.audit import cache, quick, scope
from truegreen.audit import project as found_project
from truegreen.cli import main

SLEEPS = "import time\n\n\ndef test_waits():\n    time.sleep(1)\n"
SLEPT = "tests/test_a.py:5:5: TG402"
OLD = 1_600_000_000  # 2020: a stamp long settled


def age(root: Path) -> None:
    """Give every file and directory under ``root`` a modification time long past."""
    for here, _, files in os.walk(root):
        for name in [*files, "."]:
            os.utime(os.path.join(here, name), (OLD, OLD))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with one finding, the working directory, every stamp settled (the change
    time of a file cannot be set back, so a stamp settles at once here)."""
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(SLEEPS, encoding="utf-8")
    age(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(quick, "SETTLE_NS", 0)
    # truegreen's own modules and folders stand still here: in the suite, other processes
    # compile them (a new __pycache__ moves its folder's stamp) while these tests audit
    # (test_a_changed_module_of_truegreen_is_audited_afresh stamps a stand-in of its own).
    monkeypatch.setattr(quick, "code_paths", list)
    # The world above tmp_path is left as it is: other processes create and remove entries
    # in the temporary directory while these tests audit, which is no concern of the watch.
    return tmp_path


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts the runs that computed the content key and those that really audited."""
    calls = {"key": 0, "audit": 0}
    key, select = cache.key, scope.select

    def keyed(*args: Any) -> str:
        calls["key"] += 1
        return key(*args)

    def audited(*args: Any) -> scope.Scope:
        calls["audit"] += 1
        return select(*args)

    monkeypatch.setattr(cache, "key", keyed)
    monkeypatch.setattr(scope, "select", audited)
    return calls


def audit(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["audit", "tests", *args])
    out, err = capsys.readouterr()
    assert err == ""
    return status, out


def test_an_unchanged_tree_is_answered_from_the_index(
    project: Path, capsys: pytest.CaptureFixture[str], runs: dict[str, int]
) -> None:
    cold = audit(capsys, "--format", "json")
    assert audit(capsys, "--format", "json") == cold
    assert audit(capsys, "--format", "json") == cold
    assert (cold[0], runs) == (1, {"key": 1, "audit": 1})
    assert audit(capsys)[1].startswith(SLEPT)  # another command line: another entry
    assert (project / ".truegreen_cache" / "audit" / "quick").is_file()
    assert sorted(p.name for p in (project / ".truegreen_cache" / "audit").glob("*.tmp")) == []


def test_a_file_added_to_a_directory_is_audited_afresh(
    project: Path, capsys: pytest.CaptureFixture[str], runs: dict[str, int]
) -> None:
    """Ablation: replace `{*dirs, *files, *(os.path.dirname(p) for p in files)}` with
    `set(files)` in `src/truegreen/audit/cache.py`."""
    first = audit(capsys)
    assert (audit(capsys), runs["key"]) == (first, 1)  # premise: the index answered
    (project / "tests" / "test_b.py").write_text(SLEEPS, encoding="utf-8")
    assert "tests/test_b.py:5:5: TG402" in audit(capsys)[1]
    assert runs == {"key": 2, "audit": 2}


def test_a_changed_file_of_the_same_size_is_audited_afresh(
    project: Path, capsys: pytest.CaptureFixture[str], runs: dict[str, int]
) -> None:
    """Ablation: replace `(found.st_mtime_ns, found.st_ctime_ns, found.st_size, found.st_ino)`
    with `(0, 0, found.st_size, found.st_ino)` in `src/truegreen/audit/quick.py`."""
    assert audit(capsys)[1].startswith(SLEPT)
    assert (audit(capsys)[1].startswith(SLEPT), runs["key"]) == (True, 1)  # premise
    test = project / "tests" / "test_a.py"
    test.write_text(SLEEPS.replace("sleep", "slurp"), encoding="utf-8")
    os.utime(test, (OLD + 1, OLD + 1))  # another stamp, whatever the clock's resolution
    status, out = audit(capsys)
    assert (status, out.startswith("no findings in 1 files")) == (0, True)
    assert runs == {"key": 2, "audit": 2}


def test_a_configuration_file_appearing_above_is_audited_afresh(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    runs: dict[str, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ``pytest.ini`` above a project without pytest options becomes pytest's rootdir.

    Ablation: replace `names + code_paths()` with `code_paths()` in
    `src/truegreen/audit/quick.py`."""
    sub = project / "sub"
    (sub / "tests").mkdir(parents=True)
    (sub / "pyproject.toml").write_text('[project]\nname = "sub"\n', encoding="utf-8")
    (sub / "tests" / "test_a.py").write_text(SLEEPS, encoding="utf-8")
    (project / "pyproject.toml").unlink()
    age(project)
    monkeypatch.chdir(sub)
    audit(capsys)
    assert (audit(capsys)[1].startswith(SLEPT), runs["key"]) == (True, 1)  # premise
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    assert audit(capsys)[1].startswith("sub/" + SLEPT)
    assert runs["key"] == 2


def nested(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``home/work/proj`` under ``project``, a project of its own (pytest's options at its
    root), the working directory, every stamp settled."""
    proj = project / "home" / "work" / "proj"
    (proj / "tests").mkdir(parents=True)
    (proj / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    (proj / "tests" / "test_a.py").write_text(SLEEPS, encoding="utf-8")
    age(project)
    monkeypatch.chdir(proj)
    return proj


def test_a_change_beside_the_project_above_it_keeps_the_answer(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    runs: dict[str, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Files come and go in the directories above a project (the home, the temporary
    directory), while the audit runs too: none of that is a new answer.

    Ablation: replace `(directory == root or directory.startswith(inside))` with `True` in
    `src/truegreen/audit/quick.py`."""
    proj = nested(project, monkeypatch)
    work, home = proj.parent, proj.parent.parent
    discover = found_project.discover_project
    made = iter(range(100))

    def busy(start: Path) -> Any:  # the home and the project's parent change meanwhile
        for where in (work, home):
            (where / f"scratch-{next(made)}").write_text("x", encoding="utf-8")
        return discover(start)

    monkeypatch.setattr(found_project, "discover_project", busy)

    def stamps() -> list[Any]:
        return [quick.stamp(str(d)) for d in (work, home)]

    before = stamps()
    first = audit(capsys)
    assert first[1].startswith(SLEPT)
    assert stamps() != before  # premise: they changed
    before = stamps()
    (work / "scratch-0").unlink()
    (home / "notes.txt").write_text("x", encoding="utf-8")
    assert all(new != old for new, old in zip(stamps(), before))
    assert audit(capsys) == first
    assert runs == {"key": 1, "audit": 1}


def test_a_configuration_changed_above_the_project_is_audited_afresh(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    runs: dict[str, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The nearest ``[tool.truegreen]`` table may sit above the project's root.

    Ablation: replace `{d for top in tops for d in ancestors(top)}` with `set(tops)` in
    `src/truegreen/audit/quick.py`."""
    proj = nested(project, monkeypatch)
    table = proj.parent.parent / "pyproject.toml"
    table.write_text('[tool.truegreen.audit]\nignore = ["TG1"]\n', encoding="utf-8")
    os.utime(table, (OLD, OLD))
    audit(capsys)
    assert (audit(capsys)[1].startswith(SLEPT), runs["key"]) == (True, 1)  # premise
    table.write_text('[tool.truegreen.audit]\nignore = ["TG4"]\n', encoding="utf-8")
    os.utime(table, (OLD, OLD))  # the same size and time: the change time still moves
    status, out = audit(capsys)
    assert (status, out.startswith("no findings in 1 files")) == (0, True)
    assert runs == {"key": 2, "audit": 2}


def test_a_changed_module_of_truegreen_is_audited_afresh(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    runs: dict[str, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ablation: replace `names + code_paths()` with `names` in
    `src/truegreen/audit/quick.py`."""
    module = project / "module.txt"  # stands for one of truegreen's modules
    module.write_text("A = 1\n", encoding="utf-8")
    os.utime(module, (OLD, OLD))
    monkeypatch.setattr(quick, "code_paths", lambda: [str(module)])
    audit(capsys)
    assert (audit(capsys)[1].startswith(SLEPT), runs["key"]) == (True, 1)  # premise
    os.utime(module, (OLD + 1, OLD + 1))
    audit(capsys)
    assert runs["key"] == 2


def test_a_stamp_too_young_to_trust_is_not_recorded(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    runs: dict[str, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file changed again within the file system's time resolution could keep its stamp.

    Ablation: replace `max(s[0], s[1]) < limit` with `True` in `src/truegreen/audit/quick.py`."""
    monkeypatch.setattr(quick, "SETTLE_NS", 3_000_000_000)
    assert audit(capsys) == audit(capsys)  # the second from the content-keyed cache
    assert runs["key"] == 2  # premise: both made the key
    assert not (project / ".truegreen_cache" / "audit" / "quick").exists()


def test_a_broken_index_is_only_a_miss(
    project: Path, capsys: pytest.CaptureFixture[str], runs: dict[str, int]
) -> None:
    cold = audit(capsys)
    index = project / ".truegreen_cache" / "audit" / "quick"
    for broken in (b"", b"\x00garbage", b"[]"):
        index.write_bytes(broken)
        assert audit(capsys) == cold
    assert runs["audit"] == 1  # the content-keyed cache answered the rest
