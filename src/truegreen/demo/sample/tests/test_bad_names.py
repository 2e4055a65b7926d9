import pytest
from greeter import greet


def test_a_name_on_two_lines_is_refused():
    """A line break in a name would forge a line of the history.

    Ablation: delete `if not name.isprintable(): raise ValueError("one line")` in `greeter.py`.
    """
    with pytest.raises(ValueError, match="one line"):
        greet("Ada\nEve")


def test_an_empty_name_is_refused():
    """A name is required.

    Ablation: delete `if not name: raise ValueError("no name")` in `greeter.py`.
    """
    # Too broad: without its gate, greet("") still raises (an IndexError), and this passes.
    with pytest.raises(Exception):
        greet("")
