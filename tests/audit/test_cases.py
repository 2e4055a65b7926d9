"""Each rule against its case file: exactly the lines marked ``# expect: CODE`` are flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from truegreen.audit import registry
from truegreen.audit.base import Project
from truegreen.audit.engine import check_source

from .expect import expected_lines

CASES = sorted((Path(__file__).parent / "cases").glob("TG*.py"))


@pytest.mark.parametrize("case", CASES, ids=[case.stem for case in CASES])
def test_the_rule_flags_exactly_the_marked_lines(case: Path, tmp_path: Path) -> None:
    rule = registry.rule(case.stem)
    source = case.read_text(encoding="utf-8")
    expected = expected_lines(source, rule.code)
    assert expected, f"{case.name} marks no line: a case file must show the rule firing"
    path = tmp_path / "tests" / "test_case.py"
    findings = check_source(Project(tmp_path), path, "tests/test_case.py", source, [rule])
    assert sorted({f.line for f in findings}) == sorted(expected)
    assert {f.code for f in findings} == {rule.code}


def test_every_rule_has_a_case_file_or_a_fixture_project() -> None:
    here = Path(__file__).parent
    missing = [
        rule.code
        for rule in registry.all_rules()
        if not (here / "cases" / f"{rule.code}.py").is_file()
        and not (here / "projects" / rule.code).is_dir()
    ]
    assert missing == []


def test_an_unknown_code_is_a_usage_error_with_the_known_rules() -> None:
    from truegreen.core.errors import UsageError

    with pytest.raises(UsageError, match=r"expected a rule code or name, found 'TG99'.*TG402"):
        registry.rule("TG99")
