"""TG404 xdist-group-without-loadgroup: the marks are flagged unless addopts asks for loadgroup."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from truegreen.audit.base import Project
from truegreen.audit.engine import check_source
from truegreen.audit.rules.xdist_group_without_loadgroup import XdistGroupWithoutLoadgroup

SOURCE = """\
import pytest


@pytest.mark.xdist_group("tmux")
def test_attach():
    assert True
"""


def lines_flagged(tmp_path: Path, addopts: Any) -> list[int]:
    options = {} if addopts is None else {"addopts": addopts}
    project = Project(tmp_path, pytest_options=options)
    path = tmp_path / "tests" / "test_tmux.py"
    findings = check_source(project, path, "tests/test_tmux.py", SOURCE,
                            [XdistGroupWithoutLoadgroup])  # fmt: skip
    return [f.line for f in findings]


@pytest.mark.parametrize(
    "addopts",
    [
        "-n 2 --dist loadgroup",
        "--dist=loadgroup",
        "-d loadgroup",
        ["-n", "logical", "--dist", "loadgroup"],
        "-ra\n--dist loadgroup",
        "--dist load --dist=loadgroup",
    ],
)
def test_loadgroup_in_addopts_keeps_the_marks_silent(tmp_path: Path, addopts: Any) -> None:
    """Ablation: replace
    `not self.grouped and node.attr == 'xdist_group' and self.ctx.qualname(node) == MARK`
    with `self.ctx.qualname(node) == MARK` in
    `src/truegreen/audit/rules/xdist_group_without_loadgroup.py`."""
    assert "xdist_group" in SOURCE  # premise: the mark is there
    assert lines_flagged(tmp_path, addopts) == []


@pytest.mark.parametrize(
    "addopts",
    [None, "-n 2", "--dist load", "--dist=loadscope", "--dist loadgroup --dist load",
     "-p loadgroup", "--dist-loadgroup"],
)  # fmt: skip
def test_without_loadgroup_the_mark_is_flagged_where_it_is(tmp_path: Path, addopts: Any) -> None:
    assert lines_flagged(tmp_path, addopts) == [4]


def test_the_message_says_what_to_add(tmp_path: Path) -> None:
    project = Project(tmp_path)
    path = tmp_path / "tests" / "test_tmux.py"
    [finding] = check_source(project, path, "tests/test_tmux.py", SOURCE,
                             [XdistGroupWithoutLoadgroup])  # fmt: skip
    assert (finding.code, finding.line, finding.col, finding.message) == (
        "TG404",
        4,
        2,
        "xdist_group is ignored unless pytest-xdist runs with --dist loadgroup: "
        "add it to addopts in the pytest configuration",
    )
