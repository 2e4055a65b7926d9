"""TG105 no-assertion: helpers, fixtures and the conftest chain, over its fixture project."""

from __future__ import annotations

from tests.audit.rules.harness import audit, marked_and_found, project


def flagged(source: str, relpath: str = "tests/unit/test_x.py") -> list[str]:
    return [f.message for f in audit(project("TG105"), "TG105", relpath, source)]


def test_it_flags_exactly_the_marked_tests() -> None:
    marked, found = marked_and_found(project("TG105"), "TG105")
    assert marked, "the fixture project marks no line"
    assert found == marked


def test_it_says_what_is_missing() -> None:
    expected = [
        "test_it asserts nothing: assert the outcome it is named for (or call a helper that does)"
    ]
    assert flagged("def test_it():\n    print(1)\n") == expected


def test_it_follows_a_helper_of_the_conftest_chain() -> None:
    """Ablation: replace `conftest.is_file()` with `False` in `src/truegreen/audit/asserting.py`."""
    assert flagged("def test_it():\n    build_cart()\n") != []  # premise: a non-asserting one
    assert flagged("def test_it():\n    near_helper([1])\n") == []


def test_it_counts_a_requested_fixture_that_asserts() -> None:
    """Ablation: replace `found[1] is not function` with `False` in
    `src/truegreen/audit/asserting.py`."""
    assert flagged("def test_it(cart):\n    print(cart)\n") != []  # premise
    assert flagged("def test_it(verified_cart):\n    print(verified_cart)\n") == []


def test_it_follows_a_helper_imported_from_beside_the_test() -> None:
    """Ablation: replace `self._find(path, module)` with `[]` in
    `src/truegreen/audit/asserting.py`."""
    source = "from .helpers import {0}\n\n\ndef test_it():\n    {0}([1], 1)\n"
    assert flagged(source.format("compute")) != []  # premise
    assert flagged(source.format("confirm_total")) == []


def test_it_follows_a_helper_of_the_same_module() -> None:
    """Ablation: replace `found is not None and self.asserts(*found)` with `False` in
    `src/truegreen/audit/asserting.py`."""
    helper = "def {0}():\n    {1}\n\n\ndef test_it():\n    {0}()\n"
    assert flagged(helper.format("prepare", "return 1")) != []  # premise
    assert flagged(helper.format("prepare", "assert 1")) == []


def test_it_follows_a_method_called_through_self() -> None:
    """Ablation: replace `self._method(summary, function.cls, name[5:], set())` with `None` in
    `src/truegreen/audit/asserting.py`."""
    cls = "class TestIt:\n    def test_it(self):\n        self.ready()\n\n    def ready(self):\n"
    assert flagged(cls + "        return 1\n") != []  # premise
    assert flagged(cls + "        assert 1\n") == []


def test_it_counts_a_call_named_like_a_check() -> None:
    """Ablation: replace `CHECKING.match(last)` with `None` in
    `src/truegreen/audit/asserting.py`."""
    assert flagged("def test_it(mock):\n    mock.called_once()\n") != []  # premise
    assert flagged("def test_it(mock):\n    mock.assert_called_once()\n") == []


def test_it_counts_pytesters_line_matchers() -> None:
    """Ablation: replace `last in LINE_MATCHERS` with `False` in
    `src/truegreen/audit/asserting.py`."""
    run = "def test_it(pytester):\n    pytester.runpytest().stdout.{}(['*passed*'])\n"
    assert flagged(run.format("str")) != []  # premise
    assert flagged(run.format("fnmatch_lines")) == []


def test_it_leaves_an_unconditional_skip_alone() -> None:
    """Ablation: replace `self._concludes(test)` with `False` in
    `src/truegreen/audit/rules/no_assertion.py`."""
    assert flagged("def test_it():\n    print('skip')\n") != []  # premise
    assert flagged("import pytest\n\n\ndef test_it():\n    pytest.skip('not here')\n") == []


def test_it_leaves_a_fixture_named_like_a_test_alone() -> None:
    """Ablation: replace `f.fixture is None` with `True` in
    `src/truegreen/audit/rules/no_assertion.py`."""
    assert flagged("def test_files():\n    return ['a.py']\n") != []  # premise
    fixture = "import pytest\n\n\n@pytest.fixture\ndef test_files():\n    return ['a.py']\n"
    assert flagged(fixture) == []


def test_it_leaves_methods_of_other_classes_alone() -> None:
    """Ablation: replace `self.ctx.project.naming.test_class(node.name)` with `True` in
    `src/truegreen/audit/rules/no_assertion.py`."""
    method = "    def test_it(self):\n        print(1)\n"
    assert flagged("class TestIt:\n" + method) != []  # premise
    assert flagged("class Helper:\n" + method) == []


def test_it_counts_a_test_of_nothing_but_imports_as_a_check() -> None:
    """An ImportError fails it: the import is what it checks.

    Ablation: replace `_imports_only(test.node)` with `False` in
    `src/truegreen/audit/rules/no_assertion.py`."""
    assert flagged("def test_it():\n    import json\n    json.dumps(1)\n") != []  # premise
    assert flagged('def test_it():\n    """Imports."""\n    import json\n') == []


def test_it_counts_an_attribute_access_statement_as_a_check() -> None:
    """An AttributeError fails it: the attribute existing is what it checks.

    Ablation: replace `looks_up(node.value)` with `False` in
    `src/truegreen/audit/rules/no_assertion.py`."""
    assert flagged("def test_it(app):\n    getattr(app, 'run', None)\n") != []  # premise
    assert flagged("def test_it(app):\n    app.run\n") == []
    assert flagged("def test_it(app):\n    getattr(app, 'run')\n") == []


def test_it_counts_warnings_turned_into_errors_as_a_check() -> None:
    """Ablation: replace `_action(node) == "error"` with `False` in
    `src/truegreen/audit/asserting.py`."""
    run = "import warnings\n\n\ndef test_it():\n    warnings.simplefilter({})\n    emit()\n"
    assert flagged(run.format("'ignore'")) != []  # premise
    assert flagged(run.format("'error'")) == []
    assert flagged(run.format("action='error'")) == []


def test_a_test_named_for_not_raising_is_not_flagged() -> None:
    """Ablation: replace `NOT_RAISING_NAME.search(snake)` with `None` in
    `src/truegreen/audit/rules/no_assertion.py`."""
    assert flagged("def test_reset():\n    reset()\n") != []  # premise
    assert flagged("def test_reset_shouldnt_raise():\n    reset()\n") == []
    assert flagged("def testResetDoesNotRaise():\n    reset()\n") == []


def test_a_test_whose_docstring_says_nothing_raises_is_not_flagged() -> None:
    """Ablation: replace `NOT_RAISING_TEXT.search(ast.get_docstring(node) or "")` with `None`
    in `src/truegreen/audit/rules/no_assertion.py`."""
    source = 'def test_reset():\n    """{}"""\n    reset()\n'
    assert flagged(source.format("Resets the stream.")) != []  # premise
    assert flagged(source.format("Resetting a closed stream does not raise.")) == []


def test_a_test_whose_comment_says_nothing_raises_is_not_flagged() -> None:
    """Ablation: replace `any(NOT_RAISING_TEXT.search(line.partition("#")[2]) for line in
    lines)` with `False` in `src/truegreen/audit/rules/no_assertion.py`."""
    source = "def test_copy(c):\n    copy(c)  # {}\n"
    assert flagged(source.format("raises an exception when broken")) != []  # premise
    assert flagged(source.format("just check it doesn't raise")) == []


PAIR = """\
import pytest


def test_accepts_an_int(v):
    v(None, 42)
{between}

def test_refuses_a_string(v):
    with pytest.raises(TypeError):
        {refused}(None, "42")
"""


def test_the_accepting_half_of_a_pair_is_not_flagged() -> None:
    """Ablation: replace `set(self._called_under_raises(sibling))` with `set()` in
    `src/truegreen/audit/rules/no_assertion.py`."""
    assert flagged(PAIR.format(between="", refused="w")) != []  # premise: another callee
    assert flagged(PAIR.format(between="", refused="v")) == []


def test_the_accepting_half_of_a_unittest_pair_is_not_flagged() -> None:
    """Ablation: replace `ctx.qualname(inner.args[1])` with `None` in
    `src/truegreen/audit/rules/no_assertion.py`."""
    source = (
        "import unittest\n\n\nclass TestParse(unittest.TestCase):\n"
        "    def test_accepts(self):\n        parse('1')\n\n"
        "    def test_refuses(self):\n        self.assertRaises(ValueError, {}, 'x')\n"
    )
    assert flagged(source.format("int")) != []  # premise
    assert flagged(source.format("parse")) == []


def test_a_refusing_test_far_away_does_not_pair() -> None:
    far = "".join(f"\n\ndef test_{n}():\n    assert 1\n" for n in "abc")
    assert flagged(PAIR.format(between=far, refused="v")) == [
        "test_accepts_an_int asserts nothing: assert the outcome it is named for (or call a "
        "helper that does)"
    ]
