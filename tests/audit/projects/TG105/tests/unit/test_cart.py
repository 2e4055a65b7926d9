from shop import total

from .helpers import compute, confirm_total


def test_checks_through_the_root_conftest():
    check_total([1, 2], 3)


def test_checks_through_the_nearest_conftest():
    near_helper([1])


def test_asks_for_a_fixture_that_asserts(verified_cart):
    total(verified_cart)


def test_asks_for_a_fixture_that_asks_for_one_that_asserts(audited_cart):
    total(audited_cart)


def test_checks_through_an_imported_helper():
    confirm_total([1, 2], 3)


def test_asks_for_a_fixture_that_does_not_assert(cart):  # expect: TG105
    total(cart)


def test_calls_an_imported_helper_that_does_not_assert():  # expect: TG105
    compute([1, 2])


def test_calls_a_conftest_helper_that_does_not_assert():  # expect: TG105
    build_cart()
