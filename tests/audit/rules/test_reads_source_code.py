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
