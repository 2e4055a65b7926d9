"""TG106 path-compared-as-text: which paths, which outputs, and what resolving does."""

from __future__ import annotations

from pathlib import Path

from truegreen.audit import registry
from truegreen.audit.base import Project
from truegreen.audit.engine import check_source


def flagged(source: str, tmp_path: Path) -> list[int]:
    path = tmp_path / "tests" / "test_x.py"
    rule = registry.rule("TG106")
    return [
        f.line for f in check_source(Project(tmp_path), path, "tests/test_x.py", source, [rule])
    ]


COMPARE = """\
import subprocess


def test_it(tmp_path, capsys):
    out = subprocess.check_output(["pwd"], cwd=tmp_path, text=True)
    assert {}
"""


def test_a_resolved_path_is_not_flagged(tmp_path: Path) -> None:
    """Ablation: replace `inner.attr in ("resolve", "realpath")` with `False` in
    `src/truegreen/audit/rules/path_as_text.py`."""
    assert flagged(COMPARE.format("out.strip() == str(tmp_path)"), tmp_path) == [6]  # premise
    assert flagged(COMPARE.format("out.strip() == str(tmp_path.resolve())"), tmp_path) == []


def test_text_the_test_process_printed_is_not_a_programs_output(tmp_path: Path) -> None:
    """Ablation: replace `inner.attr in OUTPUT_ATTRS` with `isinstance(inner.attr, str)` in
    `src/truegreen/audit/rules/path_as_text.py`."""
    assert flagged(COMPARE.format("str(tmp_path) in out"), tmp_path) == [6]  # premise
    assert flagged(COMPARE.format("str(tmp_path) in capsys.readouterr().out"), tmp_path) == []


def test_a_path_that_is_not_temporary_is_not_followed(tmp_path: Path) -> None:
    """Ablation: replace `inner.id in TMP_NAMES or (self._scope(), inner.id) in self.tmp` with
    `True` in `src/truegreen/audit/rules/path_as_text.py`."""
    assert flagged(COMPARE.format("str(tmp_path) in out"), tmp_path) == [6]  # premise
    assert flagged(COMPARE.format("str(project_dir) in out"), tmp_path) == []


def test_a_program_started_with_the_path_is_its_output_not_the_path(tmp_path: Path) -> None:
    """Ablation: replace `not is_text and not is_output and self._tmp(value)` with
    `self._tmp(value)` in `src/truegreen/audit/rules/path_as_text.py`."""
    assert flagged(COMPARE.format("out == str(tmp_path)"), tmp_path) == [6]
