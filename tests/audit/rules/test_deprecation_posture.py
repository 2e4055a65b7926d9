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
        ("pyproject.toml", 7, "filterwarnings lacks error::DeprecationWarning: add it, so a new "
         "deprecation fails the test that triggers it"),
    ]  # fmt: skip


def test_an_ignore_before_the_error_and_a_targeted_ignore_after_it_stay_silent() -> None:
    """Ablation: replace `f.action != 'error' and f.blanket and f.category in COVERING`
    with `f.action != 'error' and f.category in COVERING`
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
        (["e::DeprecationWarning"], None, []),
        (["error::builtins.DeprecationWarning"], None, []),
        (["error", "ignore::DeprecationWarning:somelib"], None, []),
        (["error", "ignore::UserWarning", "default::ImportWarning"], None, []),
        ("error::DeprecationWarning\nignore", None,
         ["'ignore' comes after the error entry and overrides it, so deprecations pass silently"]),
        (["error", "default::DeprecationWarning"], None,
         ["'default::DeprecationWarning' comes after the error entry and overrides it, so "
          "deprecations pass silently"]),
        (["error::DeprecationWarning"], "-W ignore::DeprecationWarning",
         ["'ignore::DeprecationWarning' comes after the error entry and overrides it, so "
          "deprecations pass silently"]),
        (["ignore"], "-W error::DeprecationWarning", []),
        ([], None, ["filterwarnings lacks error::DeprecationWarning"]),
        (["error::PendingDeprecationWarning", "nonsense::DeprecationWarning"], None,
         ["filterwarnings lacks error::DeprecationWarning"]),
    ],
)  # fmt: skip
def test_pytest_applies_later_entries_with_higher_priority(
    filterwarnings: Any, addopts: Optional[str], expected: list[str]
) -> None:
    assert verdict(filterwarnings, addopts) == expected
