"""The judges of the demo's sections: what each accepts as its promise kept, and what not."""

from __future__ import annotations

from truegreen.demo import judges
from truegreen.demo.model import Command, Ran

GUARDS = """\
------------------------------- truegreen guards -------------------------------
violations by test:
  caught/test_guards.py::test_saves_a_report_next_to_the_tests
    write: did open for writing caught/report.txt (under the project tree) at caught/test_guards.py:12
  caught/test_guards.py::test_warms_the_cache_in_the_home_directory
    write: blocked open for writing ~/.greeter-cache (under the real home) at caught/test_guards.py:18
  caught/test_guards.py::test_asks_the_greeting_service
    network: blocked connect to 127.0.0.1:4000 (no listener started by this test session) at caught/test_guards.py:25
---------------------------------- truegreen -----------------------------------
3 failed in 1.76s
"""  # noqa: E501


def _ran(output: str, status: int = 1, written: tuple[str, ...] = (), label: str = "") -> Ran:
    command = Command(("pytest",), label=label)
    return Ran(command, "$ pytest", status, output, written)


def test_counts_reads_pytests_closing_line() -> None:
    assert judges.counts("1 failed, 2 passed, 1 error in 0.10s") == {
        "failed": 1,
        "passed": 2,
        "error": 1,
    }


def test_the_guards_promise_holds_with_all_three_violations() -> None:
    shown = judges.guards([_ran(GUARDS)])
    assert (shown.ok, shown.lines[-1]) == (True, "    3 failed in 1.76s")


def test_the_guards_promise_fails_without_the_network_violation_and_says_so() -> None:
    lines = [line for line in GUARDS.splitlines() if "network:" not in line]
    shown = judges.guards([_ran("\n".join(lines))])
    assert shown.ok is False
    assert shown.verdict == (
        "expected 3 failed tests, with a dial to the daemon; `pytest` exited 1 without it"
    )


def test_the_hermetic_promise_fails_when_a_sealed_run_writes_into_home() -> None:
    plain = _ran("2 passed, 1 failed in 0.1s", 1, ("h.txt",), "shell")
    clean = _ran("3 passed in 0.1s", 0, ("h.txt",), "clean")
    sealed = _ran("3 passed in 0.1s", 0, (), "clean")
    assert judges.hermetic([plain, clean, sealed, sealed]).ok is True
    wrote = _ran("3 passed in 0.1s", 0, ("h.txt",), "clean")
    shown = judges.hermetic([plain, clean, sealed, wrote])
    assert (shown.ok, shown.verdict) == (False, "the sealed runs differ, fail or wrote into HOME")


def test_the_ablate_promise_fails_when_both_records_are_killed() -> None:
    output = (
        "  killed: tests/test_bad_names.py::test_a_name_on_two_lines_is_refused: x\n"
        "  killed: tests/test_bad_names.py::test_an_empty_name_is_refused: x\n"
        "2 killed\n"
    )
    shown = judges.ablate([_ran(output)])
    assert shown.ok is False
    assert "test_an_empty_name_is_refused survived" in shown.verdict


def test_the_leaks_promise_fails_when_no_culprit_is_found() -> None:
    output = (
        "truegreen leaks: 1 of 8 tests differ\n\n"
        "tests/test_farewell.py::test_says_goodbye\n"
        "  ambient: failed, sealed: passed\n"
        "  culprit: none of the ambient factors\n"
    )
    shown = judges.leaks([_ran(output)])
    assert shown.ok is False
    assert "the culprit variable FAREWELL_WORD" in shown.verdict


def test_the_shards_promise_fails_on_a_failed_check() -> None:
    shard = _ran("3 passed, 5 deselected in 1.0s", 0)
    verify = _ran("ok   all 2 shards present\nFAIL every shard green\n", 1)
    shown = judges.shards([shard, shard, verify])
    assert (shown.ok, shown.lines[-1]) == (False, "    FAIL every shard green")


def test_a_command_is_shown_with_its_variables_and_quoted() -> None:
    command = Command(("pytest", "-k", "a and b"), env=(("SERVICE", "{service}"),))
    assert command.shown("127.0.0.1:4000") == "$ SERVICE=127.0.0.1:4000 pytest -k 'a and b'"


def test_the_hints_promise_fails_without_the_hint_line() -> None:
    plain = _ran("1 passed in 0.1s", 0)
    sealed = _ran("FAILED caught/test_settings.py::test_x - FileNotFoundError\n1 failed in 0.1s")
    shown = judges.hints([plain, sealed])
    assert (shown.ok, shown.verdict) == (
        False,
        "expected a failure with the hint line for ~/.greeterrc; `pytest` exited 1 without it",
    )


def test_the_audit_promise_needs_both_findings() -> None:
    sleep = "caught/test_guards.py:24:5: TG402 sleep-in-test time.sleep() in test_x\n"
    silent = "tests/test_nicknames.py:8:1: TG105 no-assertion test_y asserts nothing\n"
    assert judges.audit([_ran(sleep + silent + "2 findings in 2 files")]).ok is True
    assert judges.audit([_ran(sleep + "1 finding in 1 file")]).ok is False


def test_the_flakes_promise_fails_when_no_polluter_is_named() -> None:
    output = (
        "truegreen flakes: 8 tests, 2 runs, seed 1\n"
        "victim     tests/test_nicknames.py::test_greets_linus_by_his_name (failed 1 of 2 runs)\n"
        "  no polluter found\n"
        "1 flaky test: 1 victim (5 pytest runs)\n"
    )
    assert judges.flakes([_ran(output)]).ok is False


def test_the_run_promise_needs_the_metrics_to_count_the_same_tests() -> None:
    run = _ran("8 passed in 3.05s (4 files, one process each)", 0)
    figure = "     0.72s  wall clock of the session: first process start to last process end"
    metrics = _ran(
        f"truegreen metrics: 7 tests (7 passed), run 20261202T000000Z-abcdef\n\n{figure}", 0
    )
    shown = judges.run([run, metrics])
    assert (shown.ok, shown.verdict) == (
        False,
        "expected the summary of the same 8 passed tests; `pytest` exited 0 without it",
    )
    same = _ran(
        f"truegreen metrics: 8 tests (8 passed), run 20261202T000000Z-abcdef\n\n{figure}", 0
    )
    shown = judges.run([run, same])
    assert shown.ok
    assert shown.lines[-1].endswith(
        "wall clock of the session: first process start to last process end"
    )


DIFF = """\
truegreen diff: .metrics-base (1 run a, 1 test) -> .metrics-head (1 run b, 1 test)

programs: 1 test (+ new, - no longer)
  changed/test_archive.py::test_a_greeting_is_archived: + git init
  in total: + git init

slower: not enough samples: 1 base and 1 head runs, 3 a side needed

failed on: new-programs (1)
"""


def test_the_diff_promise_needs_the_new_program_and_the_gate() -> None:
    green = _ran("1 passed in 0.5s", 0)
    assert judges.diff([green, green, _ran(DIFF, 1)]).ok is True
    ungated = DIFF.replace("\nfailed on: new-programs (1)\n", "")
    shown = judges.diff([green, green, _ran(ungated, 0)])
    assert (shown.ok, shown.verdict) == (
        False,
        "expected `changed/test_archive.py::test_a_greeting_is_archived: + git init` and "
        "`failed on: new-programs (1)`, exit status 1; `pytest` exited 0 without it",
    )
    assert judges.diff([green, _ran("1 failed in 0.5s", 1), _ran(DIFF, 1)]).ok is False


DISCOVER = """\
test                                                         verdict   seconds  claim
unrecorded/test_refusals.py::test_a_tab_is_refused           killed        0.1  replace `a` with `False` in greeter.py
unrecorded/test_refusals.py::test_a_missing_name_is_refused  survived      0.0  replace `b` with `False` in greeter.py
1 negative tests stay green without the raise they caught or the early-out they took (they check nothing specific):
  unrecorded/test_refusals.py::test_a_missing_name_is_refused: should fail without greeter.py:{line} `raise ValueError("no name")` (replace `b` with `False`)
2 negative tests (of 2 passing), 2 claims derived: 1 killed, 1 survived, 0 caught exceptions with no claim
"""  # noqa: E501


def test_the_discover_promise_fails_when_the_survivor_is_named_with_another_line() -> None:
    """The line the report names is checked against the sample's source, not taken on trust.

    Ablation: replace `int(named[0].group(1)) == sample_line("greeter.py", _GATE)` with `True`
    in `src/truegreen/demo/judges.py`.
    """
    line = judges.sample_line("greeter.py", 'raise ValueError("no name")')
    assert line > 0
    assert judges.discover([_ran(DISCOVER.format(line=line))]).ok is True  # premise
    shown = judges.discover([_ran(DISCOVER.format(line=line + 1))])
    assert shown.ok is False
    assert 'named with the line of `raise ValueError("no name")`' in shown.verdict
