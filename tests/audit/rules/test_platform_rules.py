"""The platform rules beyond their case files: suggestions, project modules, projects."""

from __future__ import annotations

import shutil
import sys
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
    assert f"add @pytest.mark.platforms({spec})" in message


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


def test_setenv_platform_dir_reads_the_packages_not_a_venv_in_a_flat_layout(
    tmp_path: Path,
) -> None:
    """A flat layout's root holds a ``.venv`` whose packages import platformdirs (black,
    virtualenv): that is not the project using it.

    Ablation: replace `sorted(self.packages)` with `[path.name for path in root.iterdir()]` in
    `src/truegreen/audit/base.py`.
    """
    root = tmp_path / "flat"
    shutil.copytree(PROJECTS / "TG204", root)
    shutil.move(root / "src" / "app", root / "app")
    (root / "src").rmdir()
    test_file = root / "tests" / "test_settings.py"
    project = Project(root, packages=frozenset({"app"}), source_roots=(root,))
    assert audit_file(project, test_file, SetenvPlatformDir), "premise: flagged in a user of it"
    (root / "app" / "paths.py").write_text("import os\nHOME = os.environ['HOME']\n")
    vendored = root / ".venv" / "lib" / "python3.11" / "site-packages" / "black" / "cache.py"
    vendored.parent.mkdir(parents=True)
    vendored.write_text("import platformdirs\n")
    project = Project(root, packages=frozenset({"app"}), source_roots=(root,))
    assert project.source_files() == sorted((root / "app").rglob("*.py"))
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


WINDOWS_ONLY = (
    "import sys, pytest\n"
    "@pytest.mark.skipif(sys.platform != 'win32', reason='Windows only')\n"
    "def test_x(): pass\n"
)


def test_skipif_platform_says_where_the_test_runs_not_that_it_runs_nowhere(
    tmp_path: Path,
) -> None:
    [message] = messages(WINDOWS_ONLY, SkipifPlatform, Project(tmp_path))
    assert "runs the test only on windows (nowhere, if none of your lanes is windows)" in message
    assert "no OS lane" not in message


def test_skipif_platform_tells_to_register_the_marker_where_pytest_reads_its_config(
    tmp_path: Path,
) -> None:
    project = Project(tmp_path, pytest_config_file=tmp_path / "tox.ini")
    [message] = messages(WINDOWS_ONLY, SkipifPlatform, project)
    assert 'register it in tox.ini (markers: "platforms: the hosts a test runs on")' in message


def test_skipif_platform_leaves_out_the_registration_when_the_marker_is_registered(
    tmp_path: Path,
) -> None:
    """A project that registers `platforms` itself is not told to.

    Ablation: replace `entries(self.ctx.project.pytest_options.get("markers"))` with `[]` in
    `src/truegreen/audit/rules/skipif_platform.py`."""
    registered = Project(tmp_path, pytest_options={"markers": "slow\nplatforms(*specs): hosts"})
    [unregistered] = messages(WINDOWS_ONLY, SkipifPlatform, Project(tmp_path))
    assert "register it" in unregistered  # premise: the advice is there by default
    [message] = messages(WINDOWS_ONLY, SkipifPlatform, registered)
    assert "register" not in message


def test_skipif_platform_accepts_a_skipif_beside_the_marker(tmp_path: Path) -> None:
    """The marker tells the lanes; the skipif keeps runs without truegreen right.

    Ablation: replace `host is None or self._beside_the_marker()` with `host is None` in
    `src/truegreen/audit/rules/skipif_platform.py`."""
    source = WINDOWS_ONLY.replace("@pytest", "@pytest.mark.platforms('windows')\n@pytest", 1)
    assert len(messages(WINDOWS_ONLY, SkipifPlatform, Project(tmp_path))) == 1  # premise
    assert messages(source, SkipifPlatform, Project(tmp_path)) == []


def test_skipif_platform_accepts_a_skipif_under_a_module_marker(tmp_path: Path) -> None:
    """A module's `pytestmark` marker reaches every test in it.

    Ablation: replace `self._marks(self.ctx.tree.body)` with `False` in
    `src/truegreen/audit/rules/skipif_platform.py`."""
    source = "pytestmark = pytest.mark.platforms('windows')\n" + WINDOWS_ONLY
    assert len(messages(WINDOWS_ONLY, SkipifPlatform, Project(tmp_path))) == 1  # premise
    assert messages(source, SkipifPlatform, Project(tmp_path)) == []


ADVICE_FOLLOWED = """
import sys

import pytest


@pytest.mark.platforms("windows")
@pytest.mark.skipif(sys.platform != "win32", reason="Windows only")
def test_detach_flags():
    pass
"""


def test_the_advice_keeps_a_strict_markers_suite_collecting_without_truegreen(
    pytester: pytest.Pytester,
) -> None:
    """Following TG302's advice (the marker, registered as it says) keeps
    `pytest -p no:truegreen --strict-markers` collecting; without the registration it does not.
    """
    pytester.makepyfile(test_win=ADVICE_FOLLOWED)
    bare = pytester.runpytest_subprocess("-p", "no:truegreen", "--strict-markers")
    assert bare.ret == pytest.ExitCode.INTERRUPTED  # premise: an unregistered marker errors
    bare.stdout.fnmatch_lines(["*'platforms' not found in `markers` configuration option*"])
    pytester.makeini("[pytest]\nmarkers =\n    platforms: the hosts a test runs on\n")
    registered = pytester.runpytest_subprocess("-p", "no:truegreen", "--strict-markers")
    outcome = {"passed": 1} if sys.platform == "win32" else {"skipped": 1}
    registered.assert_outcomes(**outcome)
