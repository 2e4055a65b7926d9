import pytest


def near_helper(prices):
    assert prices


@pytest.fixture
def audited_cart(verified_cart):
    return verified_cart
