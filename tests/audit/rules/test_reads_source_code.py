"""TG101 reads-source-code on the source of what the test defines itself."""

from __future__ import annotations

from pathlib import Path

from truegreen.audit.base import Project
from truegreen.audit.engine import check_source
from truegreen.audit.rules.reads_source_code import ReadsSourceCode

ATTRS_SHAPE = """
import inspect

import attr
from app import spawn


def test_the_generated_init_sets_attributes_directly():
    @attr.s
    class Point:
        x = attr.ib()

    assert "self.x = x" in inspect.getsource(Point.__init__)


def test_the_spawner_hides_its_window():
    assert "windowsHide" in inspect.getsource(spawn.start)
"""


def test_the_source_of_a_class_the_test_defines_is_not_the_project_source(
    tmp_path: Path,
) -> None:
    """attrs' tests read the `__init__` attrs generated for a class the test defines.

    Ablation: replace `node.args and self._defined_here(node.args[0])` with `False` in
    `src/truegreen/audit/rules/reads_source_code.py`."""
    project = Project(root=tmp_path)
    path = tmp_path / "tests" / "test_x.py"
    findings = check_source(project, path, "tests/test_x.py", ATTRS_SHAPE, [ReadsSourceCode])
    assert [f.line for f in findings] == [17]  # premise: the project's own source is flagged


MAKE_CLASS_SHAPE = """
import inspect

import attr
from app import spawn


def test_multiple_empty():
    C1 = attr.make_class("C", {"x": attr.ib(validator=[])})
    C2 = attr.make_class("C", {"x": attr.ib(validator=None)})

    assert inspect.getsource(C1.__init__) == inspect.getsource(C2.__init__)


def test_the_spawner_hides_its_window():
    start = getattr(spawn, "start")
    assert "windowsHide" in inspect.getsource(start)
"""


def test_the_source_of_a_class_a_factory_built_is_not_the_project_source(
    tmp_path: Path,
) -> None:
    """attrs' `test_multiple_empty` compares the `__init__`s `make_class` generated.

    Ablation: delete `self.defined.add((self._scope(), node.targets[0].id))` in
    `src/truegreen/audit/rules/reads_source_code.py`."""
    project = Project(root=tmp_path)
    path = tmp_path / "tests" / "test_x.py"
    findings = check_source(project, path, "tests/test_x.py", MAKE_CLASS_SHAPE, [ReadsSourceCode])
    assert [f.line for f in findings] == [17]  # premise: a getattr'd function is flagged


def flagged_lines(tmp_path: Path, source: str) -> list[int]:
    path = tmp_path / "tests" / "test_x.py"
    findings = check_source(Project(tmp_path), path, "tests/test_x.py", source, [ReadsSourceCode])
    return [f.line for f in findings]


VERSIONINGIT_SHAPE = """
import shutil
from pathlib import Path

SPAWN = Path(__file__).parent.parent / "src" / "app" / "spawn.py"


def test_build_from_sdist(tmp_path: Path) -> None:
    shutil.unpack_archive(SDIST, tmp_path / "src")
    (srcsubdir,) = (tmp_path / "src").iterdir()
    init_path = Path("src", "mypackage", "__init__.py")
    init_src = (srcsubdir / init_path).read_text(encoding="utf-8")
    build(srcsubdir)
    assert (srcsubdir / init_path).read_text(encoding="utf-8") == init_src


def test_the_spawner_hides_its_window():
    assert "windowsHide" in SPAWN.read_text()
"""


def test_a_name_unpacked_from_a_tmp_path_directory_names_a_file_the_test_made(
    tmp_path: Path,
) -> None:
    """versioningit reads back the `__init__.py` of an sdist it unpacked into `tmp_path`.

    Ablation: replace `self._unpack(node.targets[0], self.where(node.value))` with
    `self._unpack(node.targets[0], UNKNOWN)` in
    `src/truegreen/audit/rules/reads_source_code.py`."""
    assert flagged_lines(tmp_path, VERSIONINGIT_SHAPE) == [18]  # premise: the real source is


UNPACKED_IN_A_LOOP = """
from pathlib import Path

SPAWN = Path(__file__).parent.parent / "src" / "app" / "spawn.py"


def test_every_wheel_has_a_version(tmp_path):
    for wheel, info in unpack_all(tmp_path):
        assert "__version__" in (wheel / "pkg" / "_version.py").read_text()


def test_the_spawner_hides_its_window():
    for path, name in [(SPAWN, "spawn")]:
        assert "windowsHide" in (path.parent / "spawn.py").read_text()
"""


def test_names_a_loop_unpacks_from_a_tmp_path_call_name_files_the_test_made(
    tmp_path: Path,
) -> None:
    """A loop over what a helper unpacked into `tmp_path` reads back files the test made.

    Ablation: replace `UNKNOWN if self.where(node).anchored else GENERATED` with `UNKNOWN`
    in `src/truegreen/audit/rules/reads_source_code.py`."""
    assert flagged_lines(tmp_path, UNPACKED_IN_A_LOOP) == [14]  # premise: the real source is


BLACK_SHAPE = """
from pathlib import Path

SPAWN = Path(__file__).parent.parent / "src" / "app" / "spawn.py"


def test_single_file_force_pyi():
    with cache_dir() as workspace:
        path = (workspace / "file.py").resolve()
        path.write_text(CONTENTS, encoding="utf-8")
        invoke_black([str(path), "--pyi"])
        actual = path.read_text(encoding="utf-8")
    assert actual == EXPECTED


def test_the_spawner_hides_its_window():
    path = SPAWN
    assert "windowsHide" in path.read_text()
"""


def test_a_python_file_the_test_wrote_is_read_back_as_output(tmp_path: Path) -> None:
    """black writes `file.py` in a workspace a helper made, formats it, and reads it back.

    Ablation: replace `isinstance(written, ast.Name)` with `False` in
    `src/truegreen/audit/rules/reads_source_code.py`."""
    assert flagged_lines(tmp_path, BLACK_SHAPE) == [18]  # premise: the real source is


CHDIR_SHAPE = """
from pathlib import Path

import pytest


def test_init_writes_a_setup_py(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    main(["init"])
    assert "setup(" in Path("setup.py").read_text()


def test_the_spawner_hides_its_window(monkeypatch):
    monkeypatch.chdir(Path(__file__).parent.parent)
    assert "windowsHide" in Path("src/app/spawn.py").read_text()
"""


def test_a_relative_path_after_changing_into_tmp_path_names_a_file_there(tmp_path: Path) -> None:
    """A test that moves into `tmp_path` and reads `setup.py` reads what the code wrote.

    Ablation: replace `self.moved.add(id(self.ctx.function))` with `pass` in
    `src/truegreen/audit/rules/reads_source_code.py`."""
    assert flagged_lines(tmp_path, CHDIR_SHAPE) == [15]  # premise: the real source is


HOME_SHAPE = """
from pathlib import Path


def test_completion_install_zsh():
    install_completion()
    install_source_path = Path.home() / ".zfunc/_tutorial001.py"
    install_content = install_source_path.read_text()
    assert "compdef _tutorial001py_completion" in install_content


def test_the_spawner_hides_its_window():
    assert "windowsHide" in (Path.cwd() / "src/app/spawn.py").read_text()
"""


def test_a_path_under_the_home_directory_names_a_file_the_code_installed(tmp_path: Path) -> None:
    """typer reads back the completion script it installed under `Path.home()`.

    Ablation: replace `self._is_home(node.func)` with `False` in
    `src/truegreen/audit/rules/reads_source_code.py`."""
    assert flagged_lines(tmp_path, HOME_SHAPE) == [13]  # premise: the real source is


EXPANDED_HOME_SHAPE = """
import os
from pathlib import Path


def test_completion_install_zsh():
    install_completion()
    assert "compdef" in open(os.path.expanduser("~/.zfunc/_tutorial001.py")).read()
    assert "compdef" in Path("~/.zfunc/_tutorial001.py").expanduser().read_text()


def test_the_spawner_hides_its_window():
    assert "windowsHide" in open(os.path.expanduser("src/app/spawn.py")).read()
"""


def test_a_literal_path_under_home_is_never_the_project_source(tmp_path: Path) -> None:
    """`os.path.expanduser("~/...")` and `Path("~/...").expanduser()` name the home directory.

    Ablation: replace `node.value.startswith("~")` with `False` in
    `src/truegreen/audit/rules/reads_source_code.py`."""
    assert flagged_lines(tmp_path, EXPANDED_HOME_SHAPE) == [13]  # premise: the real source is
