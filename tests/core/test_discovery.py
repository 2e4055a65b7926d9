"""Claims derived from a caught exception, and records written into a test's docstring."""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

import pytest

from truegreen.core.claims import Claim, read_records
from truegreen.core.discovery import (
    DEPENDENCY,
    EARLY_CONTINUE,
    EARLY_RETURN,
    PROJECT,
    STDLIB,
    TEST,
    Caught,
    Derived,
    Frame,
    NotWritten,
    add_records,
    asserts_a_falsy_result,
    catching_functions,
    derive,
    early_continues,
    early_returns,
    is_test_path,
    mentioned,
    switched,
)

ROOT = "/p"
SOURCE = """\
def parse(raw):
    if raw is None:
        raise ValueError("missing")
    elif raw == "":
        return None
    else:
        raise TypeError("not None")


def twice(x):
    if x is None:
        raise KeyError(x)
    if x is None:
        raise KeyError(x)


def loud():
    raise RuntimeError("always")


def index(t):
    return t[0]


def positive(n):
    if n < 0:
        raise ValueError("negative")
    return n


def other(n):
    if n > 9:
        raise ValueError("negative")
    else:
        raise ValueError("negative")
"""


def _derive(line: int, kind: str = PROJECT, path: str = "/p/app/core.py", source: str = SOURCE):
    frames = (Frame("/p/tests/test_x.py", 3, TEST), Frame(path, line, kind))
    caught = Caught("tests/test_x.py::test_x", "ValueError", frames)

    def read(wanted: str) -> Optional[str]:
        return source if wanted == "/p/app/core.py" else None

    return derive(caught, read, ROOT)


def test_a_raise_in_an_if_without_else_replaces_its_condition() -> None:
    found = _derive(27)
    assert found.claim == Claim("tests/test_x.py::test_x", "app/core.py", "n < 0", "False", 0)
    assert (found.where, found.raise_text) == ("app/core.py:27", 'raise ValueError("negative")')


@pytest.mark.parametrize(("line", "raised"), [(3, 'raise ValueError("missing")'),
                                              (7, 'raise TypeError("not None")')],
                         ids=["if-with-else", "in-the-else"])  # fmt: skip
def test_a_raise_whose_guard_would_divert_to_another_branch_is_deleted(
    line: int, raised: str
) -> None:
    """The guard made False (or True) would run the other branch, which may raise too.

    Ablation: replace `guarded and branch == "body" and not getattr(parent, "orelse", None)`
    with `guarded` in `src/truegreen/core/discovery.py`."""
    assert "else:" in SOURCE.split("def twice")[0]  # premise: parse's if has an else
    found = _derive(line)
    assert found.claim is not None
    assert (found.claim.snippet, found.claim.new) == (raised, None)


def test_a_raise_that_occurs_twice_falls_back_to_its_guard() -> None:
    found = _derive(33)
    assert found.claim is not None
    assert (found.claim.snippet, found.claim.new) == ("n > 9", "False")
    found = _derive(35)
    assert found.claim is not None
    assert (found.claim.snippet, found.claim.new) == ("n > 9", "True")


def test_an_unconditional_raise_is_deleted() -> None:
    found = _derive(18)
    assert found.claim is not None
    assert (found.claim.snippet, found.claim.new) == ('raise RuntimeError("always")', None)


def test_a_guard_and_raise_that_occur_twice_give_no_claim_and_say_why() -> None:
    """Ablation: replace `count == 1 and quotable(text)` with `quotable(text)` in
    `src/truegreen/core/discovery.py`."""
    assert SOURCE.count("if x is None:\n        raise KeyError(x)") == 2  # premise: twice
    found = _derive(12)
    assert found.claim is None
    assert found.why == (
        "no exactly-once anchor at app/core.py:12: the guard `x is None` occurs 2 times; "
        "`raise KeyError(x)` occurs 2 times"
    )


@pytest.mark.parametrize(
    ("line", "kind", "path", "why"),
    [
        (22, PROJECT, "/p/app/core.py",
         "ValueError not raised by a raise statement: app/core.py:22 `return t[0]`"),
        (353, STDLIB, "/usr/lib/python3.11/json/decoder.py",
         "ValueError raised in the standard library (json/decoder.py:353), called from "
         "app/core.py:9"),
        (5, DEPENDENCY, "/v/lib/python3.11/site-packages/yaml/parser.py",
         "ValueError raised in a dependency (yaml/parser.py:5), called from app/core.py:9"),
        (322, STDLIB, "<frozen codecs>",
         "ValueError raised in the standard library (<frozen codecs>:322), called from "
         "app/core.py:9"),
    ],
    ids=["subscript", "stdlib", "dependency", "frozen"],
)  # fmt: skip
def test_an_exception_not_raised_by_a_project_raise_gives_no_claim(
    line: int, kind: str, path: str, why: str
) -> None:
    """Ablation: replace `not isinstance(statement, ast.Raise)` with `False` in
    `src/truegreen/core/discovery.py`."""
    frames = (Frame("/p/tests/test_x.py", 3, TEST), Frame("/p/app/core.py", 9, PROJECT))
    if kind != PROJECT:
        frames += (Frame(path, line, kind),)
    else:
        frames = (frames[0], Frame(path, line, kind))
    caught = Caught("tests/test_x.py::test_x", "ValueError", frames)
    found = derive(caught, lambda wanted: SOURCE, ROOT)
    assert found.claim is None
    assert found.why == why


def test_an_exception_of_the_test_itself_gives_no_claim() -> None:
    caught = Caught(
        "tests/test_x.py::test_x", "ValueError", (Frame("/p/tests/test_x.py", 4, TEST),)
    )
    found = derive(caught, lambda wanted: SOURCE, ROOT)
    assert found.claim is None
    assert found.why == (
        "ValueError raised in the test's own code or by a builtin it called (tests/test_x.py:4)"
    )


EARLY = """\
def find(table, key):
    if key not in table:
        return None
    return table[key]


def pick(table, key):
    if key in table:
        return table[key]
    else:
        return None


def first(items):
    for item in items:
        if item:
            return item
"""


def test_an_early_out_return_is_only_the_return_of_an_if_with_no_else() -> None:
    """`if ...: return` with no `else` is an early-out; the returns of an `if`/`else` are
    the function's two answers, not an early-out.

    Ablation: replace `not node.orelse` with `True` in `src/truegreen/core/discovery.py`."""
    assert "    else:\n        return None" in EARLY  # premise: pick's if has an else
    assert sorted(early_returns(EARLY)) == [3, 17]


def _took(line: int, source: str = EARLY) -> Derived:
    caught = Caught(
        "tests/test_x.py::test_x", EARLY_RETURN, (Frame("/p/app/core.py", line, PROJECT),)
    )
    return derive(caught, lambda wanted: source, ROOT)


def test_an_early_return_taken_makes_its_guard_false() -> None:
    found = _took(3)
    assert found.claim == Claim(
        "tests/test_x.py::test_x", "app/core.py", "key not in table", "False", 0
    )
    assert (found.where, found.raise_text) == ("app/core.py:3", "return None")


def test_a_return_that_is_not_an_early_out_gives_no_claim() -> None:
    """Ablation: replace `parent is None or not _early_out(parent)` with `parent is None` in
    `src/truegreen/core/discovery.py`."""
    assert 11 not in early_returns(EARLY)  # premise: pick's `return None` is in an else
    found = _took(11)
    assert found.claim is None
    assert found.why == "app/core.py:11 is not an early-out return `return None`"


LOOPS = """\
def visible(names):
    found = []
    for name in names:
        if name.startswith("."):
            continue
        if not name: continue
        found.append(name)
    return found


def split(names):
    for name in names:
        if name:
            found = name
        else:
            continue
"""


def test_an_early_out_continue_is_the_continue_of_an_if_with_no_else_on_its_own_line() -> None:
    """On the `if`'s line a trace cannot tell a continue taken from one passed by; in an
    `else` it is the branch's other answer.

    Ablation: replace `isinstance(n.body[0], kind)` with `True` in
    `src/truegreen/core/discovery.py`: the returns and continues are one list."""
    assert "if not name: continue" in LOOPS  # premise: a one-line early-out continue
    assert sorted(early_continues(LOOPS)) == [5]
    assert early_returns(LOOPS) == frozenset()


def test_an_early_continue_taken_makes_its_guard_false_and_no_other_continue_does() -> None:
    """Ablation: replace `isinstance(statement, statement_kind)` with `True` in
    `src/truegreen/core/discovery.py`."""
    took = Caught("tests/test_x.py::test_x", EARLY_CONTINUE, (Frame("/p/app/core.py", 5, PROJECT),))
    found = derive(took, lambda wanted: LOOPS, ROOT)
    assert found.claim == Claim(
        "tests/test_x.py::test_x", "app/core.py", 'name.startswith(".")', "False", 0
    )
    assert (found.where, found.raise_text) == ("app/core.py:5", "continue")
    # line 7 is `found.append(name)`, a statement of the loop that is no continue
    elsewhere = Caught(took.test, EARLY_CONTINUE, (Frame("/p/app/core.py", 7, PROJECT),))
    assert "found.append" in LOOPS.splitlines()[6]  # premise: line 7
    found = derive(elsewhere, lambda wanted: LOOPS, ROOT)
    assert found.claim is None
    assert found.why == "app/core.py:7 is not an early-out continue `found.append(name)`"
    # the kinds do not mix: a continue's line reported as an early return is no claim
    mixed = Caught(took.test, EARLY_RETURN, took.frames)
    found = derive(mixed, lambda wanted: LOOPS, ROOT)
    assert found.claim is None
    assert found.why == "app/core.py:5 is not an early-out return `continue`"


FALSY = """\
def test_none():
    assert find({}, "a") is None


def test_not():
    assert not lookup("")


@decorated
def test_false():
    assert check(1) is False


def test_equal():
    assert find({"a": 1}, "a") == 1


def test_not_a_name():
    found = find({}, "a")
    assert not found
"""


def test_a_test_asserting_a_falsy_call_result_is_found_and_no_other() -> None:
    """Ablation: replace `isinstance(test.operand, ast.Call)` with `True` in
    `src/truegreen/core/discovery.py`."""
    assert "assert not found" in FALSY  # premise: a `not` of a name, not of a call
    found = [line for line in (1, 5, 9, 14, 18) if asserts_a_falsy_result(FALSY, line)]
    assert found == [1, 5, 9]


def test_test_paths() -> None:
    for path in ("tests/helpers.py", "pkg/test_x.py", "conftest.py", "pkg/x_test.py"):
        assert is_test_path(path), path
    assert not is_test_path("src/pkg/testing_tools.py")


# -- records ----------------------------------------------------------------------------


def _claims(source: str) -> list[Claim]:
    """The claims of a test file's records, without where the record stands."""
    return [replace(c, line=0) for c in read_records(source, "tests/test_x.py")[0]]


CLAIM = Claim("tests/test_x.py::test_x", "app/core.py", "raw is None", "False", 0)
RECORD = "Ablation: replace `raw is None` with `False` in `app/core.py`."


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            'def test_x():\n    """Proves it."""\n    assert 1\n',
            f'def test_x():\n    """Proves it.\n\n    {RECORD}\n    """\n    assert 1\n',
        ),
        (
            'def test_x():\n    """Proves it.\n\n    More.\n    """\n    assert 1\n',
            f'def test_x():\n    """Proves it.\n\n    More.\n\n    {RECORD}\n    """\n'
            "    assert 1\n",
        ),
        (
            "def test_x():\n    assert 1  # a comment\n",
            f'def test_x():\n    """{RECORD}"""\n    assert 1  # a comment\n',
        ),
        (
            'def test_x():\r\n    r"""Raw \\d."""\r\n    assert 1\r\n',
            f'def test_x():\r\n    r"""Raw \\d.\r\n\r\n    {RECORD}\r\n    """\r\n    assert 1\r\n',
        ),
    ],
    ids=["one-line-docstring", "closing-quotes-alone", "no-docstring", "crlf-raw"],
)
def test_a_record_is_added_to_the_docstring_and_nothing_else_changes(
    before: str, after: str
) -> None:
    prefix = "x = 1  # untouched\n\n\n"
    if "\r\n" in before:
        prefix = prefix.replace("\n", "\r\n")
    written = add_records(prefix + before, "tests/test_x.py", "test_x", [CLAIM])
    assert written == prefix + after
    assert _claims(written) == [CLAIM]


def test_a_method_and_a_backslash_in_a_snippet() -> None:
    source = 'class TestX:\n    def test_x(self):\n        """Doc."""\n'
    claim = Claim("tests/test_x.py::TestX::test_x", "a.py", 'raise E("a\\nb")', None, 0)
    written = add_records(source, "tests/test_x.py", "TestX::test_x", [claim])
    assert '        Ablation: delete `raise E("a\\\\nb")` in `a.py`.\n' in written
    assert _claims(written) == [claim]


def test_the_same_claim_of_two_parametrized_cases_is_written_once() -> None:
    """Ablation: replace `held.add((claim.path, claim.snippet, claim.new))` with `None` in
    `src/truegreen/core/discovery.py`."""
    cases = [replace(CLAIM, test=f"tests/test_x.py::test_x[{n}]") for n in (1, 2)]
    assert cases[0] != cases[1]  # premise: two claims, one anchor
    written = add_records('def test_x():\n    """Doc."""\n', "tests/test_x.py", "test_x", cases)
    assert written.count("Ablation:") == 1


def test_a_claim_the_test_already_records_is_not_added_again() -> None:
    """Ablation: replace `not wanted` with `False` in `src/truegreen/core/discovery.py`."""
    once = add_records('def test_x():\n    """Doc."""\n', "tests/test_x.py", "test_x", [CLAIM])
    assert once.count("Ablation:") == 1  # premise: the first write added it
    assert add_records(once, "tests/test_x.py", "test_x", [CLAIM]) == once


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("def test_x(): assert 1\n", "its body is on the line of its `def`"),
        ('def test_x():\n    "Doc."\n', "its docstring is not a triple-quoted string"),
        ("def test_y():\n    pass\n", "expected a test function, found none"),
    ],
    ids=["one-line-def", "single-quoted", "no-such-test"],
)
def test_a_record_that_cannot_be_written_safely_is_refused(source: str, why: str) -> None:
    """Ablation: replace `first.lineno == node.lineno` with `False` in
    `src/truegreen/core/discovery.py`."""
    assert "def test_" in source  # premise: a test file's source
    with pytest.raises(NotWritten) as caught:
        add_records(source, "tests/test_x.py", "test_x", [CLAIM])
    assert str(caught.value).endswith(why)


# -- switched mutants -------------------------------------------------------------------

SWITCHED = """\
def parse(raw, level):
    if raw is None:
        raise ValueError("missing")
    if level > 9: raise ValueError("high")
    if level < 0:
        raise ValueError(
            "negative"
        )
    return raw
"""


def _run(source: str, active: int, *args: object) -> object:
    """What ``parse(*args)`` gives with switch ``active`` on: its value or its exception."""
    import truegreen.guards.mutant as mutant

    namespace: dict[str, object] = {}
    exec(compile(source, "<switched>", "exec"), namespace)
    mutant.switch(active)
    try:
        return namespace["parse"](*args)  # type: ignore[operator]
    except ValueError as exc:
        return f"ValueError({exc})"
    finally:
        mutant.switch(0)


def test_switched_claims_run_as_the_file_until_one_is_switched_on() -> None:
    """Each placed claim is its own mutant under its switch, the file with none on; a
    statement that shares its line, or an anchor not exactly once, is left to run alone.

    Ablation: replace `f"if not {SWITCH}({number}): {new}"` with `new` in
    `src/truegreen/core/discovery.py`."""
    claims = [
        (1, Claim("", "m.py", "raw is None", "False", 0)),
        (2, Claim("", "m.py", 'raise ValueError("negative")', None, 0)),
        (3, Claim("", "m.py", 'raise ValueError("high")', None, 0)),  # shares its line
        (4, Claim("", "m.py", "raw", "None", 0)),  # not exactly once
    ]
    source, placed = switched(SWITCHED, claims)
    assert placed == [1, 2]
    assert _run(SWITCHED, 0, None, 1) == "ValueError(missing)"  # premise: the file refuses
    assert _run(SWITCHED, 0, "a", -1) == "ValueError(negative)"
    assert _run(source, 0, None, 1) == "ValueError(missing)"
    assert _run(source, 0, "a", -1) == "ValueError(negative)"
    assert _run(source, 0, "a", 10) == "ValueError(high)"
    assert _run(source, 1, None, 1) is None  # the guard made False
    assert _run(source, 1, "a", -1) == "ValueError(negative)"
    assert _run(source, 2, "a", -1) == "a"  # the raise deleted
    assert _run(source, 2, None, 1) == "ValueError(missing)"


def test_overlapping_anchors_are_not_both_switched() -> None:
    """Two claims on overlapping text cannot both be in one source: the second runs alone.

    Ablation: replace `any(start < e and s < end for s, e in edits)` with `False` in
    `src/truegreen/core/discovery.py`."""
    claims = [(1, Claim("", "m.py", "level < 0", "False", 0)),
              (2, Claim("", "m.py", "0", "1", 0))]  # fmt: skip
    source, placed = switched(SWITCHED.replace("level > 9", "level > 8"), claims)
    assert 1 in placed  # premise: the first is placed
    assert placed == [1]
    assert _run(source, 1, "a", -1) == "a"


def test_two_replacements_of_one_expression_nest() -> None:
    """A guard made False for one test and True for another: both in one source.

    Ablation: replace `same is not None and claim.new is not None and same[0][1] is not None`
    with `False` in `src/truegreen/core/discovery.py`."""
    claims = [(1, Claim("", "m.py", "raw is None", "False", 0)),
              (2, Claim("", "m.py", "raw is None", "True", 0))]  # fmt: skip
    source, placed = switched(SWITCHED, claims)
    assert placed == [1, 2]
    assert _run(source, 0, "a", 1) == "a"  # premise: the file, with no switch on
    assert _run(source, 1, None, 1) is None
    assert _run(source, 2, "a", 1) == "ValueError(missing)"


CATCHING = """\
from contextlib import suppress

import pytest

try:  # at import, not in a test: not counted
    import yaml
except ImportError:
    yaml = None


@pytest.fixture
def expect_failure():
    def expect(function):
        try:
            function()
        except ValueError:
            return
        raise AssertionError("no error")

    return expect


def quietly(function):
    with open("x") as handle, suppress(KeyError):
        function(handle)


def called(function):
    pytest.raises(ValueError, function)


def watched(function):
    with pytest.raises(ValueError):
        function()
    with open("x"):
        pass
"""


def test_the_functions_that_catch_by_themselves_are_named_with_those_around_them() -> None:
    """Only code in a function counts; a `with pytest.raises` block is the contexts' to report,
    its function form is pytest's own try below 8.4.

    Ablation: replace `isinstance(node, ast.ExceptHandler)` with `False` in
    `src/truegreen/core/discovery.py`."""
    assert "except ImportError" in CATCHING  # premise: module-level code catches too
    assert catching_functions(CATCHING) == {"expect_failure", "expect", "quietly", "called"}
    assert catching_functions("def f(:\n") is None
    assert catching_functions("def test_a():\n    assert 1\n") == frozenset()


def test_a_module_mentions_the_names_its_functions_use_and_the_fixtures_they_ask_for() -> None:
    source = "import m\n\nX = helper\n\n\ndef test_a(expect_failure):\n    m.check(1)\n"
    assert mentioned(source) == {"expect_failure", "m", "check"}  # not X's helper: at import
