"""TG306 git-identity-for-every-test over its fixture project: only what reaches every test."""

from __future__ import annotations

from pathlib import Path

from tests.audit.rules.harness import audit, marked_and_found, project
from truegreen.audit import registry
from truegreen.audit.base import Project
from truegreen.audit.engine import check_source


def test_flags_exactly_the_marked_lines() -> None:
    marked, found = marked_and_found(project("TG306"), "TG306")
    assert marked
    assert found == marked


def test_the_message_names_the_setting_and_where_it_reaches_every_test() -> None:
    messages = [f.message for f in audit(project("TG306"), "TG306", "tests/conftest.py")]
    assert messages[2].startswith(
        "GIT_AUTHOR_NAME in the autouse fixture git_user gives every test a git identity"
    )
    assert messages[3].startswith("git config user.email in the autouse fixture global_identity")


def flagged(source: str, tmp_path: Path) -> list[int]:
    rule = registry.rule("TG306")
    path = tmp_path / "tests" / "conftest.py"
    return [f.line for f in check_source(Project(tmp_path), path, "tests/conftest.py", source,
                                         [rule])]  # fmt: skip


FIXTURE = """\
import pytest


@pytest.fixture({})
def git_user(monkeypatch):
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
"""


def test_a_fixture_the_tests_request_by_name_is_not_flagged(tmp_path: Path) -> None:
    """Ablation: replace `self.ctx.is_fixture(outer) and _autouse(outer)` with
    `self.ctx.is_fixture(outer)` in `src/truegreen/audit/rules/git_identity_for_every_test.py`."""
    assert flagged(FIXTURE.format("autouse=True"), tmp_path) == [6]  # premise
    assert flagged(FIXTURE.format(""), tmp_path) == []
    assert flagged(FIXTURE.format("autouse=False"), tmp_path) == []


def test_an_autouse_fixture_of_a_test_module_is_not_flagged(tmp_path: Path) -> None:
    """Ablation: replace `frozenset({"conftest"})` with `frozenset({"conftest", "test"})` in
    `src/truegreen/audit/rules/git_identity_for_every_test.py`."""
    assert flagged(FIXTURE.format("autouse=True"), tmp_path) == [6]  # premise: in a conftest
    rule = registry.rule("TG306")
    path = tmp_path / "tests" / "test_x.py"
    source = FIXTURE.format("autouse=True")
    assert check_source(Project(tmp_path), path, "tests/test_x.py", source, [rule]) == []


def test_other_git_settings_and_variables_are_not_an_identity(tmp_path: Path) -> None:
    """Ablation: replace `w.lower() in IDENTITY_KEYS` with `True` in
    `src/truegreen/audit/rules/git_identity_for_every_test.py`."""
    source = (
        "import subprocess\n\nsubprocess.run(['git', 'config', '{}', 'x'])\n"
        "subprocess.run(['git', 'config', 'user.name', 'x'])\n"
    )
    assert flagged(source.format("user.email"), tmp_path) == [3, 4]  # premise
    assert flagged(source.format("core.autocrlf"), tmp_path) == [4]
