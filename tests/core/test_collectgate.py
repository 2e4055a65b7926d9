"""The collection-path gate's verdicts over hand-made collection records."""

from __future__ import annotations

from typing import Any

import pytest

from truegreen.core.collectgate import (
    Record,
    Verdict,
    defines_tests,
    is_test_file,
    named_as_test,
    verdict,
    verdicts,
)

ROOT = "/repo"
INI = {
    "testpaths": ["tests"],
    "python_files": ["test_*.py", "*_test.py"],
    "python_classes": ["Test"],
    "python_functions": ["test"],
    "norecursedirs": ["build", ".*"],
}


def record(**changes: Any) -> Record:
    fields: dict[str, Any] = {
        "rootdir": ROOT,
        "args": (f"{ROOT}/tests",),
        "args_source": "testpaths",
        "ini": INI,
        "options": {"ignore": [], "ignore_glob": [], "deselect": [], "keyword": "",
                    "markexpr": ""},
    }  # fmt: skip
    fields.update(changes)
    return Record(**fields)


def test_a_file_with_collected_items_has_no_reason() -> None:
    found = verdict("/repo/tests/test_a.py", record(collected={"/repo/tests/test_a.py": 3}))
    assert found == Verdict("/repo/tests/test_a.py", 3, None)


@pytest.mark.parametrize(
    ("path", "seen", "expected"),
    [
        (
            "/repo/tests/test_err.py",
            {"errors": {"/repo/tests/test_err.py": "ImportError: no module named x"}},
            "collection error: ImportError: no module named x",
        ),
        (
            "/repo/tests/sub/test_a.py",
            {"errors": {"/repo/tests/sub": "conftest.py: NameError: y"}},
            "collection error: conftest.py: NameError: y",
        ),
        (
            "/repo/tests/test_win.py",
            {"skipped": {"/repo/tests/test_win.py": "needs windows"}},
            "skipped at collection: needs windows",
        ),
        (
            "/repo/tests/test_slow.py",
            {"deselected": {"/repo/tests/test_slow.py": 2},
             "options": {"keyword": "fast", "markexpr": "not slow", "deselect": ["x"]}},
            "deselected: all 2 of its tests by -k 'fast' or -m 'not slow' or --deselect",
        ),
        (
            "/repo/tests/test_slow.py",
            {"deselected": {"/repo/tests/test_slow.py": 1}, "options": {}},
            "deselected: all 1 of its tests by a plugin's pytest_collection_modifyitems",
        ),
        (
            "/repo/tests/legacy/test_old.py",
            {"ignored": frozenset({"/repo/tests/legacy"}),
             "options": {"ignore": ["/repo/tests/legacy"]}},
            "ignored: --ignore tests/legacy",
        ),
        (
            "/repo/tests/test_gen.py",
            {"ignored": frozenset({"/repo/tests/test_gen.py"}),
             "options": {"ignore_glob": ["/repo/tests/*_gen.py", "/repo/tests/test_g*"]}},
            "ignored: --ignore-glob matches tests/test_gen.py",
        ),
        (
            "/repo/tests/build/test_b.py",
            {"ignored": frozenset({"/repo/tests/build"})},
            "ignored: norecursedirs 'build' matches tests/build",
        ),
        (
            "/repo/tests/test_skip.py",
            {"ignored": frozenset({"/repo/tests/test_skip.py"})},
            "ignored: tests/test_skip.py is excluded by collect_ignore or a pytest_ignore_collect"
            " hook",
        ),
        ("/repo/integration/test_c.py", {}, "outside testpaths (tests)"),
        (
            "/repo/tests/b/test_c.py",
            {"args": ("/repo/tests/a", "/repo/tests/x_test.py"), "args_source": "args"},
            "outside the paths the command names (tests/a tests/x_test.py)",
        ),
        (
            "/elsewhere/tests/test_c.py",
            {"args": ("/repo",), "args_source": "invocation_dir"},
            "outside the directory pytest was started in (.)",
        ),
        (
            "/repo/tests/check_b.py",
            {"visited": frozenset({"/repo/tests/check_b.py"})},
            "misnamed: the name does not match python_files (test_*.py *_test.py)",
        ),
        (
            "/repo/tests/test_helpers.py",
            {"visited": frozenset({"/repo/tests/test_helpers.py"}),
             "files": frozenset({"/repo/tests/test_helpers.py"})},
            "collects no tests: no function matches python_functions (test) and no class"
            " python_classes (Test)",
        ),
        ("/repo/tests/test_lost.py", {}, "never reached by the collection"),
    ],
)  # fmt: skip
def test_a_file_that_collects_nothing_is_given_its_reason(
    path: str, seen: dict[str, Any], expected: str
) -> None:
    assert verdict(path, record(**seen)) == Verdict(path, 0, expected)


def test_an_error_wins_over_the_other_reasons_and_verdicts_are_sorted() -> None:
    seen = record(
        errors={"/repo/tests/test_b.py": "SyntaxError"},
        deselected={"/repo/tests/test_b.py": 1},
        collected={"/repo/tests/test_a.py": 1},
    )
    assert verdicts(["/repo/tests/test_b.py", "/repo/tests/test_a.py"], seen) == [
        Verdict("/repo/tests/test_a.py", 1, None),
        Verdict("/repo/tests/test_b.py", 0, "collection error: SyntaxError"),
    ]


@pytest.mark.parametrize(
    ("path", "patterns", "expected"),
    [
        ("/r/tests/test_a.py", (), True),
        ("/r/tests/a_test.py", (), True),
        ("/r/tests/check_a.py", (), False),
        ("/r/tests/check_a.py", ("check_*.py",), True),
        ("/r/tests/unit/spec.py", ("unit/*.py",), True),
        ("/r/tests/other/spec.py", ("unit/*.py",), False),
        ("/r/tests/testing.py", (), False),
    ],
)
def test_a_name_makes_a_test_by_the_defaults_or_python_files(
    path: str, patterns: tuple[str, ...], expected: bool
) -> None:
    assert named_as_test(path, patterns) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def test_x():\n    pass\n", True),
        ("async def test_x():\n    pass\n", True),
        ("class TestThing:\n    pass\n", True),
        ("def helper():\n    def test_inner(): pass\n", False),
        ("def make_test():\n    pass\n", False),
        ("def test_(:\n", False),
    ],
)
def test_a_module_defines_tests_by_its_top_level_names(source: str, expected: bool) -> None:
    assert defines_tests(source) == expected


def test_a_misnamed_module_counts_as_a_test_file_only_where_tests_live() -> None:
    tests = "def test_x():\n    pass\n"
    helpers = "def make_user():\n    pass\n"
    assert is_test_file("/repo/tests/check_x.py", tests, record())
    assert is_test_file("/repo/pkg/test/check_x.py", tests, record())
    assert not is_test_file("/repo/src/check_x.py", tests, record())
    assert not is_test_file("/repo/tests/helpers.py", helpers, record())
    assert not is_test_file("/repo/tests/conftest.py", tests, record())
    assert not is_test_file("/repo/tests/test_data.json", tests, record())
    assert is_test_file("/repo/src/test_x.py", helpers, record())
