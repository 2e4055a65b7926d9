import unittest
from unittest import mock

import pytest
from pytest import raises


def test_calls_and_checks_nothing(tmp_path):  # expect: TG105
    (tmp_path / "report.csv").write_text("name,total\n")


def test_is_a_placeholder():  # expect: TG105
    pass


async def test_awaits_and_checks_nothing(client):  # expect: TG105
    await client.fetch()


def test_compares_without_asserting(value):  # expect: TG105
    value == 3


def test_calls_a_helper_that_does_not_assert():  # expect: TG105
    build_report()


def test_asks_for_a_fixture_that_does_not_assert(database):  # expect: TG105
    database.insert(1)


def test_skips_only_on_a_condition(tmp_path):  # expect: TG105
    if not tmp_path.exists():
        pytest.skip("no tmp")
    build_report()


def test_recurses_into_a_helper_cycle():  # expect: TG105
    ping()


def test_asserts():
    assert build_report() == "report"


def test_expects_an_error():
    with pytest.raises(ValueError):
        int("x")


def test_expects_an_error_through_a_from_import():
    with raises(ValueError):
        int("x")


def test_expects_a_warning():
    with pytest.warns(UserWarning):
        emit()


def test_expects_a_deprecation():
    with pytest.deprecated_call():
        emit()


def test_fails_explicitly(value):
    if value != 3:
        pytest.fail("not three")


def test_raises_on_a_mismatch(value):
    if value != 3:
        raise AssertionError(value)


def test_checks_a_mock():
    callback = mock.Mock()
    callback(1)
    callback.assert_called_once_with(1)


def test_matches_output(pytester):
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["*1 passed*"])


def test_matches_no_line(pytester):
    pytester.runpytest().stdout.no_fnmatch_line("*error*")


def test_reads_outcomes(pytester):
    pytester.runpytest().assert_outcomes(passed=1)


def test_reads_the_inline_outcome(pytester):
    pytester.inline_run().assertoutcome(passed=1)


def test_calls_a_checking_helper_by_name(frame):
    check_frame(frame)


def test_calls_a_verifier(client):
    client.verify()


def test_calls_a_helper_that_asserts():
    assert_report_is_valid()


def test_calls_a_helper_through_another():
    run_and_validate()


def test_asks_for_a_fixture_that_asserts(server):
    server.send("ping")


def test_asks_for_a_renamed_fixture_that_asserts(started):
    started.send("ping")


@pytest.mark.usefixtures("server")
def test_uses_a_fixture_that_asserts():
    build_report()


def test_asserts_in_a_nested_function():
    def inner():
        assert build_report()

    inner()


@pytest.mark.xfail(raises=ZeroDivisionError, strict=True)
def test_expects_an_error_through_its_mark():
    build_report() / 0


@pytest.mark.xfail(reason="known bug")
def test_is_only_marked_xfail():  # expect: TG105
    build_report()


def test_measures_a_build(benchmark):
    benchmark(build_report)


def test_skips_unconditionally():
    pytest.skip("not on this platform")


def test_xfails_unconditionally():
    pytest.xfail("known bug")


def build_report():
    return "report"


def emit():
    return None


def check_frame(frame):
    return frame


def assert_report_is_valid():
    assert build_report()


def validate(report):
    assert report


def run_and_validate():
    validate(build_report())


def ping():
    pong()


def pong():
    ping()


@pytest.fixture
def database():
    return {}


@pytest.fixture
def server():
    server = object()
    assert server is not None
    return server


@pytest.fixture(name="started")
def started_server():
    validate(object())
    return object()


class TestInAClass:
    def test_checks_nothing(self):  # expect: TG105
        self.prepare()

    def test_asserts_through_a_method(self):
        self.check_it()

    def test_asserts_through_a_named_method(self):
        self.ready()

    def test_asserts_through_an_inherited_method(self):
        self.confirm()

    @pytest.fixture
    def test_files(self):
        return ["a.py"]

    def prepare(self):
        return 1

    def check_it(self):
        return 1

    def ready(self):
        assert self.prepare() == 1

    def confirm(self):
        self.ready()


class Helper:
    def test_not_a_test_class(self):
        build_report()


class ReportCase(unittest.TestCase):
    def test_checks_nothing(self):  # expect: TG105
        build_report()

    def test_uses_unittest_asserts(self):
        self.assertEqual(build_report(), "report")

    def test_fails_explicitly(self):
        if build_report() != "report":
            self.fail("wrong report")


def helper_named_test_like():
    build_report()


def test_imports_a_module():
    """The module imports."""
    import json  # noqa: F401
    from os import path  # noqa: F401


def test_imports_and_calls():  # expect: TG105
    import json

    json.dumps({})


def test_accesses_an_attribute():
    pytest.mark.skipif


def test_gets_attributes_by_name(names):
    for name in names:
        getattr(pytest, name)


def test_gets_an_attribute_with_a_default(name):  # expect: TG105
    getattr(pytest, name, None)


def test_turns_warnings_into_errors():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        emit()


def test_filters_warnings_by_keyword():
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings(action="error", category=DeprecationWarning)
        emit()


def test_ignores_warnings():  # expect: TG105
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        emit()


def test_reset_shouldnt_raise_on_a_closed_stream():
    build_report()


def testDoesNotRaiseOnAnEmptyReport():
    build_report()


def test_copies_a_frozen_report():
    build_report()  # just check it doesn't raise


def test_builds_an_empty_report():
    """Building an empty report should not raise."""
    build_report()


def test_raises_later():  # expect: TG105
    build_report()  # raises an exception once the report is gone


def test_no_errors_reported():
    build_report()


def test_validator_accepts_an_int():
    v = instance_of(int)
    v(None, 42)


def test_validator_refuses_a_string():
    v = instance_of(int)
    with pytest.raises(TypeError):
        v(None, "42")


def test_calls_something_else_beside_a_refusing_test():  # expect: TG105
    emit()


class TestParser(unittest.TestCase):
    def test_accepts_a_number(self):
        parse("1")

    def test_refuses_a_word(self):
        self.assertRaises(ValueError, parse, "x")


def instance_of(kind):
    return lambda instance, value: isinstance(value, kind)


def parse(text):
    return int(text)
