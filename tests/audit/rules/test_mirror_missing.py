"""TG502 mirror-missing over a small src-layout project."""

from __future__ import annotations

from tests.audit.rules.helpers import PROJECTS, load_project, project_findings
from truegreen.audit.rules.mirror_missing import MirrorMissing, mirrors

ROOT = PROJECTS / "TG502"


def test_modules_without_a_mirror_are_named_with_the_file_to_add() -> None:
    project = load_project(ROOT, packages={"app"}, src=["src"])
    assert project_findings(MirrorMissing, project) == [
        ("src/app/billing/totals.py", 1,
         "src/app/billing/totals.py has no mirror test file: add tests/billing/test_totals.py"),
        ("src/app/cli.py", 1, "src/app/cli.py has no mirror test file: add tests/test_cli.py"),
    ]  # fmt: skip


def test_private_modules_packages_and_shipped_tests_need_no_mirror() -> None:
    """Ablation: replace `exempt(parts)` with `False`
    in `src/truegreen/audit/rules/mirror_missing.py`."""
    project = load_project(ROOT, packages={"app"}, src=["src"])
    assert (ROOT / "src/app/_internal/helpers.py").is_file()  # premise: private code exists
    assert (ROOT / "src/app/test_selfcheck.py").is_file()  # premise: and a shipped test
    flagged = {path for path, _, _ in project_findings(MirrorMissing, project)}
    assert flagged == {"src/app/billing/totals.py", "src/app/cli.py"}


def test_the_accepted_mirrors_of_a_nested_module() -> None:
    assert mirrors(("a", "b", "c.py")) == ["test_c.py", "c_test.py", "test_b_c.py", "test_a_b_c.py"]


def test_without_packages_nothing_is_expected() -> None:
    """Ablation: replace `sorted(project.packages)` with `['app']`
    in `src/truegreen/audit/rules/mirror_missing.py`."""
    project = load_project(ROOT, src=["src"])
    assert (ROOT / "src/app/cli.py").is_file()  # premise: an unmirrored module exists
    assert project_findings(MirrorMissing, project) == []
