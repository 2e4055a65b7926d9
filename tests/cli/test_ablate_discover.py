"""truegreen ablate --discover over a fixture project: a sensitive negative test is killed, one
that checks nothing specific survives, the rest say why they have no claim; --write-records
writes the killed claims as records that ablate --records then finds killed."""

from __future__ import annotations

import difflib
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import snapshot_tree
from tests.runner.test_discovery import make_project
from truegreen.cli import main


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return make_project(tmp_path, monkeypatch)


def _sources(root: Path) -> dict[str, object]:
    return {k: v for k, v in snapshot_tree(root).items() if "__pycache__" not in k}


def test_discover_derives_runs_and_explains(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["ablate", "--discover", "tests", "-j", "2", "--format", "json"])
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert status == 1  # a claim survived
    assert document["passed"] == 7
    claims = {
        (c["test"].split("::", 1)[1], c["snippet"], c["new"], c["line"]): c["verdict"]
        for c in document["claims"]
    }
    assert claims == {
        ("test_missing_is_refused", "raw is None", "False", "app/core.py:6"): "killed",
        ("test_anything_goes_wrong", "raw is None", "False", "app/core.py:6"): "survived",
        ("test_levels", 'raise ValueError("negative")', None, "app/core.py:12"): "killed",
        ("test_levels", "level > 9", "False", "app/core.py:15"): "killed",
        ("TestRefusal::test_refuse", 'raise PermissionError("no")', None, "app/core.py:28"):
            "killed",
    }  # fmt: skip
    why = {  # the standard library's line numbers differ between Pythons
        d["test"].split("::", 1)[1]: re.sub(r"decoder\.py:\d+", "decoder.py:N", d["why"])
        for d in document["not_derivable"]
    }
    assert why == {
        "test_bad_json": "JSONDecodeError raised in the standard library (json/decoder.py:N),"
        " called from app/core.py:20",
        "test_missing_key": "KeyError not raised by a raise statement: app/core.py:24 "
        "`return table[key]`",
    }
    assert len(document["negative_tests"]) == 6
    assert "truegreen ablate --discover: 5 claims derived" in captured.err


def test_discover_writes_no_file_without_write_records(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verb itself writes nothing (what the caller's own pytest options write, such as
    CI's `--junitxml` in PYTEST_ADDOPTS, is theirs, so they are left out here).

    Ablation: replace `args.write_records` with `True` in
    `src/truegreen/cli/ablate_discover.py`."""
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    before = _sources(project)
    status = main(["ablate", "--discover", "tests/test_core.py", "-j", "2"])
    out = capsys.readouterr().out
    assert "killed" in out  # premise: there were killed claims a write would have recorded
    assert status == 1
    assert _sources(project) == before
    assert (
        "  tests/test_core.py::test_anything_goes_wrong: should fail without app/core.py:6 "
        '`raise ValueError("missing")` (replace `raw is None` with `False`)'
    ) in out.splitlines()
    assert out.splitlines()[-1] == (
        "6 negative tests (of 7 passing), 5 claims derived: 4 killed, 1 survived, "
        "2 caught exceptions with no claim"
    )


def test_written_records_are_killed_by_ablate_records(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tests = project / "tests" / "test_core.py"
    tests.chmod(0o640)
    before = tests.read_text()
    assert main(["ablate", "--discover", "tests", "--write-records", "-j", "2"]) == 1
    assert "wrote 4 records to tests/test_core.py" in capsys.readouterr().out
    after = tests.read_text()
    changes = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines()).get_opcodes()
    assert {op for op, *_ in changes} == {"equal", "insert"}  # lines added, none changed
    assert oct(tests.stat().st_mode & 0o777) == oct(0o640)
    assert [p.name for p in tests.parent.iterdir() if p.name.startswith(".")] == []
    assert main(["ablate", "--records", "tests/test_core.py", "-j", "2", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)["records"]
    assert [(r["test"].split("::", 1)[1], r["verdict"]) for r in records] == [
        ("test_missing_is_refused", "killed"),
        ("test_levels", "killed"),
        ("test_levels", "killed"),
        ("TestRefusal::test_refuse", "killed"),
    ]


def test_discover_usage_errors_are_one_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablations: delete `if args.discover is None: raise UsageError("truegreen ablate:
    --write-records goes with --discover")` in `src/truegreen/cli/ablate.py`; replace
    `args.records is not None or args.path or args.test or args.changed_since` with `False` in
    `src/truegreen/cli/ablate.py`."""
    assert os.path.isdir("tests")  # premise: a suite to discover in
    assert main(["ablate", "--write-records"]) == 2
    assert capsys.readouterr().err == (
        "truegreen: error: truegreen ablate: --write-records goes with --discover\n"
    )
    assert main(["ablate", "--discover", "tests", "--records", "tests"]) == 2
    assert capsys.readouterr().err == (
        "truegreen: error: truegreen ablate: expected --discover [PATHS] alone, found it with "
        "PATH, --test, --records or --changed-since\n"
    )


def test_a_tracing_run_that_passes_nothing_is_one_usage_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `not document["passed"]` with `False` in
    `src/truegreen/runner/discovery.py`."""
    (project / "tests" / "test_core.py").write_text("import no_such_module\n")
    assert not list(project.rglob("no_such_module*"))  # premise: the import cannot succeed
    assert main(["ablate", "--discover", "tests"]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == (
        "truegreen: error: truegreen ablate --discover: expected the tracing run to pass at "
        "least one test, found none (exit 2): ERROR tests/test_core.py"
    )


LOOPING_APP = """\
def count(text):
    i = 0
    while i < len(text):
        if text[i] == "!":
            raise ValueError("bang")
        else:
            i += 1
    return i


def check(n):
    if n < 0:
        raise ValueError("negative")
    return n
"""

LOOPING_TESTS = """\
import time

import pytest
from app.core import check, count


def test_bang_loops_without_the_raise():
    time.sleep(0.3)  # a wall-clock limit of seconds: the CPU limit comes first, however busy
    with pytest.raises(ValueError):
        count("a!")


def test_negative():
    with pytest.raises(ValueError, match="negative"):
        check(-1)
"""


def test_a_claim_that_loops_is_a_timeout_and_the_batch_goes_on(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a batch, an ablated run that never ends is interrupted as a timeout, soon (not
    after --run-timeout: by the CPU its call used), and the claims after it in the same
    process still get theirs.

    Ablation: replace `[CPU_SLOW, CPU_GRACE]` with `[0, 70]` in
    `src/truegreen/runner/discovery.py`."""
    (project / "app" / "core.py").write_text(LOOPING_APP)
    (project / "tests" / "test_core.py").write_text(LOOPING_TESTS)
    status = main(["ablate", "--discover", "tests", "-j", "1", "--run-timeout", "120",
                   "--format", "json"])  # fmt: skip
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert "2 claims batched, 0 alone" in captured.err  # premise: both in one process (-j 1)
    verdicts = {c["test"].split("::")[1]: (c["verdict"], c["seconds"]) for c in document["claims"]}
    assert set(verdicts) == {"test_bang_loops_without_the_raise", "test_negative"}
    assert verdicts["test_bang_loops_without_the_raise"][0] == "timeout"
    assert verdicts["test_bang_loops_without_the_raise"][1] < 60
    assert verdicts["test_negative"][0] == "killed"  # run after the timeout, same process
    detail = next(c["detail"] for c in document["claims"] if c["verdict"] == "timeout")
    assert re.fullmatch(r"the ablated run did not finish in time: more than 0\.\d\d s of CPU "
                        r"in the test's call", detail)  # fmt: skip
    assert status == 1


WAITING_APP = """\
import time


def wait_for(ready):
    while True:
        if ready < 0:
            raise ValueError("never ready")
        time.sleep(0.05)
"""

WAITING_TESTS = """\
import pytest
from app.core import wait_for


def test_never_ready():
    with pytest.raises(ValueError):
        wait_for(-1)
"""


def test_a_claim_that_waits_is_a_timeout_by_the_wall_clock(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An ablated run that waits forever uses no CPU: the wall-clock limit (some times the
    unablated run's time, and a second) interrupts it, not --run-timeout.

    Ablation: replace `[SLOW, GRACE]` with `[0, 25]` in `src/truegreen/runner/discovery.py`."""
    (project / "app" / "core.py").write_text(WAITING_APP)
    (project / "tests" / "test_core.py").write_text(WAITING_TESTS)
    status = main(["ablate", "--discover", "tests", "-j", "1", "--run-timeout", "120",
                   "--format", "json"])  # fmt: skip
    claims = json.loads(capsys.readouterr().out)["claims"]
    assert [(c["snippet"], c["new"], c["verdict"]) for c in claims] == [
        ("ready < 0", "False", "timeout")
    ]
    assert re.fullmatch(r"the ablated run did not finish in time: more than \d+\.\d\d s",
                        claims[0]["detail"])  # fmt: skip
    assert claims[0]["seconds"] < 20
    assert status == 1


def test_no_batch_runs_each_claim_alone_with_the_same_verdicts(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--no-batch: no batch; each claim runs in a process of its own, premise first.

    Ablation: replace `_switched(numbered, read) if args.batch else ({}, [])` with
    `_switched(numbered, read)` in `src/truegreen/cli/ablate_discover.py`."""
    main(["ablate", "--discover", "tests/test_core.py::test_levels", "-j", "2", "--format",
          "json"])  # fmt: skip
    batched = capsys.readouterr()
    assert "2 claims batched, 0 alone" in batched.err  # premise: batched by default
    status = main(["ablate", "--discover", "tests/test_core.py::test_levels", "-j", "2",
                   "--no-batch", "--format", "json"])  # fmt: skip
    alone = capsys.readouterr()
    assert status == 0
    assert "batched" not in alone.err
    verdicts = [(c["snippet"], c["verdict"]) for c in json.loads(alone.out)["claims"]]
    assert verdicts == [(c["snippet"], c["verdict"]) for c in json.loads(batched.out)["claims"]]
    assert verdicts == [('raise ValueError("negative")', "killed"), ("level > 9", "killed")]


def discovered(
    project: Path, capsys: pytest.CaptureFixture[str], app: str, tests: str
) -> tuple[int, dict[str, Any], list[tuple[str, ...]]]:
    """`ablate --discover --format json` on the project with ``app`` as app/core.py and
    ``tests`` as its test file: the exit status, the document, and each claim as (test,
    snippet, replacement, line, raise, verdict)."""
    (project / "app" / "core.py").write_text(app)
    (project / "tests" / "test_core.py").write_text(tests)
    status = main(["ablate", "--discover", "tests", "-j", "1", "--format", "json"])
    document = json.loads(capsys.readouterr().out)
    claims = [(c["test"].split("::")[1], c["snippet"], c["new"], c["line"], c["raise"],
               c["verdict"]) for c in document["claims"]]  # fmt: skip
    return status, document, claims


EARLY_APP = """\
def find(table, key):
    if key not in table:
        return None
    return table[key]


def lookup(name):
    if not name:
        return None
    return name.strip() or None
"""

EARLY_TESTS = """\
from app.core import find, lookup


def test_a_missing_key_is_none():
    assert find({"a": 1}, "b") is None


def test_a_blank_name_is_nothing():
    assert not lookup("")


def test_a_key_is_found():
    assert find({"a": 1}, "a") == 1


def test_a_missing_key_is_not_one():
    assert find({"a": 1}, "b") != 1


def test_a_missing_key_among_names_is_none():
    names = {lookup(" a "): 1, lookup(""): 2}  # the blank name's early-out: not what is asserted
    assert find(names, "b") is None


def _found(key):  # a function that catches: below 3.12 this module's tests are all traced
    try:
        return find({"a": 1}, key)
    except KeyError:
        return None
"""


def test_an_early_return_a_falsy_assertion_took_is_a_claim(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A test asserting a falsy result gets the early-out return it took as a claim: its
    guard made False. Without `if key not in table: return None` the lookup raises, and the
    test fails; without `if not name: return None`, `"".strip() or None` is None all the
    same, and the test survives, named with the line it should see. A test that takes the
    same early-out but asserts no falsy result is not a negative test: no claim; nor is an
    early-out a falsy-asserting test took in a call that builds its input, not on the line of
    the assertion.

    Ablation: replace `falsy and self.kind(filename) == PROJECT` with `False` in
    `src/truegreen/plugin/discovery.py`.

    Ablation: replace `caller.f_lineno in lines` with `True` in
    `src/truegreen/plugin/discovery.py`.

    (A test asserting no falsy result is kept out twice: its project frames are not traced
    for early-outs, and none of its lines is a falsy assertion's, so either gate alone holds
    and neither has a record of its own.)"""
    status, document, claims = discovered(project, capsys, EARLY_APP, EARLY_TESTS)
    assert document["passed"] == 5  # premise: every test ran and passed
    assert claims == [
        ("test_a_missing_key_is_none", "key not in table", "False", "app/core.py:3",
         "return None", "killed"),
        ("test_a_blank_name_is_nothing", "not name", "False", "app/core.py:9", "return None",
         "survived"),
        ("test_a_missing_key_among_names_is_none", "key not in table", "False",
         "app/core.py:3", "return None", "killed"),
    ]  # fmt: skip
    assert document["negative_tests"] == [
        "tests/test_core.py::test_a_blank_name_is_nothing",
        "tests/test_core.py::test_a_missing_key_among_names_is_none",
        "tests/test_core.py::test_a_missing_key_is_none",
    ]
    assert status == 1


LOOP_APP = """\
def visible(names):
    found = []
    for name in names:
        if name.startswith("."):
            continue
        found.append(name)
    return found


def size(names):
    total = 0
    for name in names:
        if not name:
            continue
        total += len(name)
    return total


def numbers(names):
    found = []
    for name in names:
        if name == "":
            continue
        found.append(int(name))
    return found


def safe_numbers(names):
    try:
        return numbers(names)
    except ValueError:
        return None
"""

LOOP_TESTS = """\
from app.core import safe_numbers, size, visible


def test_hidden_names_are_not_listed():
    assert not visible([".git", ".env"])


def test_blank_names_have_no_size():
    assert not size(["", ""])


def test_a_bad_number_is_none():
    assert safe_numbers(["", "x"]) is None


def test_a_visible_name_is_listed():
    assert visible([".git", "a"]) == ["a"]
"""


def test_an_early_continue_in_a_function_that_returned_a_falsy_result_is_a_claim(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The continues a falsy-asserting test took count when their function returned the falsy
    result: without `if name.startswith("."): continue` the hidden names are listed (killed);
    without `if not name: continue` a blank name adds 0 all the same (survived, a guard that
    changes nothing). `numbers` took its continue and then raised: no claim from it. A test
    asserting no falsy result is not traced for continues.

    Ablation: delete `raising.add(frame)` in `src/truegreen/plugin/discovery.py`: the
    continue of the function that raised becomes a claim.

    Ablation: replace `not skips.isdisjoint(lines)` with `False` in
    `src/truegreen/plugin/discovery.py`."""
    status, document, claims = discovered(project, capsys, LOOP_APP, LOOP_TESTS)
    assert document["passed"] == 4  # premise: every test ran and passed
    assert claims == [
        ("test_hidden_names_are_not_listed", 'name.startswith(".")', "False", "app/core.py:5",
         "continue", "killed"),
        ("test_blank_names_have_no_size", "not name", "False", "app/core.py:14", "continue",
         "survived"),
    ]  # fmt: skip
    assert "tests/test_core.py::test_a_bad_number_is_none" not in document["negative_tests"]
    assert status == 1
