"""The tracing run of ``truegreen ablate --discover``: which raise each passing test caught,
by sys.monitoring (3.12+) and by the sys.settrace fallback, with the same answer."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from truegreen.core.claims import Claim
from truegreen.runner.discovery import _split, trace

APP = """\
import json


def parse(raw):
    if raw is None:
        raise ValueError("missing")
    return raw.strip()


def check(level):
    if level < 0:
        raise ValueError("negative")
    else:
        if level > 9:
            raise ValueError("too high")
    return level


def load(text):
    return json.loads(text)


def lookup(table, key):
    return table[key]


def refuse():
    raise PermissionError("no")
"""

TESTS = '''\
import unittest

import pytest

from app.core import check, load, lookup, parse, refuse


def test_missing_is_refused():
    with pytest.raises(ValueError, match="missing"):
        parse(None)


def test_anything_goes_wrong():
    """It checks nothing specific: without the raise, None.strip() raises all the same."""
    with pytest.raises(Exception):
        parse(None)


def test_levels():
    pytest.raises(ValueError, check, -1)
    try:
        check(10)
    except ValueError as exc:
        assert "high" in str(exc)
    else:
        raise AssertionError("no error")


def test_bad_json():
    with pytest.raises(ValueError):
        load("{")


def test_missing_key():
    with pytest.raises(KeyError):
        lookup({}, "k")


def test_plain():
    assert parse(" a ") == "a"


def test_red():
    assert parse("a") == "b"


class TestRefusal(unittest.TestCase):
    def test_refuse(self):
        with self.assertRaises(PermissionError):
            refuse()
'''


def make_project(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (root / "app").mkdir()
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "core.py").write_text(APP)
    (root / "tests").mkdir()
    (root / "tests" / "test_core.py").write_text(TESTS)
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npythonpath = ["."]\n[tool.truegreen]\ntree-guard = "off"\n'
    )
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return make_project(tmp_path, monkeypatch)


# The caught exceptions of the fixture's passing tests: (test, type, innermost frame).
EXPECTED = {
    ("test_missing_is_refused", "ValueError", ("app/core.py", 6, "project")),
    ("test_anything_goes_wrong", "ValueError", ("app/core.py", 6, "project")),
    ("test_levels", "ValueError", ("app/core.py", 12, "project")),
    ("test_levels", "ValueError", ("app/core.py", 15, "project")),
    ("test_bad_json", "JSONDecodeError", ("json/decoder.py", 0, "stdlib")),
    ("test_missing_key", "KeyError", ("app/core.py", 24, "project")),
    ("TestRefusal::test_refuse", "PermissionError", ("app/core.py", 28, "project")),
}

METHODS = [
    pytest.param(True, "sys.settrace", id="settrace"),
    pytest.param(
        False,
        "sys.monitoring",
        id="monitoring",
        marks=pytest.mark.skipif(sys.version_info < (3, 12), reason="sys.monitoring is 3.12+"),
    ),
]


@pytest.mark.parametrize(("settrace", "method"), METHODS)
def test_each_caught_exception_is_traced_to_its_raise(
    project: Path, settrace: bool, method: str
) -> None:
    traced = trace(["tests"], 120, settrace=settrace)
    assert traced.method == method
    assert traced.passed == 7  # all but test_red, which caught nothing anyway
    found = set()
    for caught in traced.caught:
        inner = caught.frames[-1]
        path = inner.path
        if inner.kind == "project":
            path = Path(inner.path).relative_to(project.resolve()).as_posix()
        else:
            path = "/".join(Path(inner.path).parts[-2:])
        line = inner.line if inner.kind == "project" else 0
        found.add((caught.test.split("::", 1)[1], caught.type, (path, line, inner.kind)))
    assert found == EXPECTED
    for caught in traced.caught:  # the catching frame first: the test's, or pytest.raises's
        assert caught.frames[0].kind in ("test", "dependency")
        assert all(f.kind != "project" or "site-packages" not in f.path for f in caught.frames)


def test_the_cases_of_one_file_are_spread_over_the_batches_each_test_in_one() -> None:
    """The claims of one file's parametrized cases (which often loop alike) go to both
    workers, evenly; each test's claims stay together (its premise runs once).

    Ablation: replace `claim.test` with `claim.test.split("::")[0]` in
    `src/truegreen/runner/discovery.py`."""
    tests = [f"tests/test_parse.py::test_invalid[{n}]" for n in range(4)]
    tests.append("tests/test_parse.py::test_levels")
    claims = [(n, n, Claim(test, "app/core.py", f"raise E({n})", None, 0))
              for n, test in enumerate(tests, 1)]  # fmt: skip
    claims.append((6, 6, Claim(tests[-1], "app/core.py", "level > 9", "False", 0)))
    batches = _split(claims, 2)
    assert sorted(len(batch) for batch in batches) == [3, 3]
    for test in tests:  # each test's claims in one batch
        assert sum(any(c.test == test for _, _, c in batch) for batch in batches) == 1
    assert sorted(n for batch in batches for n, _, _ in batch) == [1, 2, 3, 4, 5, 6]
