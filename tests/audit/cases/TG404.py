import pytest
from pytest import mark

pytestmark = pytest.mark.xdist_group("database")  # expect: TG404


@pytest.mark.xdist_group(name="tmux")  # expect: TG404
def test_grouped_through_the_mark():
    assert attach()


@mark.xdist_group("tmux")  # expect: TG404
def test_grouped_through_a_from_import():
    assert attach()


@pytest.mark.parametrize("group", ["xdist_group"])
def test_a_string_naming_the_mark_is_not_it(group):
    assert group == "xdist_group"


@pytest.mark.xdist_groups("tmux")
def test_a_look_alike_mark_is_not_it():
    assert attach()


def test_reads_the_marker_of_an_item(item):
    assert item.get_closest_marker("xdist_group") is None
