"""Which functions assert: summaries of a module and the resolver over helpers and fixtures."""

from __future__ import annotations

from pathlib import Path

from truegreen.audit import asserting
from truegreen.audit.base import Project


def write(root: Path, relpath: str, text: str) -> Path:
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_summary_names_functions_methods_and_fixtures(tmp_path: Path) -> None:
    source = (
        "import pytest\n\n\n@pytest.fixture(name='db')\ndef database():\n    return 1\n\n\n"
        "class TestIt:\n    def test_a(self, db):\n        assert db\n"
    )
    summary = asserting.summarize(Project(tmp_path), write(tmp_path, "tests/test_a.py", source))
    assert summary is not None
    assert (list(summary.functions), list(summary.methods)) == (
        ["database"],
        [("TestIt", "test_a")],
    )
    assert list(summary.fixtures(None)) == ["db"]
    assert summary.methods[("TestIt", "test_a")].requests == ["db"]


def test_a_file_is_summarized_once_per_project(tmp_path: Path) -> None:
    path = write(tmp_path, "tests/conftest.py", "def helper():\n    assert 1\n")
    project = Project(tmp_path)
    assert asserting.summarize(project, path) is asserting.summarize(project, path)
    assert asserting.summarize(Project(tmp_path), path) is not asserting.summarize(project, path)


def test_the_conftest_chain_runs_from_the_nearest_to_the_root(tmp_path: Path) -> None:
    write(tmp_path, "conftest.py", "")
    write(tmp_path, "tests/conftest.py", "")
    write(tmp_path, "tests/unit/conftest.py", "")
    test = write(tmp_path, "tests/unit/test_a.py", "")
    chain = asserting.Resolver(Project(tmp_path)).conftests(test)
    expected = [tmp_path / "tests/unit", tmp_path / "tests", tmp_path]
    assert [summary.path.parent for summary in chain] == expected


def test_a_conftest_chain_leaves_the_conftest_itself_out_and_is_shared_by_its_directory(
    tmp_path: Path,
) -> None:
    """Ablation: replace `path if path.name == "conftest.py" else path.parent` with
    `path.parent` in `src/truegreen/audit/asserting.py`."""
    write(tmp_path, "conftest.py", "")
    nearest = write(tmp_path, "tests/conftest.py", "")
    test = write(tmp_path, "tests/test_a.py", "")
    project = Project(tmp_path)
    tests_chain = asserting.Resolver(project).conftests(test)
    assert [s.path for s in tests_chain] == [nearest, tmp_path / "conftest.py"]  # premise
    chain = asserting.Resolver(project).conftests(nearest)
    assert [s.path for s in chain] == [tmp_path / "conftest.py"]
    sibling = write(tmp_path, "tests/test_b.py", "")
    assert asserting.Resolver(project).conftests(sibling) is tests_chain


def test_a_cycle_of_helpers_asserts_only_through_another_path(tmp_path: Path) -> None:
    source = (
        "def ping():\n    pong()\n\n\ndef pong():\n    ping()\n    check()\n\n\n"
        "def check():\n    assert 1\n\n\ndef test_it():\n    ping()\n"
    )
    project = Project(tmp_path)
    summary = asserting.summarize(project, write(tmp_path, "tests/test_a.py", source))
    assert summary is not None
    assert asserting.Resolver(project).asserts(summary, summary.functions["test_it"])
