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
