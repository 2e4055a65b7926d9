"""TG204 setenv-platform-dir against the variables the project's own code reads by name."""

from __future__ import annotations

import shutil
from pathlib import Path

from truegreen.audit.base import Project
from truegreen.audit.rules.setenv_platform_dir import SetenvPlatformDir

from ..expect import audit_file, expected_lines

PROJECTS = Path(__file__).parent.parent / "projects"


def test_setenv_platform_dir_is_silent_for_a_variable_the_project_reads_itself(
    tmp_path: Path,
) -> None:
    """black reads XDG_CONFIG_HOME itself though it uses platformdirs elsewhere: a test that
    sets it redirects black's code on every OS.

    Ablation: replace `name in read` with `False` in
    `src/truegreen/audit/rules/setenv_platform_dir.py`.
    """
    root = tmp_path / "TG204"
    shutil.copytree(PROJECTS / "TG204", root)
    project = Project(root, packages=frozenset({"app"}), source_roots=(root / "src",))
    test_file = root / "tests" / "test_settings.py"
    premise = '    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))'
    assert premise in test_file.read_text(), "premise: the test sets XDG_STATE_HOME"
    flagged = {f.line for f in audit_file(project, test_file, SetenvPlatformDir)}
    assert flagged == expected_lines(test_file.read_text(), "TG204")
    (root / "src" / "app" / "state.py").unlink()
    project = Project(root, packages=frozenset({"app"}), source_roots=(root / "src",))
    lines = test_file.read_text().splitlines()
    flagged_then = {lines[f.line - 1] for f in audit_file(project, test_file, SetenvPlatformDir)}
    assert premise in flagged_then  # flagged once the project no longer reads it


def test_setenv_platform_dir_does_not_take_a_packages_tests_for_its_code(tmp_path: Path) -> None:
    """A module in a package's own `tests` directory that reads APPDATA is not the project's
    code reading it.

    Ablation: replace `not _TEST_DIRS.intersection(parts[:-1])` with `True` in
    `src/truegreen/audit/rules/setenv_platform_dir.py`.
    """
    root = tmp_path / "TG204"
    shutil.copytree(PROJECTS / "TG204", root)
    helper = root / "src" / "app" / "tests" / "helpers.py"
    assert 'os.environ.get("APPDATA")' in helper.read_text()  # premise: it reads APPDATA
    project = Project(root, packages=frozenset({"app"}), source_roots=(root / "src",))
    test_file = root / "tests" / "test_settings.py"
    lines = test_file.read_text().splitlines()
    flagged = {lines[f.line - 1].strip() for f in audit_file(project, test_file, SetenvPlatformDir)}
    assert 'with mock.patch.dict(os.environ, {"APPDATA": str(tmp_path)}):  # expect: TG204' in (
        flagged
    )
