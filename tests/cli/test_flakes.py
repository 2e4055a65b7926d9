"""truegreen flakes: a victim, a brittle test and a coin, each classified; nothing else blamed."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from truegreen.cli import main

STATE = "SETTINGS = {}\n"

CONFIG = """
import state


def test_defaults():
    pass


def test_switches_to_legacy_mode():
    state.SETTINGS["mode"] = "legacy"


def test_parses_flags():
    pass


def test_warms_the_cache():
    state.SETTINGS["cache"] = "warm"
"""

CACHE = """
from pathlib import Path

import state


def test_reads_the_default_mode():
    assert state.SETTINGS.get("mode", "default") == "default"


def test_sizes():
    pass


def test_needs_a_warm_cache():
    assert state.SETTINGS.get("cache") == "warm"


def test_coin():
    # The coin's chance is a file of outcomes the fixture controls: it fails on its second
    # toss only, whatever order the hunt runs it in.
    tosses = Path(__file__).with_name("coin-tosses")
    done = len(tosses.read_text()) if tosses.exists() else 0
    tosses.write_text("x" * (done + 1))
    assert done != 1


def test_evicts():
    pass
"""

VICTIM = "test_cache.py::test_reads_the_default_mode"
POLLUTER = "test_config.py::test_switches_to_legacy_mode"
BRITTLE = "test_cache.py::test_needs_a_warm_cache"
SETTER = "test_config.py::test_warms_the_cache"
COIN = "test_cache.py::test_coin"
REPRO = "python -m pytest -p no:randomly -p no:cacheprovider"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture suite, the working directory; every temporary file stays under tmp_path."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text('[tool.truegreen]\nallow-writes = ["coin-tosses"]\n')
    (root / "state.py").write_text(STATE)
    (root / "test_config.py").write_text(CONFIG)
    (root / "test_cache.py").write_text(CACHE)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.chdir(root)
    return root


def hunt(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["flakes", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_it_finds_and_classifies_the_victim_the_brittle_test_and_the_coin_and_no_other(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `len(fates) == 2` with `True` in `src/truegreen/core/flakes.py`."""
    status, out, err = hunt(capsys, "--seed", "11", "--format", "json")
    data = json.loads(out)
    assert (data["format"], data["seed"], data["runs"], data["tests"]) == (1, 11, 4, 9)
    assert status == 1
    found = {f["test"]: (f["kind"], f["culprits"], f["command"]) for f in data["flaky"]}
    expected = {
        VICTIM: ("victim", [POLLUTER], f"{REPRO} {POLLUTER} {VICTIM}"),
        BRITTLE: ("brittle", [SETTER], f"{REPRO} {SETTER} {BRITTLE}"),
        COIN: ("non-order", [], ""),
    }
    assert found == expected
    assert data["always_failing"] == []
    assert "truegreen flakes: 9 tests, 4 runs, seed 11" in err
    assert f"truegreen flakes: examining {VICTIM}" in err
    argv = found[VICTIM][2].split()  # the reproduce command, run as printed
    done = subprocess.run([sys.executable, *argv[1:]], capture_output=True, text=True,
                          check=False)  # fmt: skip
    assert done.returncode == 1, done.stdout
    assert f"FAILED {VICTIM}" in done.stdout
    assert "1 failed, 1 passed" in done.stdout


def test_a_suite_without_a_problem_reports_nothing_and_exits_0(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `len(fates) == 2` with `True` in `src/truegreen/core/flakes.py`."""
    (project / "test_cache.py").unlink()
    assert (project / "test_config.py").exists()  # premise: the polluters are still there
    status, out, _ = hunt(capsys, "--runs", "3", "--seed", "2")
    assert out.splitlines() == [
        "truegreen flakes: 4 tests, 3 runs, seed 2",
        "  repeat: truegreen flakes --runs 3 --seed 2 --",
        "no flaky test (4 pytest runs)",
    ]
    assert status == 0


def test_runs_0_bisects_a_named_victim_and_a_named_brittle_test(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = hunt(capsys, "--runs", "0", "--victim", VICTIM)
    assert status == 1
    assert out.splitlines()[:3] == [
        f"victim     {VICTIM}",
        f"  polluter: {POLLUTER}",
        f"  reproduce: {REPRO} {POLLUTER} {VICTIM}",
    ]
    assert err.splitlines()[1:4] == [
        f"truegreen flakes: bisecting {VICTIM} among 8 other tests",
        "truegreen flakes:   alone: passed",
        "truegreen flakes:   after 4 tests: passed",  # the first half: test_cache.py's own
    ]
    status, out, _ = hunt(capsys, "--runs", "0", "--victim", BRITTLE, "--format", "json")
    (finding,) = json.loads(out)["flaky"]
    assert (finding["kind"], finding["culprits"]) == ("brittle", [SETTER])


def test_an_xdist_addopts_does_not_scatter_the_bisection(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\naddopts = "-n 2"\n\n'
        '[tool.truegreen]\nallow-writes = ["coin-tosses"]\n'
    )
    status, out, _ = hunt(capsys, "--runs", "0", "--victim", VICTIM)
    assert f"  polluter: {POLLUTER}" in out.splitlines()
    assert status == 1


def test_runs_0_on_a_steady_test_finds_no_culprit_and_exits_0(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `current if checked or keeps(current) else []` with `current` in
    `src/truegreen/core/flakes.py`."""
    args = ["--runs", "0", "--victim", "test_config.py::test_defaults", "--format", "json"]
    status, out, _ = hunt(capsys, *args)
    data = json.loads(out)
    assert data["notes"] == [
        "test_config.py::test_defaults: no polluter or state-setter: it passes alone and after "
        "the 8 other tests"
    ]
    assert data["flaky"] == []
    assert status == 0


def test_xdist_runs_find_the_same_pairs(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = hunt(capsys, "--runs", "4", "--seed", "11", "--xdist", "2")
    assert "run 4/4 (shuffled, -n 2)" in err
    assert "run 3/4 (shuffled):" in err
    assert f"  polluter: {POLLUTER}" in out
    assert f"  state-setter: {SETTER}" in out
    assert "  repeat: truegreen flakes --runs 4 --seed 11 --xdist 2 --" in out
    assert status == 1


def test_the_verb_runs_as_a_command_with_progress_on_stderr(project: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", "flakes", "--runs", "2", "--seed", "5", "--", "-q"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == [
        "truegreen flakes: 9 tests, 2 runs, seed 5",
        "  repeat: truegreen flakes --runs 2 --seed 5 -- -q",
    ]
    assert f"victim     {VICTIM} (failed 1 of 2 runs)" in lines
    assert f"brittle    {BRITTLE} (failed 1 of 2 runs)" in lines
    assert lines[-1].startswith("3 flaky tests: 1 victim, 1 brittle, 1 non-order (")
    assert "truegreen flakes: run 2/2 (reversed): 2 failed" in done.stderr.splitlines()


def test_help_shows_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["flakes", "--help"]) == 0
    example = capsys.readouterr().out.split("example:", 1)[1]
    assert "truegreen flakes --runs 0 --victim " in example


def test_a_run_timeout_ends_a_hang_and_counts_it_as_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "gate"
    root.mkdir()
    (root / "state.py").write_text(STATE)
    (root / "test_gate.py").write_text(
        "import time\n\nimport state\n\n"
        "def test_jams_the_gate():\n    state.SETTINGS['gate'] = 'jammed'\n\n"
        "def test_a():\n    pass\n\n"
        "def test_b():\n    pass\n\n"
        "def test_waits_at_the_gate():\n"
        "    while state.SETTINGS.get('gate') == 'jammed':\n        time.sleep(0.05)\n"
    )
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.chdir(root)
    victim = "test_gate.py::test_waits_at_the_gate"
    args = ["--runs", "0", "--victim", victim, "--run-timeout", "2"]
    status, out, err = hunt(capsys, *args)
    assert "  polluter: test_gate.py::test_jams_the_gate" in out.splitlines()
    assert status == 1
    assert (
        "truegreen flakes:   the run was ended after 2s (--run-timeout); the test it was "
        "running counts as failed"
    ) in err.splitlines()


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_an_interrupted_hunt_ends_the_pytest_it_started(tmp_path: Path) -> None:
    """Ablation: delete `end_tree(child, everything=everything, grace=1.0)` in
    `src/truegreen/runner/procs.py`."""
    root, pid_file = tmp_path / "hang", tmp_path / "inner.pid"
    root.mkdir()
    (root / "test_hang.py").write_text(
        "import os, time\n\n"
        "def test_hang():\n"
        f"    open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(120)\n"
    )
    argv = [sys.executable, "-m", "truegreen", "flakes", "--runs", "2", "--", "-q"]
    # The context closes the pipes and a kill ends the hunt however the test ends, so a slow
    # machine costs this test its verdict and leaves no open pipe for a later test to trip on.
    # As at a terminal: Ctrl-C's default action, whatever this suite inherited (a shell without
    # job control starts a command run with & with SIGINT ignored, and children inherit that).
    with subprocess.Popen(argv, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, preexec_fn=_default_sigint) as hunt:  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while not (pid_file.exists() and pid_file.read_text()):
                assert time.monotonic() < deadline, "the hunt's pytest never started its test"
                time.sleep(0.1)
            inner = int(pid_file.read_text())
            os.kill(inner, 0)  # premise: the pytest run is under way
            hunt.send_signal(signal.SIGINT)
            _, err = hunt.communicate(timeout=60)
        finally:
            if hunt.poll() is None:
                hunt.kill()
                hunt.communicate()
    assert hunt.returncode == 130
    assert err.endswith("truegreen: interrupted\n")
    with pytest.raises(ProcessLookupError):
        os.kill(inner, 0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--runs", "-1"], "--runs must be 0 (with --victim) or at least 2, got -1"),
        (["--runs", "1"], "--runs must be 0 (with --victim) or at least 2, got 1"),
        (["--runs", "0"], "--runs 0 expects --victim NODEID, found none"),
        (["--victim", VICTIM], "--victim expects --runs 0, found --runs 4"),
        (["--xdist", "0"], "--xdist must be at least 1, got 0"),
        (
            ["--run-timeout", "0"],
            "argument --run-timeout: expected a number of seconds above 0 and at most 604800 "
            "(a week), found '0'",
        ),
        (["--seed", "soon"], "argument --seed: invalid int value: 'soon'"),
    ],
)
def test_a_command_line_that_cannot_be_carried_out_exits_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    status, out, err = hunt(capsys, *args)
    assert (status, out) == (2, "")
    assert err.startswith("truegreen: error: ")
    assert message in err


def test_xdist_missing_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    status, _, err = hunt(capsys, "--xdist", "2")
    assert status == 2
    assert err == (
        "truegreen: error: truegreen flakes: --xdist expects pytest-xdist installed, found it "
        "missing\n"
    )


def test_a_victim_that_was_not_collected_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = hunt(capsys, "--runs", "0", "--victim", "test_cache.py::test_gone")
    assert status == 2
    assert err.splitlines()[-1] == (
        "truegreen: error: truegreen flakes: --victim expects a collected node id, found "
        "'test_cache.py::test_gone' not among the 9 collected"
    )


def test_a_selection_with_no_tests_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = hunt(capsys, "--", "-k", "nothing_matches")
    assert status == 2
    assert err.splitlines()[-1] == (
        "truegreen: error: truegreen flakes: expected tests to run, found none collected by "
        "'-k nothing_matches'"
    )


def test_a_suite_without_the_plugin_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = hunt(capsys, "--", "-p", "no:truegreen")
    assert status == 2
    assert err.splitlines()[-1].startswith(
        "truegreen: error: truegreen flakes: expected pytest to collect with '-p no:truegreen' "
        "and the truegreen plugin on, found exit 4: "
    )


def test_a_run_that_records_nothing_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = hunt(capsys, "--", "--truegreen-metrics=elsewhere")
    assert status == 2
    assert err.splitlines()[-1].startswith(
        "truegreen: error: truegreen flakes: expected pytest to run "
        "'--truegreen-metrics=elsewhere' and record its event stream with the truegreen plugin "
        "on (no -p no:truegreen, no enabled = false), found exit 1: "
    )


LAZY = """
import socket
from pathlib import Path

_INDEX = None
_FEED = None


def index():
    # Built on first use and saved to a cache in the real home (a dotfile names the path).
    global _INDEX
    if _INDEX is None:
        _INDEX = {{"a": 1}}
        try:
            Path({cache!r}).write_text("a=1")
        except OSError:
            pass
    return _INDEX


def feed():
    # Fetched on first use from a daemon on the machine; offline when it does not answer.
    global _FEED
    if _FEED is None:
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=5).close()
            _FEED = "live"
        except OSError:
            _FEED = "offline"
    return _FEED
"""

USES = """
import lazy


def test_index_a():
    assert lazy.index()["a"] == 1


def test_index_b():
    assert lazy.index()


def test_feed_a():
    assert lazy.feed()


def test_feed_b():
    assert lazy.feed()


def test_plain():
    pass
"""


@pytest.fixture
def daemon() -> Iterator[int]:
    """A listener on 127.0.0.1 started outside the hunt's pytest: the daemon on the laptop,
    which the network guard (``network = "owned"``, the default) blocks."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


def test_a_violation_by_whichever_test_runs_first_is_reported_as_the_violation(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    daemon: int,
) -> None:
    """Two tests share a lazy object whose first use writes into the real home, two another
    whose first use connects to a daemon: whichever runs first fails by the violation. Each is
    reported as that violation, never as a brittle test with the other as its state-setter.

    Ablation: replace `alone_fails and failing and all(o.violations for o in failing)` with
    `False` in `src/truegreen/core/flakes.py`."""
    home, root = tmp_path / "home", tmp_path / "lazy"
    home.mkdir()
    root.mkdir()
    cache = home / ".lazy-index"
    (root / "lazy.py").write_text(LAZY.format(cache=str(cache), port=daemon))
    (root / "test_lazy.py").write_text(USES)
    # The hunt's pytest takes it for the real home; nothing here reads platformdirs.
    monkeypatch.setenv("HOME", str(home))  # truegreen: ignore[TG204] the guard's real home
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.chdir(root)
    socket.create_connection(("127.0.0.1", daemon), timeout=5).close()  # premise: it answers
    status, out, _ = hunt(capsys, "--seed", "3", "--format", "json")
    found = {f["test"]: f for f in json.loads(out)["flaky"]}
    assert status == 1
    assert not cache.exists()  # the write was refused: the guard blocked it
    pairs = {"index_a": "index_b", "index_b": "index_a", "feed_a": "feed_b", "feed_b": "feed_a"}
    assert sorted(found) == sorted(f"test_lazy.py::test_{name}" for name in pairs)
    for name, other in pairs.items():
        test, kind = f"test_lazy.py::test_{name}", "write" if "index" in name else "network"
        finding = found[test]
        assert finding["note"].startswith(
            f"fails in some orders because {test} triggers a {kind} violation when it runs "
            f"first: {kind}: blocked "
        )
        assert (finding["kind"], finding["violations"]) == ("violation", [kind])
        assert (finding["failed_runs"], finding["observed_runs"]) == (2, 4)
        assert finding["culprits"] == [f"test_lazy.py::test_{other}"]
        assert finding["command"] == f"{REPRO} {test}"
    assert (
        f"(under the real home) at {root / 'lazy.py'}:"
        in found["test_lazy.py::test_index_a"]["note"]
    )
    assert f"connect to 127.0.0.1:{daemon}" in found["test_lazy.py::test_feed_a"]["note"]


REGISTER = '''
"""A register the doctests of this module fill and read in turn, by design."""

REGISTER = []


def add(item):
    """Add an item.

    >>> add("first")
    >>> len(REGISTER)
    1
    """
    REGISTER.append(item)


def latest():
    """The last item added (the doctest of add ran just before).

    >>> latest()
    'first'
    """
    return REGISTER[-1]


def size():
    """How many.

    >>> size()
    1
    """
    return len(REGISTER)
'''

GUIDE = """A guide: one document, whose examples run in sequence.

>>> notes = []
>>> notes.append("one")
>>> notes
['one']
"""

STEPS_CONFTEST = '''
import pytest


class Steps(pytest.File):
    """A document of steps (like a Sybil document): each line an item, run in sequence."""

    def collect(self):
        self.stack = []
        for number, line in enumerate(self.path.read_text().splitlines(), 1):
            yield Step.from_parent(self, name=f"step{number}", line=line)


class Step(pytest.Item):
    def __init__(self, *, line, **kwargs):
        super().__init__(**kwargs)
        self.line = line

    def runtest(self):
        verb, _, word = self.line.partition(" ")
        if verb == "push":
            self.parent.stack.append(word)
        else:
            assert self.parent.stack and self.parent.stack[-1] == word, self.parent.stack

    def reportinfo(self):
        return self.path, None, self.name


def pytest_collect_file(file_path, parent):
    if file_path.suffix == ".steps":
        return Steps.from_parent(parent, path=file_path)
'''

STEPS = "push milk\nexpect milk\npush eggs\nexpect eggs\n"

PLAIN = """
import register


def test_a():
    pass


def test_leaves_a_stale_entry():
    register.REGISTER.append("stale")


def test_b():
    pass
"""

ADD, LATEST, SIZE = (f"register.py::register.{name}" for name in ("add", "latest", "size"))
STALE = "test_plain.py::test_leaves_a_stale_entry"


@pytest.fixture
def documents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Doctests of a module that depend on each other by design, a doctest text file, a
    custom document of steps, and a Python test that really pollutes the module's doctests."""
    root = tmp_path / "documents"
    root.mkdir()
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\naddopts = "--doctest-modules --doctest-glob=*.txt"\n'
    )
    (root / "register.py").write_text(REGISTER)
    (root / "guide.txt").write_text(GUIDE)
    (root / "conftest.py").write_text(STEPS_CONFTEST)
    (root / "story.steps").write_text(STEPS)
    (root / "test_plain.py").write_text(PLAIN)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.chdir(root)
    return root


def test_the_items_of_one_document_run_together_in_order_and_are_never_brittle_among_themselves(
    documents: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The doctests of one module and the steps of one document move as one block, in their
    order, and none is reported as brittle after another; the Python test that really
    pollutes them is still found, with the reproduce command carrying the earlier items.

    Ablation: replace `not isinstance(item, pytest.Function) and item.parent is not None` with
    `False` in `src/truegreen/plugin/sharding.py`."""
    # Premise: out of their order, the items fail (they depend on each other by design).
    out_of_order = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider",
         LATEST, "story.steps::step2"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert "2 failed" in out_of_order.stdout, out_of_order.stdout
    status, out, err = hunt(capsys, "--seed", "7", "--runs", "6", "--format", "json")
    data = json.loads(out)
    assert data["tests"] == 11
    assert "run 2/6 (reversed): 2 failed" in err  # add and size, after the stale entry
    found = {f["test"]: (f["kind"], f["culprits"], f["command"]) for f in data["flaky"]}
    assert found == {
        ADD: ("victim", [STALE], f"{REPRO} {STALE} {ADD}"),
        SIZE: ("victim", [STALE], f"{REPRO} {STALE} {ADD} {LATEST} {SIZE}"),
    }
    assert status == 1


def test_runs_0_runs_a_document_item_after_its_earlier_items(
    documents: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `fails([*lead, test])` with `fails([test])` in
    `src/truegreen/core/flakes.py`."""
    status, out, err = hunt(capsys, "--runs", "0", "--victim", "story.steps::step4")
    assert err.splitlines()[1:3] == [
        "truegreen flakes: bisecting story.steps::step4 among 10 other tests",
        "truegreen flakes:   after 3 tests: passed",  # steps 1 to 3: its document's own order
    ]
    assert out.splitlines() == [
        "story.steps::step4: no polluter or state-setter: it passes alone "
        "and after the 7 other tests",
        "no flaky test (9 pytest runs)",
    ]
    assert status == 0
    status, out, _ = hunt(capsys, "--runs", "0", "--victim", SIZE)
    assert out.splitlines()[:3] == [
        f"victim     {SIZE}",
        f"  polluter: {STALE}",
        f"  reproduce: {REPRO} {STALE} {ADD} {LATEST} {SIZE}",
    ]
    assert status == 1
