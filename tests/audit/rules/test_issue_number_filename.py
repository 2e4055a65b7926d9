"""TG501 issue-number-filename over a project of test files named well and badly."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pytest

from tests.audit.rules.helpers import PROJECTS
from truegreen.audit.base import Finding, Project
from truegreen.audit.engine import check_source
from truegreen.audit.rules.issue_number_filename import IssueNumberFilename, issue_number

ROOT = PROJECTS / "TG501"


def audit(path: Path) -> list[Finding]:
    relpath = path.relative_to(ROOT).as_posix()
    return check_source(Project(ROOT), path, relpath, path.read_text(), [IssueNumberFilename])


def test_every_file_named_for_an_issue_is_flagged_on_its_first_line() -> None:
    files = sorted((ROOT / "tests" / "flagged").glob("*.py"))
    assert len(files) == 10  # premise: every spelling is there
    found = [f for path in files for f in audit(path)]
    assert [(f.path, f.line, f.col) for f in found] == [
        (path.relative_to(ROOT).as_posix(), 1, 1) for path in files
    ]


def test_numbers_that_are_part_of_a_name_stay_silent() -> None:
    """Ablation: replace `leading.group(1) if leading else None` with `words[0]`
    in `src/truegreen/audit/rules/issue_number_filename.py`."""
    files = sorted((ROOT / "tests" / "silent").glob("*.py"))
    assert len(files) == 14  # premise: the look-alikes are there
    assert [f for path in files for f in audit(path)] == []


def test_the_message_names_the_issue_and_what_to_do() -> None:
    [finding] = audit(ROOT / "tests" / "flagged" / "test_gh1234.py")
    assert finding == Finding(
        "TG501",
        "issue-number-filename",
        "tests/flagged/test_gh1234.py",
        1,
        1,
        "test_gh1234.py is named for issue 1234: name the file for the behaviour it tests and "
        "cite the issue in a docstring",
    )


@pytest.mark.parametrize(
    ("filename", "expected"),
    [
        ("test_issue_1234.py", "1234"),
        ("test_issue1234.py", "1234"),
        ("test_gh1234.py", "1234"),
        ("test_bug_987.py", "987"),
        ("test_1234.py", "1234"),
        ("test_1234_crash.py", "1234"),
        ("issue_12_test.py", "12"),
        ("test_Issue_77.py", "77"),
        ("test_http2.py", None),
        ("test_py311.py", None),
        ("test_sha256.py", None),
        ("test_base64.py", None),
        ("test_step_1.py", None),
        ("test_7.py", None),
        ("conftest.py", None),
    ],
)
def test_issue_number_reads_the_file_name(filename: str, expected: Optional[str]) -> None:
    assert issue_number(filename) == expected
