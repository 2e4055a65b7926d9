import flaky as flaky_package
import pytest
from flaky import flaky
from pytest import mark


@pytest.mark.flaky(reruns=2)  # expect: TG403
def test_reruns_through_the_mark():
    assert upload()


@mark.flaky  # expect: TG403
def test_reruns_through_a_from_import():
    assert upload()


@pytest.mark.rerun(times=3)  # expect: TG403
def test_reruns_through_a_rerun_mark():
    assert upload()


@flaky(max_runs=3)  # expect: TG403
def test_reruns_through_the_flaky_package():
    assert upload()


@flaky_package.flaky  # expect: TG403
def test_reruns_through_the_package_attribute():
    assert upload()


pytestmark = [pytest.mark.flaky(retries=2)]  # expect: TG403


def test_adds_the_mark_at_run_time(request):
    request.node.add_marker(pytest.mark.flaky(reruns=1))  # expect: TG403


@pytest.mark.slow
def test_other_marks_are_fine():
    assert upload()


def test_a_fixture_named_flaky_is_not_the_plugin(flaky_server):
    assert flaky_server.is_flaky


def test_a_string_about_flakes_is_not_a_mark():
    assert "pytest.mark.flaky" in describe()


def test_a_mark_named_like_it_is_not_it():
    assert pytest.mark.flaky_network is not None
