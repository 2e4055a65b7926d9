def test_bytes():
    assert "ÿş"
