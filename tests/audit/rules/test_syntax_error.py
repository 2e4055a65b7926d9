"""TG000 syntax-error on its fixture project: a file that does not parse is a finding."""

from __future__ import annotations

import shutil
from pathlib import Path

from truegreen.audit.project import discover_project
from truegreen.audit.run import audit

PROJECT = Path(__file__).resolve().parent.parent / "projects" / "TG000"


def audited(tmp_path: Path, *, ignore: tuple[str, ...] = ()) -> list[tuple[str, str, int]]:
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    report = audit(discover_project(root), select=["TG402"], ignore=list(ignore))
    return [(f.code, f.path, f.line) for f in report.findings]


def test_it_reports_the_file_that_does_not_parse_and_only_it(tmp_path: Path) -> None:
    """A coding cookie is honoured (test_latin1.py stays silent); bytes no encoding reads are
    a finding too. TG000 is reported though only TG402 was selected.

    Ablation: replace `rule.code == "TG000" or any(matches(s, rule) for s in select)` with
    `any(matches(s, rule) for s in select)` in `src/truegreen/audit/settings.py`."""
    latin1 = PROJECT / "tests" / "test_latin1.py"
    data = latin1.read_bytes()  # truegreen: ignore[TG101] the premise: it is not UTF-8
    assert data.count(b"\xe9") == 2
    expected = [
        ("TG000", "tests/test_broken.py", 4),
        ("TG000", "tests/test_undecodable.py", 1),
    ]
    assert audited(tmp_path) == expected


def test_ignoring_it_silences_it(tmp_path: Path) -> None:
    assert audited(tmp_path, ignore=("syntax-error",)) == []
