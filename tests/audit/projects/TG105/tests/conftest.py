import pytest

from shop import total


def check_total(prices, expected):
    assert total(prices) == expected


def build_cart():
    return [1, 2]


@pytest.fixture
def verified_cart():
    cart = build_cart()
    check_total(cart, 3)
    return cart


@pytest.fixture
def cart():
    return build_cart()
