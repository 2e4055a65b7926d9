"""TG401 xfail-not-strict against the pytest configuration that decides whether xfail is strict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from truegreen.audit.base import Project
from truegreen.audit.engine import check_source
from truegreen.audit.project import discover_project
from truegreen.audit.rules.xfail_not_strict import XfailNotStrict, xfail_is_strict

LENIENT = "import pytest\n\n\n@pytest.mark.xfail(reason='bug')\ndef test_bug():\n    assert 0\n"
EXPLICIT = "import pytest\n\n\n@pytest.mark.xfail(strict=False)\ndef test_bug():\n    assert 0\n"


def lines(project: Project, source: str) -> list[int]:
    path = project.root / "tests" / "test_x.py"
    findings = check_source(project, path, "tests/test_x.py", source, [XfailNotStrict])
    return [f.line for f in findings]


@pytest.mark.parametrize(
    "options",
    [
        {"xfail_strict": True},
        {"xfail_strict": "true"},
        {"xfail_strict": "1"},
        {"strict": True},
        {"addopts": "-ra -o xfail_strict=true"},
        {"addopts": ["--override-ini=xfail_strict=yes"]},
        {"addopts": "-oxfail_strict=on"},
    ],
)
def test_a_configuration_that_makes_xfail_strict_silences_it(
    tmp_path: Path, options: dict[str, Any]
) -> None:
    """Ablation: replace `strict is None and not self.strict` with `strict is None` in
    `src/truegreen/audit/rules/xfail_not_strict.py`."""
    assert lines(Project(tmp_path), LENIENT) == [4]  # premise: flagged without it
    assert lines(Project(tmp_path, pytest_options=options), LENIENT) == []


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"xfail_strict": False},
        {"xfail_strict": "false"},
        {"strict": True, "xfail_strict": "false"},
        {"addopts": "-o xfail_strict=false"},
        {"addopts": "-o xfail_strict=true -o xfail_strict=false"},
        {"addopts": "--strict-markers"},
    ],
)
def test_a_configuration_that_does_not_leaves_it_flagged(
    tmp_path: Path, options: dict[str, Any]
) -> None:
    assert xfail_is_strict(options) is False
    assert lines(Project(tmp_path, pytest_options=options), LENIENT) == [4]


def test_an_explicit_strict_false_is_flagged_whatever_the_configuration(tmp_path: Path) -> None:
    project = Project(tmp_path, pytest_options={"xfail_strict": True})
    assert lines(project, EXPLICIT) == [4]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pytest.ini", "[pytest]\nxfail_strict = true\n"),
        ("setup.cfg", "[tool:pytest]\nxfail_strict = True\n"),
        ("pyproject.toml", "[tool.pytest.ini_options]\nxfail_strict = true\n"),
        ("pyproject.toml", "[tool.pytest]\nstrict = true\n"),
    ],
)
def test_the_configuration_is_read_from_the_project_files(
    tmp_path: Path, name: str, text: str
) -> None:
    """Ablation: replace `xfail_is_strict(ctx.project.pytest_options)` with `False` in
    `src/truegreen/audit/rules/xfail_not_strict.py`."""
    assert lines(discover_project(tmp_path), LENIENT) == [4]  # premise: no configuration yet
    (tmp_path / name).write_text(text, encoding="utf-8")
    assert lines(discover_project(tmp_path), LENIENT) == []


INTERMITTENT = """import platform

import pytest

pytestmark = [
    pytest.mark.xfail(
        platform.system() == "Linux",
        reason="#410: keyring discovery fails intermittently",
    ),
]


@pytest.mark.xfail(reason="sometimes relative path results")
def test_git_worktree_support():
    assert 0


@pytest.mark.xfail(reason="rounding bug #412")
def test_total_rounds_half_up():
    assert 0
"""


def test_an_xfail_for_an_intermittent_failure_is_not_asked_to_be_strict(tmp_path: Path) -> None:
    """keyring's and setuptools-scm's xfails mark failures that come and go: strict=True would
    fail the run whenever the test passes.

    Ablation: replace `_says_intermittent(keywords.get("reason"))` with `False` in
    `src/truegreen/audit/rules/xfail_not_strict.py`."""
    assert lines(Project(tmp_path), INTERMITTENT) == [18]  # premise: a defect's xfail is


def test_an_intermittent_reason_in_an_f_string_is_read(tmp_path: Path) -> None:
    """Ablation: replace `any(_says_intermittent(part) for part in reason.values)` with
    `False` in `src/truegreen/audit/rules/xfail_not_strict.py`."""
    source = INTERMITTENT.replace('reason="#410:', 'reason=f"#{410}:')
    assert 'f"#{410}' in source  # premise: the keyring reason is an f-string
    assert lines(Project(tmp_path), source) == [18]


NO_REASON = "import pytest\n\n\n@pytest.mark.xfail{}\ndef test_bug():\n    assert 0\n"
STRICT = {"xfail_strict": True}


@pytest.mark.parametrize(
    ("marker", "options"),
    [("(strict=True)", {}), ("(raises=ValueError)", STRICT), ("", STRICT), ("()", STRICT)],
)
def test_a_strict_xfail_without_a_reason_is_flagged(
    tmp_path: Path, marker: str, options: dict[str, Any]
) -> None:
    found = check_source(
        Project(tmp_path, pytest_options=options),
        tmp_path / "tests" / "test_x.py",
        "tests/test_x.py",
        NO_REASON.format(marker),
        [XfailNotStrict],
    )
    assert [(f.line, f.message.split(":")[0]) for f in found] == [
        (4, "a strict xfail with no reason")
    ]


def test_a_strict_xfail_with_a_reason_is_not_flagged(tmp_path: Path) -> None:
    """Ablation: replace `"reason" not in keywords` with `True` in
    `src/truegreen/audit/rules/xfail_not_strict.py`."""
    project = Project(tmp_path, pytest_options=STRICT)
    assert lines(project, NO_REASON.format("(strict=True)")) == [4]  # premise
    assert lines(project, NO_REASON.format("(strict=True, reason='bug #412')")) == []
    assert lines(project, NO_REASON.format("(reason=REASON)")) == []


def test_a_strict_xfail_with_a_condition_is_not_asked_for_a_reason(tmp_path: Path) -> None:
    """Ablation: replace `not node.args` with `True` in
    `src/truegreen/audit/rules/xfail_not_strict.py`."""
    project = Project(tmp_path, pytest_options=STRICT)
    assert lines(project, NO_REASON.format("(strict=True)")) == [4]  # premise
    assert lines(project, NO_REASON.format("(\"sys.platform == 'win32'\")")) == []


def test_a_strictness_held_in_a_variable_is_not_asked_for_a_reason(tmp_path: Path) -> None:
    """Ablation: replace `strict is None or _is_true(strict)` with `True` in
    `src/truegreen/audit/rules/xfail_not_strict.py`."""
    project = Project(tmp_path)
    assert lines(project, NO_REASON.format("(strict=True)")) == [4]  # premise
    assert lines(project, NO_REASON.format("(strict=STRICT)")) == []
