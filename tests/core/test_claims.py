"""Reading ablation records from test docstrings and comments."""

from __future__ import annotations

import pytest

from truegreen.core.claims import (
    Claim,
    StrayRecord,
    Unreadable,
    read_file_records,
    read_records,
)

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
    """Ablation: delete `x` in `y.py` (not a test: listed as never run)."""
'''


HELPER_LINE = SOURCE.splitlines().index("def helper():") + 1


def test_every_clause_is_one_claim_held_by_its_test() -> None:
    claims, prose, stray = read_records(SOURCE, "tests/test_x.py")
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
    assert stray == [StrayRecord("tests/test_x.py", HELPER_LINE, "function helper (not a test)")]


def test_a_coding_cookie_is_honoured() -> None:
    data = (
        b"# -*- coding: latin-1 -*-\ndef test_caf():\n"
        b'    """Ablation: delete `x = 1` in `caf\xe9.py`."""\n'
    )
    claims, *_ = read_file_records(data, "tests/test_x.py")
    assert claims == [Claim("tests/test_x.py::test_caf", "caf\u00e9.py", "x = 1", None, 2)]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b"def test_x(:\n    pass\n",
            "expected Python, found invalid syntax at line 1: 'def test_x(:'",
        ),
        (b"x = 1\n# caf\xe9\n", "expected UTF-8 text, found byte b'\\xe9' at offset 11"),
        (b"\xff\n", "expected UTF-8 text, found byte b'\\xff' at offset 0"),
        (b"# coding: bogus\n", "expected a known coding cookie, found unknown encoding: bogus"),
    ],
    ids=["syntax", "latin-1-without-cookie", "bad-first-line", "unknown-cookie"],
)
def test_a_file_that_is_not_python_source_says_what_is_wrong(data: bytes, message: str) -> None:
    with pytest.raises(Unreadable) as raised:
        read_file_records(data, "tests/test_x.py")
    assert str(raised.value) == message
