"""TG405 deprecation-posture: DeprecationWarning must be an error, and stay one."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest

from tests.audit.rules.helpers import PROJECTS, load_project, project_findings
from truegreen.audit.base import Project
from truegreen.audit.rules.deprecation_posture import DeprecationPosture


def test_a_blanket_ignore_after_the_error_is_named_at_its_line() -> None:
    project = load_project(PROJECTS / "TG405" / "overridden")
    assert project_findings(DeprecationPosture, project) == [
        ("pyproject.toml", 11, "'ignore::DeprecationWarning' comes after the error entry and "
         "overrides it, so deprecations pass silently: narrow it to a message and module, "
         "or remove it"),
    ]  # fmt: skip


def test_a_configuration_without_the_error_is_named_at_filterwarnings() -> None:
    project = load_project(PROJECTS / "TG405" / "lacking")
    assert project_findings(DeprecationPosture, project) == [
        ("pyproject.toml", 7, "filterwarnings lacks error::DeprecationWarning and "
         "error::PendingDeprecationWarning: add them, so a new deprecation fails the test that "
         "triggers it"),
    ]  # fmt: skip


def test_an_ignore_before_the_error_and_a_targeted_ignore_after_it_stay_silent() -> None:
    """Ablation: replace `f.action != 'error' and f.blanket and f.category in covering`
    with `f.action != 'error' and f.category in covering`
    in `src/truegreen/audit/rules/deprecation_posture.py`."""
    project = load_project(PROJECTS / "TG405" / "strict")
    assert "somelib.compat" in project.pytest_options["filterwarnings"]  # premise
    assert project_findings(DeprecationPosture, project) == []


def verdict(filterwarnings: Any, addopts: Optional[str] = None) -> list[str]:
    options: dict[str, Any] = {"filterwarnings": filterwarnings}
    if addopts is not None:
        options["addopts"] = addopts
    project = Project(Path("/nowhere"), pytest_options=options)
    return [f.message.split(": ")[0] for f in DeprecationPosture.check_project(project)]


@pytest.mark.parametrize(
    ("filterwarnings", "addopts", "expected"),
    [
        (["error"], None, []),
        (["error::Warning"], None, []),
        (["e::DeprecationWarning"], None,
         ["filterwarnings lacks error::PendingDeprecationWarning"]),
        (["error::builtins.DeprecationWarning", "error::builtins.PendingDeprecationWarning"], None,
         []),
        (["error::DeprecationWarning", "e::PendingDeprecationWarning"], None, []),
        (["error::DeprecationWarning", "error::PendingDeprecationWarning",
          "ignore::PendingDeprecationWarning"], None,
         ["'ignore::PendingDeprecationWarning' comes after the error entry and overrides it, so "
          "deprecations pass silently"]),
        (["error", "ignore::DeprecationWarning:somelib"], None, []),
        (["error", "ignore::UserWarning", "default::ImportWarning"], None, []),
        ("error::DeprecationWarning\nignore", None,
         ["filterwarnings lacks error::PendingDeprecationWarning",
          "'ignore' comes after the error entry and overrides it, so deprecations pass silently"]),
        ("error::DeprecationWarning\nerror::PendingDeprecationWarning\nignore", None,
         ["'ignore' comes after the error entry and overrides it, so deprecations pass silently"]),
        (["error", "default::DeprecationWarning"], None,
         ["'default::DeprecationWarning' comes after the error entry and overrides it, so "
          "deprecations pass silently"]),
        (["error::DeprecationWarning"], "-W ignore::DeprecationWarning",
         ["filterwarnings lacks error::PendingDeprecationWarning",
          "'ignore::DeprecationWarning' comes after the error entry and overrides it, so "
          "deprecations pass silently"]),
        (["ignore"], "-W error::DeprecationWarning",
         ["filterwarnings lacks error::PendingDeprecationWarning"]),
        (["ignore"], "-W error::DeprecationWarning -W error::PendingDeprecationWarning", []),
        ([], None,
         ["filterwarnings lacks error::DeprecationWarning and error::PendingDeprecationWarning"]),
        (["error::PendingDeprecationWarning", "nonsense::DeprecationWarning"], None,
         ["filterwarnings lacks error::DeprecationWarning"]),
    ],
)  # fmt: skip
def test_pytest_applies_later_entries_with_higher_priority(
    filterwarnings: Any, addopts: Optional[str], expected: list[str]
) -> None:
    assert verdict(filterwarnings, addopts) == expected


def test_an_entry_that_overrides_both_categories_is_named_once() -> None:
    """Ablation: replace `culprits.setdefault(culprit.text, culprit)` with
    `culprits.setdefault(culprit.text + str(len(culprits)), culprit)` in
    `src/truegreen/audit/rules/deprecation_posture.py`."""
    both = ["error::DeprecationWarning", "error::PendingDeprecationWarning"]
    assert len(verdict([*both, "ignore::DeprecationWarning"])) == 1  # premise: one is named
    assert verdict([*both, "ignore"]) == [
        "'ignore' comes after the error entry and overrides it, so deprecations pass silently"
    ]
