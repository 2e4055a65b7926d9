from shop import total


def expect_total(prices, expected):
    assert total(prices) == expected


def confirm_total(prices, expected):
    expect_total(prices, expected)


def compute(prices):
    return total(prices)
