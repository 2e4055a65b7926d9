"""An audit run: which files, which rules, suppressions, per-file ignores, order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from truegreen.audit import registry
from truegreen.audit.base import Finding, Project, Rule
from truegreen.audit.project import discover_project
from truegreen.audit.run import audit
from truegreen.core.errors import UsageError

SLEEPS = "import time\n\n\ndef test_waits():\n    time.sleep(1){comment}\n"


def make(tmp_path: Path, files: dict[str, str], table: str = "") -> Project:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.pytest.ini_options]\n[tool.truegreen.audit]\n{table}\n", encoding="utf-8"
    )
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return discover_project(tmp_path)


def found(project: Project, *paths: Path, select: tuple[str, ...] = ("ALL",)) -> list[str]:
    # the samples are bare tests that only sleep; no-assertion would flag each of them too
    report = audit(project, list(paths), select=list(select), ignore=["TG105"])
    return [f"{f.path}:{f.line}:{f.col} {f.code}" for f in report.findings]


def test_a_suppression_with_a_reason_silences_its_finding(tmp_path: Path) -> None:
    """Ablation: replace `not any(_names(code, finding) for code in named)` with `True` in
    `src/truegreen/audit/run.py`."""
    bare = make(tmp_path / "bare", {"tests/test_a.py": SLEEPS.format(comment="")})
    assert found(bare) == ["tests/test_a.py:5:5 TG402"]  # premise: the finding exists
    for comment in (
        "  # truegreen: ignore[TG402] the real timer",
        "  # truegreen: ignore[sleep-in-test] x",
    ):
        project = make(
            tmp_path / str(len(comment)), {"tests/test_a.py": SLEEPS.format(comment=comment)}
        )
        assert found(project) == []


def test_a_suppression_on_the_first_line_of_a_statement_covers_all_its_lines(
    tmp_path: Path,
) -> None:
    """Ablation: replace `{finding.line, *ends.get(finding.line, ())}` with `{finding.line}`
    in `src/truegreen/audit/run.py`."""
    source = (
        "import time\n\n\ndef test_waits():\n"
        "    total = max(  # truegreen: ignore[TG402] measured on purpose\n"
        "        1,\n        time.sleep(1),\n    )\n"
        "    other = max(\n        1,\n        time.sleep(1),\n    )\n"
    )
    project = make(tmp_path, {"tests/test_a.py": source})
    assert found(project) == ["tests/test_a.py:11:9 TG402"]


def test_a_suppression_a_formatter_moved_to_the_last_line_still_counts(tmp_path: Path) -> None:
    """Ablation: replace `{finding.line, *ends.get(finding.line, ())}` with `{finding.line}`
    in `src/truegreen/audit/run.py`."""
    source = (
        "import time\n\n\ndef test_waits():\n"
        "    assert (\n        time.sleep(1) is None\n    ){comment}\n"
    )
    bare = make(tmp_path / "bare", {"tests/test_a.py": source.format(comment="")})
    assert found(bare) == ["tests/test_a.py:6:9 TG402"]  # premise
    comment = "  # truegreen: ignore[TG402] on purpose"
    project = make(tmp_path / "moved", {"tests/test_a.py": source.format(comment=comment)})
    assert found(project) == []


def test_a_suppression_names_only_its_codes_and_a_string_is_not_one(tmp_path: Path) -> None:
    source = (
        "import time\n\n\ndef test_waits():\n"
        "    time.sleep(1)  # truegreen: ignore[TG101] wrong code\n"
        '    time.sleep(2); text = "# truegreen: ignore[TG402] in a string"\n'
    )
    project = make(tmp_path, {"tests/test_a.py": source})
    assert found(project) == ["tests/test_a.py:5:5 TG402", "tests/test_a.py:6:5 TG402"]


def test_a_suppression_without_a_reason_silences_but_is_itself_a_finding(tmp_path: Path) -> None:
    comment = "  # truegreen: ignore[TG402,TG001]"
    project = make(tmp_path, {"tests/test_a.py": SLEEPS.format(comment=comment)})
    assert found(project) == ["tests/test_a.py:5:20 TG001"]


def test_per_file_ignores(tmp_path: Path) -> None:
    """Ablation: replace `not _file_ignored(project, f)` with `True` in
    `src/truegreen/audit/run.py`."""
    files = {"tests/legacy/test_a.py": SLEEPS.format(comment=""),
             "tests/test_b.py": SLEEPS.format(comment="")}  # fmt: skip
    assert len(found(make(tmp_path / "bare", files))) == 2  # premise: both are flagged
    table = 'per-file-ignores = { "tests/legacy/*" = ["TG4"] }'
    assert found(make(tmp_path / "ignoring", files, table)) == ["tests/test_b.py:5:5 TG402"]


def test_exclude_leaves_out_matching_directories_and_files(tmp_path: Path) -> None:
    """Ablation: replace `not any(settings.path_matches(relpath, glob) for glob in within)`
    with `True` in `src/truegreen/audit/run.py`."""
    names = ("tests/test_a.py", "tests/fixtures/test_x.py", "tests/test_generated_1.py")
    project = make(tmp_path, dict.fromkeys(names, SLEEPS.format(comment="")),
                   'exclude = ["tests/fixtures", "tests/test_generated_*.py"]')  # fmt: skip
    assert all((tmp_path / name).is_file() for name in names)  # premise
    assert found(project) == ["tests/test_a.py:5:5 TG402"]


def test_hidden_directories_virtualenvs_and_build_output_are_never_audited(
    tmp_path: Path,
) -> None:
    """Ablation: replace `name.startswith(".") or name in SKIPPED or (directory /
    "pyvenv.cfg").is_file()` with `False` in `src/truegreen/audit/run.py`."""
    names = ("tests/test_a.py", ".tox/py/test_y.py", "build/lib/test_z.py",
             "node_modules/m/test_n.py", "venv2/lib/test_v.py")  # fmt: skip
    files = dict.fromkeys(names, SLEEPS.format(comment=""))
    project = make(tmp_path, {**files, "venv2/pyvenv.cfg": ""})
    assert all((tmp_path / name).is_file() for name in names)  # premise
    assert found(project) == ["tests/test_a.py:5:5 TG402"]


def test_a_file_or_directory_named_outright_is_audited_even_when_excluded(tmp_path: Path) -> None:
    files = {"tests/fixtures/test_x.py": SLEEPS.format(comment=""), "tests/test_y.py": ""}
    project = make(tmp_path, files, 'exclude = ["tests/fixtures"]')
    assert found(project) == []
    named = found(project, tmp_path / "tests" / "fixtures" / "test_x.py")
    assert named == ["tests/fixtures/test_x.py:5:5 TG402"]
    assert found(project, tmp_path / "tests" / "fixtures") == named


def test_findings_are_sorted_by_path_line_and_column(tmp_path: Path) -> None:
    two = "import time\n\n\ndef test_w():\n    time.sleep(1); time.sleep(2)\n"
    files = {"tests/test_b.py": two, "tests/test_a.py": SLEEPS.format(comment="")}
    assert found(make(tmp_path, files)) == [
        "tests/test_a.py:5:5 TG402",
        "tests/test_b.py:5:5 TG402",
        "tests/test_b.py:5:20 TG402",
    ]


def test_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    project = make(tmp_path, {})
    with pytest.raises(
        UsageError,
        match=r"expected PATHS to be readable files or directories, found '.*nowhere' "
        r"\(no such file or directory\)$",
    ):
        audit(project, [tmp_path / "nowhere"])


class CountsRuns(Rule):
    """A project-level rule that counts how often the run asks it."""

    code, name = "TG999", "counts-runs"
    calls: ClassVar[list[Path]] = []

    @classmethod
    def check_project(cls, project: Project) -> Iterator[Finding]:
        cls.calls.append(project.root)
        yield cls.project_finding("pyproject.toml", 1, "once")


def test_project_rules_run_once_per_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = (*registry.all_rules(), CountsRuns)
    monkeypatch.setattr(registry, "all_rules", lambda: rules)
    monkeypatch.setattr(CountsRuns, "calls", [])
    files = dict.fromkeys((f"tests/test_{n}.py" for n in range(3)), "def test():\n    pass\n")
    project = make(tmp_path, files)
    assert found(project) == ["pyproject.toml:1:1 TG999"]
    assert CountsRuns.calls == [project.root]
