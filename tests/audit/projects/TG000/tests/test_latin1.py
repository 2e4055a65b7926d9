# -*- coding: latin-1 -*-
def test_café():
    assert "café"
