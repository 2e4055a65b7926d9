"""Reading platforms markers from source, without importing it."""

from __future__ import annotations

from truegreen.core.lanes import read_markers
from truegreen.core.platforms import Marker


def test_decorators_module_marks_and_params_are_all_found() -> None:
    source = """
import pytest
from pytest import mark

pytestmark = [pytest.mark.platforms("posix")]

@mark.platforms("windows", arch="arm64")
def test_a(): ...

@pytest.mark.parametrize("x", [pytest.param(1, marks=pytest.mark.platforms("macos"))])
def test_b(x): ...
"""
    found = read_markers(source)
    assert set(found.markers) == {
        Marker(("posix",)),
        Marker(("windows",), ("arm64",)),
        Marker(("macos",)),
    }
    assert found.problems == ()


def test_an_unmarked_file_reaches_a_lane_only_with_all() -> None:
    found = read_markers("def test_x(): pass\n")
    assert not found.reaches("linux", unmarked=False)
    assert found.reaches("linux", unmarked=True)


def test_unreadable_and_wrong_markers_are_listed_everywhere_with_the_reason() -> None:
    dynamic = read_markers(
        "import pytest\nS='linux'\n@pytest.mark.platforms(S)\ndef t(): 0\n", "x.py"
    )
    wrong = read_markers("import pytest\n@pytest.mark.platforms('lnux')\ndef t(): 0\n", "y.py")
    broken = read_markers("def (:\n", "z.py")
    for found in (dynamic, wrong, broken):
        assert found.reaches("windows", unmarked=False)
    assert dynamic.problems == (
        "x.py:3: a platforms marker whose arguments are not literals: listed, since only "
        "running it can tell",
    )
    assert wrong.problems[0].startswith("y.py:2: platforms: expected one of linux")
    assert broken.problems[0].startswith("z.py:1: not valid Python")
