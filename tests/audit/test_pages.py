"""Every rule, merged now or later, documents itself the same way: its docstring is its page."""

from __future__ import annotations

import re

import pytest

from truegreen.audit import pages, registry
from truegreen.audit.base import Rule

RULES = registry.all_rules()


@pytest.mark.parametrize("rule", RULES, ids=[rule.code for rule in RULES])
def test_a_rule_has_a_code_a_name_and_the_five_sections_in_order(rule: type[Rule]) -> None:
    headings = re.findall(r"^## (.+)$", pages.body(rule), re.M)
    assert re.fullmatch(r"TG\d{3}", rule.code)
    assert re.fullmatch(r"[a-z]+(?:-[a-z]+)*", rule.name)
    assert headings == list(pages.SECTIONS)


@pytest.mark.parametrize("rule", RULES, ids=[rule.code for rule in RULES])
def test_its_summary_is_one_sentence_from_what_it_does(rule: type[Rule]) -> None:
    summary = pages.summary(rule)
    assert "\n" not in summary
    assert summary.endswith(".")
    assert " ".join(pages.body(rule).split()).startswith(f"## What it does {summary}")


def test_codes_and_names_are_unique() -> None:
    assert len({r.code for r in RULES}) == len({r.name for r in RULES}) == len(RULES)


def test_the_page_names_the_rule_and_whether_it_runs_by_default() -> None:
    class OptIn(Rule):
        """## What it does
        Flags nothing. Really.
        """

        code, name, default = "TG999", "opt-in-example", False

    assert pages.page(OptIn).splitlines()[:3] == [
        "# TG999 opt-in-example",
        "",
        "opt-in: runs only when selected by code or name.",
    ]
    assert pages.summary(OptIn) == "Flags nothing."
