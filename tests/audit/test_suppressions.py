"""The suppression comment grammar, and the statement lines a suppression may sit on."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from truegreen.audit.project import discover_project
from truegreen.audit.run import audit
from truegreen.audit.suppressions import Suppression, noqa, parse, statement_ends

CODES = st.lists(st.from_regex(r"TG[0-9]{3}", fullmatch=True), min_size=1, max_size=3)
REASONS = st.text(st.characters(blacklist_characters="#\r\n", blacklist_categories=("Cs", "Cc")),
                  max_size=30)  # fmt: skip


@given(CODES, REASONS)
def test_codes_and_reason_come_back_as_written(codes: list[str], reason: str) -> None:
    source = f"x = 1  # truegreen: ignore[{', '.join(codes)}] {reason}  # noqa: E501\n"
    assert parse(source) == [Suppression(1, 8, tuple(codes), reason.strip())]


@given(st.text(max_size=200))
def test_any_text_parses_without_raising(source: str) -> None:
    found = parse(source + "\n# truegreen: ignore[TG402] why")
    assert all(isinstance(s, Suppression) for s in found)


def test_only_comments_count_not_strings() -> None:
    source = 'text = "# truegreen: ignore[TG402] no"  # truegreen: ignore[TG101] yes\n'
    assert parse(source) == [Suppression(1, 41, ("TG101",), "yes")]


def test_a_statement_over_several_lines_offers_its_first_and_last_lines() -> None:
    source = (
        "@decorator(\n    1,\n)\ndef f(\n    a,\n):\n    call(\n        a,\n    )\n    single()\n"
    )
    ends = statement_ends(ast.parse(source))
    assert ends == {
        1: (1, 6), 2: (1, 6), 3: (1, 6), 4: (1, 6), 5: (1, 6), 6: (1, 6),
        7: (7, 9), 8: (7, 9), 9: (7, 9),
    }  # fmt: skip


@pytest.mark.parametrize(
    ("comment", "codes", "reason"),
    [
        ("# noqa: TG105", ("TG105",), ""),
        ("# noqa:TG105,TG101", ("TG105", "TG101"), ""),
        ("# NOQA: TG105, TG101,", ("TG105", "TG101"), ""),
        (
            "# noqa: TG105 TG101 reads the generated file",
            ("TG105", "TG101"),
            "reads the generated file",
        ),
        ("# noqa : TG105", ("TG105",), ""),
        ("# noqa: TG105 why  # pylint: disable=x", ("TG105",), "why"),
        ("# type: ignore # noqa: TG105", ("TG105",), ""),
        ("# noqa", ("ALL",), ""),
        ("# NoQA", ("ALL",), ""),
        ("# noqa TG105", ("ALL",), ""),  # no colon: a bare noqa, as in ruff
    ],
)
def test_noqa_reads_as_ruff_reads_it(comment: str, codes: tuple[str, ...], reason: str) -> None:
    [found] = noqa(f"x = 1  {comment}\n")
    assert (found.line, found.codes, found.reason, found.kind) == (1, codes, reason, "noqa")


@pytest.mark.parametrize(
    "source",
    ["x = 1  # noqa: tg105\n", "x = 1  # noqa:\n", 'x = "# noqa: TG105"\n', "x = 1  # noqaTG105\n"],
)
def test_noqa_that_ruff_ignores_is_ignored(source: str) -> None:
    assert noqa(source) == []


SLEEPS = "import time\n\n\ndef test_waits():\n    time.sleep(1){comment}\n"


def audited(tmp_path: Path, comment: str, more: str = "") -> list[str]:
    tmp_path.mkdir()
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    test = tmp_path / "tests" / "test_a.py"
    test.parent.mkdir()
    test.write_text(SLEEPS.format(comment=comment) + more, encoding="utf-8")
    report = audit(discover_project(tmp_path), [test], select=["ALL"], ignore=["TG105"])
    return [f"{f.line}:{f.col} {f.code}" for f in report.findings]


def test_a_noqa_naming_the_code_silences_its_finding(tmp_path: Path) -> None:
    """`# noqa: TG402 reason` works as `# truegreen: ignore[TG402] reason` does.

    Ablation: replace `(*parse(source), *noqa(source))` with `(*parse(source),)` in
    `src/truegreen/audit/suppressions.py`."""
    assert audited(tmp_path / "bare", "") == ["5:5 TG402"]  # premise: the finding exists
    assert audited(tmp_path / "noqa", "  # noqa: TG402, E501 measures the real timer") == []


def test_a_file_whose_only_suppression_is_a_noqa_is_read_for_it(tmp_path: Path) -> None:
    """Ablation: replace `MARK in source or _NOQA_HINT.search(source) is not None` with
    `MARK in source` in `src/truegreen/audit/suppressions.py`."""
    assert audited(tmp_path / "bare", "") == ["5:5 TG402"]  # premise: the finding exists
    assert audited(tmp_path / "noqa", "  # NOQA: TG402 measures the real timer") == []


def test_a_bare_noqa_silences_every_finding_on_its_line_as_in_ruff(tmp_path: Path) -> None:
    """Ablation: replace `(ALL,)` with `()` in `src/truegreen/audit/suppressions.py`."""
    assert audited(tmp_path / "bare", "") == ["5:5 TG402"]  # premise: the finding exists
    assert audited(tmp_path / "noqa", "  # noqa") == []


def test_a_noqa_naming_other_codes_silences_nothing_of_truegreen(tmp_path: Path) -> None:
    assert audited(tmp_path / "other", "  # noqa: E501") == ["5:5 TG402"]
    assert audited(tmp_path / "lower", "  # noqa: tg402 ruff ignores this") == ["5:5 TG402"]


def test_a_bare_noqa_or_one_for_other_tools_needs_no_reason(tmp_path: Path) -> None:
    """TG001 asks a reason of a noqa only when it names a truegreen code.

    Ablation: replace `ours and not found.reason` with `not found.reason` in
    `src/truegreen/audit/rules/suppression_without_reason.py`."""
    assert audited(tmp_path / "ours", "  # noqa: TG402") == ["5:20 TG001"]  # premise
    reasoned = "  # noqa: TG402 measures the real timer"
    others = "import os  # noqa\nimport sys  # noqa: F401\n"
    assert audited(tmp_path / "others", reasoned, others) == []
