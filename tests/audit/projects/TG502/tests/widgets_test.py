def test_core():
    assert True
