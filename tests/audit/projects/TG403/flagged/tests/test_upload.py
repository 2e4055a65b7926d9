def test_upload():
    assert True
