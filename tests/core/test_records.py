"""Reading ablation records from test docstrings and comments."""

from __future__ import annotations

from truegreen.core.records import Claim, read_records

SOURCE = '''
def test_docstring():
    """Refused.

    Ablation: delete ``if block: raise WriteBlocked(message)`` in
    ``src/app/writes.py``: the file appears. Restored.
    """


def test_plural():
    """Ablations: replace `x > 1` with `x >= 1` in `app.py`; deleting `return None` from
    `app.py`."""


class TestThing:
    def test_comment(self):
        # Ablation A1: delete `cache.clear()` in `app/cache.py`.
        pass

    def test_prose(self):
        """Ablation target: we removed the guard and watched it fail."""


def helper():
    """Ablation: delete `x` in `y.py` (not a test: ignored)."""
'''


def test_every_clause_is_one_claim_held_by_its_test() -> None:
    claims, prose = read_records(SOURCE, "tests/test_x.py")
    assert claims == [
        Claim("tests/test_x.py::test_docstring", "src/app/writes.py",
              "if block: raise WriteBlocked(message)", None, 2),
        Claim("tests/test_x.py::test_plural", "app.py", "return None", None, 10),
        Claim("tests/test_x.py::test_plural", "app.py", "x > 1", "x >= 1", 10),
        Claim("tests/test_x.py::TestThing::test_comment", "app/cache.py", "cache.clear()",
              None, 16),
    ]  # fmt: skip
    assert [(p.test, p.text) for p in prose] == [
        ("tests/test_x.py::TestThing::test_prose", "we removed the guard and watched it fail.")
    ]
