"""Negative tests from before the project wrote Ablation: records."""

import pytest
from greeter import greet


def test_a_tab_is_refused():
    with pytest.raises(ValueError, match="one line"):
        greet("Ada\tEve")


def test_a_missing_name_is_refused():
    try:
        greet(None)
    except Exception:
        return
    raise AssertionError("greet(None) returned")
