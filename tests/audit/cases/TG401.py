import pytest
from pytest import mark

pytestmark = pytest.mark.xfail(reason="module-wide")  # expect: TG401


@pytest.mark.xfail  # expect: TG401
def test_bare_marker():
    assert False


@pytest.mark.xfail(reason="rounding bug")  # expect: TG401
def test_marker_with_a_reason():
    assert False


@mark.xfail(raises=ValueError)  # expect: TG401
def test_marker_imported_from_pytest():
    raise ValueError


@pytest.mark.xfail(strict=False, reason="upstream parser bug")  # expect: TG401
def test_explicitly_lenient():
    assert False


@pytest.mark.parametrize(
    "n",
    [
        1,
        pytest.param(2, marks=pytest.mark.xfail(reason="even")),  # expect: TG401
        pytest.param(3, marks=[pytest.mark.xfail]),  # expect: TG401
    ],
)
def test_params(n):
    assert n % 2


def test_adds_the_marker(request):
    request.node.add_marker(pytest.mark.xfail(reason="later"))  # expect: TG401


@pytest.mark.xfail(reason="the trace output drops a frame")  # expect: TG401
def test_a_reason_with_a_word_that_contains_race():
    assert False


@pytest.mark.xfail(reason="always fails on CRLF input")  # expect: TG401
def test_a_reason_that_says_always():
    assert False


# Look-alikes: strict markers, the imperative xfail, markers that never run.


@pytest.mark.xfail(strict=True, reason="rounding bug")
def test_strict_marker():
    assert False


@pytest.mark.xfail(run=False, reason="hangs")
def test_not_run():
    assert False


def test_imperative_xfail():
    pytest.xfail("not supported here")


STRICT = True


@pytest.mark.xfail(strict=STRICT, reason="decided elsewhere")
def test_strict_from_a_name():
    assert False


@pytest.mark.skip(reason="xfail is for known defects")
def test_skipped():
    pass


# An xfail for an intermittent failure: strict=True would fail the run whenever it passes.


@pytest.mark.xfail(reason="sometimes relative path results")
def test_fails_sometimes():
    assert False


@pytest.mark.xfail(strict=False, reason="Flaky on CI: a race in the file watcher")
def test_explicitly_lenient_for_a_flaky_failure():
    assert False


@pytest.mark.parametrize(
    "n",
    [pytest.param(1, marks=[pytest.mark.xfail(True, reason=f"#{410}: fails intermittently")])],
)
def test_param_fails_intermittently(n):
    assert n


def test_adds_a_marker_for_a_random_failure(request):
    request.node.add_marker(pytest.mark.xfail(reason="Occasionally times out, NOT ALWAYS"))


def test_a_result_named_xfail(report):
    assert report.xfail is False


@pytest.mark.xfail(strict=True)  # expect: TG401
def test_strict_without_a_reason():
    assert False


@pytest.mark.xfail(strict=True, raises=ValueError)  # expect: TG401
def test_strict_and_narrow_without_a_reason():
    raise ValueError


@pytest.mark.xfail(strict=True, reason="rounding bug #412")
def test_strict_with_a_reason():
    assert False


@pytest.mark.xfail("sys.platform == 'win32'", strict=True)
def test_strict_with_a_condition_as_its_reason():
    assert False


@pytest.mark.xfail(strict=STRICT)
def test_strictness_from_a_variable():
    assert False
