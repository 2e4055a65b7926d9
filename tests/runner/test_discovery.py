"""The tracing run of ``truegreen ablate --discover``: which raise each passing test caught,
by sys.monitoring (3.12+) and by the sys.settrace fallback, with the same answer."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from truegreen.core.claims import Claim
from truegreen.runner.discovery import Trace, _split, trace

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
    pytest.param("settrace", "sys.settrace", id="settrace"),
    # the test module catches by itself (test_levels): every test of it by sys.settrace
    pytest.param("contexts", "sys.settrace", id="contexts"),
    pytest.param(
        "auto",
        "sys.monitoring",
        id="monitoring",
        marks=pytest.mark.skipif(sys.version_info < (3, 12), reason="sys.monitoring is 3.12+"),
    ),
]


@pytest.mark.parametrize(("how", "method"), METHODS)
def test_each_caught_exception_is_traced_to_its_raise(project: Path, how: str, method: str) -> None:
    traced = trace(["tests"], 120, method=how)
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


# Below 3.12, the tests that catch only through pytest.raises or assertRaises are watched at
# those contexts' __exit__; a module that catches by itself, or calls a helper that does, is
# traced by sys.settrace.
QUIET_TESTS = """\
import unittest

import pytest

from app.core import check, parse, refuse


def test_missing_is_refused():
    with pytest.raises(ValueError, match="missing"):
        parse(None)


def test_levels_in_a_group():
    with pytest.raises(ValueError):
        check(-1)


class TestRefusal(unittest.TestCase):
    def test_refuse(self):
        with self.assertRaises(PermissionError):
            refuse()

    def test_refuse_called(self):
        self.assertRaises(PermissionError, refuse)
"""

OWN_TESTS = """\
from app.core import check


def test_levels():
    try:
        check(10)
    except ValueError as exc:
        assert "high" in str(exc)
    else:
        raise AssertionError("no error")
"""

HELPED_TESTS = """\
from app.core import check


def test_levels_helped(expect_failure):
    expect_failure(check, -1)
"""

CONFTEST = """\
import pytest


@pytest.fixture
def expect_failure():
    def expect(function, *args):
        try:
            function(*args)
        except ValueError:
            return
        raise AssertionError("no error")

    return expect
"""


def caught_by_test(traced: Trace) -> set[tuple[str, str, int]]:
    """(test, exception type, line of the innermost frame) of each caught exception."""
    return {(c.test.split("::", 1)[1], c.type, c.frames[-1].line) for c in traced.caught}


def test_raises_contexts_see_what_sys_settrace_sees_and_only_the_catching_modules_are_traced(
    project: Path,
) -> None:
    """Ablation: delete `self._seen(exc, tb)` in `src/truegreen/plugin/discovery.py`.

    Ablation: replace `mentioned(source) & self._helpers()` with `frozenset()` in
    `src/truegreen/plugin/discovery.py`: the helper's catch goes unseen."""
    (project / "tests" / "test_core.py").unlink()
    (project / "tests" / "test_quiet.py").write_text(QUIET_TESTS)
    (project / "tests" / "test_own.py").write_text(OWN_TESTS)
    (project / "tests" / "test_helped.py").write_text(HELPED_TESTS)
    (project / "tests" / "conftest.py").write_text(CONFTEST)
    everything = trace(["tests"], 120, method="settrace")
    expected = {
        ("test_missing_is_refused", "ValueError", 6),
        ("test_levels_in_a_group", "ValueError", 12),
        ("TestRefusal::test_refuse", "PermissionError", 28),
        ("TestRefusal::test_refuse_called", "PermissionError", 28),
        ("test_levels", "ValueError", 15),
        ("test_levels_helped", "ValueError", 12),
    }
    assert caught_by_test(everything) == expected  # the premise: sys.settrace sees them all
    assert everything.method == "sys.settrace"

    watched = trace(["tests"], 120, method="contexts")
    assert caught_by_test(watched) == expected
    # the four quiet tests at the contexts; test_own.py's and test_helped.py's by sys.settrace
    assert watched.method == "raises contexts (4 test calls), sys.settrace (2 test calls)"
    by_test = {c.test: c.frames for c in watched.caught}
    assert by_test == {c.test: c.frames for c in everything.caught}


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
