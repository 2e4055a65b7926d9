"""The platform rules beyond their case files: suggestions, project modules, projects."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from truegreen.audit.base import Project
from truegreen.audit.engine import check_source
from truegreen.audit.rules.fakes_host_os import FakesHostOs
from truegreen.audit.rules.setenv_platform_dir import SetenvPlatformDir
from truegreen.audit.rules.skipif_platform import SkipifPlatform

from ..expect import audit_file, expected_lines

PROJECTS = Path(__file__).parent.parent / "projects"


def messages(source: str, rule: type, project: Project) -> list[str]:
    path = project.root / "tests" / "test_x.py"
    return [f.message for f in check_source(project, path, "tests/test_x.py", source, [rule])]


@pytest.mark.parametrize(
    ("condition", "spec"),
    [
        ('sys.platform == "win32"', '"not windows"'),
        ('sys.platform != "win32"', '"windows"'),
        ('os.name == "nt"', '"not windows"'),
        ('not sys.platform.startswith("linux")', '"linux"'),
        ('sys.platform.startswith("darwin")', '"not macos"'),
        ('sys.platform in ("win32", "cygwin")', "..."),
    ],
)
def test_skipif_platform_suggests_the_marker_that_runs_where_the_test_did(
    condition: str, spec: str, tmp_path: Path
) -> None:
    source = (
        f"import os, sys, pytest\n@pytest.mark.skipif({condition}, reason='r')\n"
        "def test_x(): pass\n"
    )
    [message] = messages(source, SkipifPlatform, Project(tmp_path))
    assert f"use @pytest.mark.platforms({spec})" in message


def test_skipif_unless_inverts_the_suggestion(tmp_path: Path) -> None:
    source = (
        "import sys, unittest\n"
        "class T(unittest.TestCase):\n"
        "    @unittest.skipUnless(sys.platform == 'darwin', 'mac')\n"
        "    def test_x(self): pass\n"
    )
    [message] = messages(source, SkipifPlatform, Project(tmp_path))
    assert '@pytest.mark.platforms("macos")' in message


def test_fakes_host_os_ignores_the_projects_own_platform_module(tmp_path: Path) -> None:
    """A project module named ``platform`` is not the standard library's.

    Ablation: replace `self.ctx.project.module_path(module) is None` with `True` in
    `src/truegreen/audit/rules/fakes_host_os.py`.
    """
    source = "from unittest import mock\ndef test_x():\n    mock.patch('app.platform.system')\n"
    assert messages(source, FakesHostOs, Project(tmp_path)), "premise: flagged without the module"
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "platform.py").write_text("def system(): ...\n")
    project = Project(tmp_path, packages=frozenset({"app"}), source_roots=(tmp_path,))
    assert messages(source, FakesHostOs, project) == []


def test_setenv_platform_dir_flags_exactly_the_marked_lines_in_a_platformdirs_project(
    tmp_path: Path,
) -> None:
    root = tmp_path / "TG204"
    shutil.copytree(PROJECTS / "TG204", root)
    project = Project(root, packages=frozenset({"app"}), source_roots=(root / "src",))
    test_file = root / "tests" / "test_settings.py"
    expected = expected_lines(test_file.read_text(), "TG204")
    assert expected
    found = audit_file(project, test_file, SetenvPlatformDir)
    assert sorted(f.line for f in found) == sorted(expected)


def test_setenv_platform_dir_is_silent_where_the_project_does_not_use_platformdirs(
    tmp_path: Path,
) -> None:
    """Setting HOME is a fine way to redirect a project that reads HOME itself.

    Ablation: replace `uses_platformdirs(self.ctx.project)` with `True` in
    `src/truegreen/audit/rules/setenv_platform_dir.py`.
    """
    root = tmp_path / "TG204"
    shutil.copytree(PROJECTS / "TG204", root)
    project = Project(root, packages=frozenset({"app"}), source_roots=(root / "src",))
    test_file = root / "tests" / "test_settings.py"
    assert audit_file(project, test_file, SetenvPlatformDir), "premise: flagged with platformdirs"
    (root / "src" / "app" / "paths.py").write_text("import os\nHOME = os.environ['HOME']\n")
    project = Project(root, packages=frozenset({"app"}), source_roots=(root / "src",))
    assert audit_file(project, test_file, SetenvPlatformDir) == []


def test_setenv_platform_dir_is_silent_in_platformdirs_itself(tmp_path: Path) -> None:
    """platformdirs' own tests set XDG_* to test what its Unix class answers.

    Ablation: replace `imported - project.packages` with `imported` in
    `src/truegreen/audit/rules/setenv_platform_dir.py`.
    """
    root = tmp_path / "platformdirs"
    shutil.copytree(PROJECTS / "TG204", root)
    test_file = root / "tests" / "test_settings.py"
    project = Project(root, packages=frozenset({"app"}), source_roots=(root / "src",))
    assert audit_file(project, test_file, SetenvPlatformDir), "premise: flagged in a user of it"
    (root / "src" / "app").rename(root / "src" / "platformdirs")
    (root / "src" / "platformdirs" / "unix.py").write_text("from platformdirs.api import Base\n")
    itself = Project(root, packages=frozenset({"platformdirs"}), source_roots=(root / "src",))
    assert audit_file(itself, test_file, SetenvPlatformDir) == []
