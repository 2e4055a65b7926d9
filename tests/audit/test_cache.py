"""The audit's cache: an unchanged project is answered from it, anything its findings depend
on changing audits afresh, and a broken entry is only a miss."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import truegreen
from truegreen.audit import cache, scope
from truegreen.audit.project import discover_project
from truegreen.cli import main
from truegreen.core.gitstatus import excluded

SLEEPS = "import time\n\n\ndef test_waits():\n    time.sleep(1)\n"
SLEPT = "tests/test_a.py:5:5: TG402"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(SLEEPS, encoding="utf-8")
    return tmp_path


@pytest.fixture
def audits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the audits that really ran (not answered from the cache)."""
    calls: list[int] = []
    real = scope.select

    def counted(*args: Any) -> scope.Scope:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(scope, "select", counted)
    return calls


def audit(capsys: pytest.CaptureFixture[str], project: Path, *args: str) -> str:
    main(["audit", str(project / "tests"), *args])
    out, err = capsys.readouterr()
    assert err == ""
    return out


def entries(project: Path) -> list[Path]:
    return sorted((project / ".truegreen_cache" / "audit").glob("*.json"))


def test_a_warm_run_gives_the_cold_runs_findings_from_the_cache(
    project: Path, capsys: pytest.CaptureFixture[str], audits: list[int]
) -> None:
    cold = audit(capsys, project, "--format", "json")
    warm = audit(capsys, project, "--format", "json")
    assert (warm, len(audits)) == (cold, 1)
    assert audit(capsys, project).startswith(SLEPT)  # the text report from the same entry
    top = project / ".truegreen_cache"
    assert (top / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f0688")
    assert (top / ".gitignore").read_text().splitlines()[-1] == "*"
    assert [p.name for p in (top / "audit").iterdir()] == [entries(project)[0].name]


def test_a_changed_file_is_audited_afresh(
    project: Path, capsys: pytest.CaptureFixture[str], audits: list[int]
) -> None:
    """Same length, other content: the key reads the files, not their sizes.

    Ablation: replace `digest.update(data)` with `digest.update(b"")` in
    `src/truegreen/audit/cache.py`."""
    assert audit(capsys, project).startswith(SLEPT)
    assert (audit(capsys, project).startswith(SLEPT), len(audits)) == (True, 1)  # premise: a hit
    test = project / "tests" / "test_a.py"
    test.write_text(SLEEPS.replace("sleep", "slurp"), encoding="utf-8")
    assert audit(capsys, project).startswith("no findings in 1 files")


def test_the_key_covers_the_other_files_of_the_project(project: Path) -> None:
    """A file's findings depend on the files it uses (a conftest's fixtures, a helper, the
    project's own modules): a change to any of them is a new key."""
    tests = [project / "tests"]
    before = cache.key(discover_project(project), tests, [])
    assert cache.key(discover_project(project), tests, []) == before  # premise: it repeats
    for name in ("tests/conftest.py", "helpers.py", "src/app/__init__.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("X = 1\n", encoding="utf-8")
        after = cache.key(discover_project(project), tests, [])
        assert after != before, name
        before = after


def test_another_rule_setting_is_audited_afresh(
    project: Path, capsys: pytest.CaptureFixture[str], audits: list[int]
) -> None:
    """Ablation: replace `[r.code for r in rules]` with `[]` in `src/truegreen/audit/cache.py`."""
    assert audit(capsys, project).startswith(SLEPT)
    assert (audit(capsys, project).startswith(SLEPT), len(audits)) == (True, 1)  # premise: a hit
    assert audit(capsys, project, "--ignore", "TG402").startswith("no findings")


def test_another_truegreen_version_is_audited_afresh(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    audits: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ablation: replace `truegreen.__version__` with `""` in `src/truegreen/audit/cache.py`."""
    audit(capsys, project)
    audit(capsys, project)
    assert len(audits) == 1  # premise: the second run was a hit
    newer = truegreen.__version__ + ".post1"
    # the cache reads truegreen.__version__ itself, at each run
    monkeypatch.setattr(truegreen, "__version__", newer)  # truegreen: ignore[TG201] read there
    assert audit(capsys, project).startswith(SLEPT)
    assert len(audits) == 2


@pytest.mark.parametrize(
    "broken",
    ["{not json", '{"format": 1}', '{"format": 1, "key": "@", "findings": [[1]]}', "[]", ""],
)
def test_a_broken_entry_is_recomputed_and_written_again(
    project: Path, capsys: pytest.CaptureFixture[str], audits: list[int], broken: str
) -> None:
    """Ablation: replace `(OSError, ValueError, KeyError, TypeError)` with `OSError` in
    `src/truegreen/audit/cache.py`."""
    cold = audit(capsys, project, "--format", "json")
    (entry,) = entries(project)
    text = broken.replace("@", entry.stem)
    entry.write_text(text, encoding="utf-8")
    assert audit(capsys, project, "--format", "json") == cold
    assert len(audits) == 2
    assert json.loads(entry.read_text(encoding="utf-8"))["key"] == entry.stem


def test_no_cache_neither_reads_nor_writes_the_cache(
    project: Path, capsys: pytest.CaptureFixture[str], audits: list[int]
) -> None:
    """Ablation: replace `not cache` with `False` in `src/truegreen/audit/run.py`."""
    assert audit(capsys, project, "--no-cache").startswith(SLEPT)
    assert audit(capsys, project, "--no-cache").startswith(SLEPT)
    assert (len(audits), (project / ".truegreen_cache").exists()) == (2, False)


def test_the_entries_go_under_pytests_cache_dir_when_the_project_sets_one(
    tmp_path: Path,
) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\ncache_dir = build/cache\n")
    assert cache.directory(discover_project(tmp_path)) == tmp_path / "build/cache/truegreen/audit"
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    assert cache.directory(discover_project(tmp_path)) == tmp_path / ".truegreen_cache/audit"


def test_older_entries_are_pruned_and_no_temporary_file_is_left(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "KEPT", 2)
    for n in range(4):
        (project / "tests" / "test_a.py").write_text(SLEEPS + "#" * n, encoding="utf-8")
        audit(capsys, project)
    where = project / ".truegreen_cache" / "audit"
    assert (len(entries(project)), sorted(p.name for p in where.glob(".tmp-*"))) == (2, [])


def test_the_tree_guard_and_the_write_guard_take_the_cache_for_a_tool_cache() -> None:
    """Ablation: replace `".truegreen_cache"` with `".ruff_cache"` in
    `src/truegreen/core/paths.py`."""
    assert excluded(".truegreen_cache/audit/0123.json")
    assert not excluded("truegreen_cache/audit/0123.json")
