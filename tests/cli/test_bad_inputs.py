"""Bad inputs, verb by verb: each is one line on stderr naming the input, no traceback, and the
exit status its verb's page gives (2 for a command line that cannot be carried out)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from truegreen.cli import Status, main

# A file nested too deeply for Python's parser: a MemoryError (the parser's stack) on every
# Python truegreen supports.
TOO_DEEP = "def test_deep():\n    x = " + "-" * 100_000 + "1\n"


def one_error_line(err: str) -> str:
    """The one line of ``err``, asserted to be a truegreen error and not a traceback."""
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    assert err.startswith("truegreen: error: "), err
    return err


def dangling(tmp_path: Path, name: str) -> Path:
    link = tmp_path / name
    link.symlink_to(tmp_path / "gone")
    assert link.is_symlink()
    assert not link.exists()
    return link


# -- paths named on the command line ----------------------------------------------------

PATH_VERBS = [
    (["audit"], "gone.py", "expected PATHS to be readable files or directories, found "
     "'gone.py' (a dangling symbolic link)"),
    (["platforms", "--os", "linux"], "test_gone.py", "truegreen platforms: expected a "
     "readable file or directory, found test_gone.py (a dangling symbolic link)"),
    (["ablate", "--records"], "test_gone.py", "truegreen ablate: expected a readable file or "
     "directory, found test_gone.py (a dangling symbolic link)"),
    (["docs-check"], "gone.md", "docs-check: expected a readable Markdown file or a directory, "
     "found 'gone.md' (a dangling symbolic link); PATHS default to the working directory"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("words", "name", "message"), PATH_VERBS, ids=[w[0] for w, *_ in PATH_VERBS]
)
def test_a_dangling_link_named_outright_is_one_usage_line(
    words: list[str],
    name: str,
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A path given on the command line that cannot be read stops the verb before it starts,
    saying why: not a traceback, not an empty success.

    Ablation: replace `why is not None` with `False` in `src/truegreen/cli/ablate.py`.

    Ablation: replace `why is not None` with `False` in `src/truegreen/cli/platforms.py`.

    Ablation: replace `why is not None` with `False` in `src/truegreen/cli/docs_check.py`.

    Ablation: replace `why is not None` with `False` in `src/truegreen/audit/run.py`.
    """
    dangling(tmp_path, name)
    monkeypatch.chdir(tmp_path)
    assert main([*words, name]) == Status.USAGE
    assert one_error_line(capsys.readouterr().err) == f"truegreen: error: {message}\n"


# -- files found while walking a tree ---------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tests/ holding a plain test file, a dangling test_gone.py and a directory named like a
    test file; the working directory is tmp_path."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_plain.py").write_text("def test_plain():\n    assert True\n")
    (tests / "test_dir.py").mkdir()
    (tests / "test_gone.py").symlink_to(tmp_path / "gone.py")
    monkeypatch.chdir(tmp_path)
    return tests


def test_audit_reports_a_test_file_it_cannot_read_as_one_finding_and_goes_on(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dangling test file found while walking is one TG000 finding (the audit checked nothing
    in it), the rest is audited.

    Ablation: replace `OSError` with `ZeroDivisionError` in `src/truegreen/audit/run.py`.
    """
    (tree / "test_sleepy.py").write_text("import time\n\ndef test_x():\n    time.sleep(1)\n")
    assert main(["audit", "tests"]) == Status.FINDINGS
    out, err = capsys.readouterr()
    assert err == ""
    assert (
        "test_gone.py:1:1: TG000 syntax-error the file cannot be read: a dangling "
        "symbolic link: the audit checked nothing else in this file; fix it or exclude it"
    ) in out.splitlines()
    assert "test_sleepy.py:4:5: TG402 sleep-in-test" in out


@pytest.mark.parametrize(
    "text",
    [TOO_DEEP, "def test_deep():\n    x = " + "+".join(["1"] * 100_000) + "\n"],
    ids=["unary", "binary"],
)
def test_audit_reports_a_file_nested_too_deeply_as_one_finding_and_goes_on(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file the parser (or a rule) cannot descend is one finding; the audit goes on to the
    next file instead of ending with a traceback.

    Ablation: replace `(RecursionError, MemoryError)` with `ZeroDivisionError` in
    `src/truegreen/audit/run.py`.
    """
    import ast

    try:
        ast.parse(text)
    except (RecursionError, MemoryError):
        pass
    else:  # Python before 3.11 builds the tree of a long sum; the audit then reads it whole
        pytest.skip("this Python parses it")
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_deep.py").write_text(text)
    (tests / "test_sleepy.py").write_text("import time\n\ndef test_x():\n    time.sleep(1)\n")
    monkeypatch.chdir(tmp_path)
    assert main(["audit", "tests"]) == Status.FINDINGS
    out = capsys.readouterr().out
    assert (
        "test_deep.py:1:1: TG000 syntax-error the file is nested too deeply to parse: "
        "the audit checked nothing else in this file; fix it or exclude it"
    ) in out.splitlines()
    assert "test_sleepy.py:4:5: TG402 sleep-in-test" in out


FIFO_VERBS = [
    (["audit", "--no-cache", "tests"], 0, "no findings in 1 files"),
    (["ablate", "--records", "tests"], 0, "0 claims"),
    (["platforms", "--os", "linux", "--all", "tests"], 0, "tests/test_plain.py"),
    (["docs-check", "tests"], 0, "resolves in 1 Markdown file"),
]  # fmt: skip


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize(
    ("words", "status", "said"), FIFO_VERBS, ids=[w[0] for w, *_ in FIFO_VERBS]
)
def test_a_fifo_found_while_walking_is_passed_over_as_pytest_passes_it_over(
    words: list[str], status: int, said: str, tmp_path: Path
) -> None:
    """Opening a FIFO waits for a writer for ever: the verb would hang on it.

    Ablation: replace `walked(here / name)` with `True` in `src/truegreen/audit/run.py`.

    Ablation: replace `walked(p)` with `True` in `src/truegreen/cli/ablate.py`.

    Ablation: replace `walked(Path(directory) / name)` with `True` in
    `src/truegreen/cli/platforms.py`.

    Ablation: replace `walked(Path(directory) / name)` with `True` in
    `src/truegreen/cli/docs_check.py`.
    """
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_plain.py").write_text("def test_plain():\n    assert True\n")
    (tests / "README.md").write_text("# tests\n")
    for name in ("test_fifo.py", "fifo.md"):
        os.mkfifo(tests / name)
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", *words], cwd=tmp_path, capture_output=True,
        text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == status, done.stdout + done.stderr
    assert said in done.stdout + done.stderr
    assert "fifo" not in done.stdout + done.stderr


def test_ablate_lists_a_dangling_test_file_as_unreadable(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The walk's dangling test file is listed among the files whose records cannot be read
    (exit 1); the directory named like a test file is walked, not read.

    Ablation: replace `OSError` with `ZeroDivisionError` in `src/truegreen/cli/ablate.py`.
    """
    assert main(["ablate", "--records", "tests"]) == Status.FINDINGS
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert out.splitlines()[1:3] == [
        "1 test files whose records cannot be read:",
        "  tests/test_gone.py: expected a readable file, found a dangling symbolic link",
    ]


def test_ablate_lists_a_test_file_nested_too_deeply_as_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A test file the parser cannot descend is one unreadable entry naming it, not a crash.

    Ablation: replace `(RecursionError, MemoryError)` with `ZeroDivisionError` in
    `src/truegreen/core/claims.py`.
    """
    (tmp_path / "test_deep.py").write_text(TOO_DEEP)
    monkeypatch.chdir(tmp_path)
    assert main(["ablate", "--records", "test_deep.py"]) == Status.FINDINGS
    assert capsys.readouterr().out.splitlines()[1:3] == [
        "1 test files whose records cannot be read:",
        "  test_deep.py: expected Python, found code nested too deeply to parse",
    ]


def test_platforms_skips_a_dangling_test_file_with_one_line(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pytest's own walk passes over a dangling link, so the lane's list does too, and says so.

    Ablation: replace `OSError` with `ZeroDivisionError` in `src/truegreen/cli/platforms.py`.
    """
    assert main(["platforms", "--os", "linux", "--all", "tests"]) == Status.CLEAN
    out, err = capsys.readouterr()
    assert out == "tests/test_plain.py\n"
    assert err == (
        "truegreen platforms: tests/test_gone.py: cannot be read (a dangling symbolic link); "
        "skipped\n"
    )


def test_platforms_lists_a_file_nested_too_deeply_so_the_lane_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A test file whose markers cannot be read is listed (the lane sees its error), with one
    line on stderr.

    Ablation: replace `(RecursionError, MemoryError, ValueError)` with `ZeroDivisionError` in
    `src/truegreen/core/lanes.py`.
    """
    (tmp_path / "test_deep.py").write_text(TOO_DEEP)
    monkeypatch.chdir(tmp_path)
    assert main(["platforms", "--os", "linux", "."]) == Status.CLEAN
    out, err = capsys.readouterr()
    assert out == "test_deep.py\n"
    assert err == (
        "truegreen platforms: test_deep.py: not valid Python (nested too deeply to parse): "
        "listed, so the lane fails\n"
    )


def test_docs_check_stops_at_a_dangling_page_found_while_walking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Markdown page that cannot be read cannot have its links checked: one line, exit 2.

    Ablation: replace `_page(path, root)` with `path.read_text()` in
    `src/truegreen/cli/docs_check.py`.
    """
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Index\n")
    dangling(tmp_path / "docs", "gone.md")
    monkeypatch.chdir(tmp_path)
    assert main(["docs-check"]) == Status.USAGE
    assert one_error_line(capsys.readouterr().err) == (
        "truegreen: error: docs-check: expected a readable Markdown file, found "
        "'docs/gone.md' (a dangling symbolic link)\n"
    )


# -- numbers ----------------------------------------------------------------------------

SECONDS = "expected a number of seconds above 0 and at most 604800 (a week), found"
NUMBERS = [
    (["run", "--deadline", "1e10"], f"truegreen run: argument --deadline: {SECONDS} '1e10'"),
    (["run", "--deadline", "inf"], f"truegreen run: argument --deadline: {SECONDS} 'inf'"),
    (["run", "--deadline", "0"], f"truegreen run: argument --deadline: {SECONDS} '0'"),
    (["run", "--isolate-files", "--file-timeout", "1e10"], "truegreen run: argument "
     f"--file-timeout: {SECONDS} '1e10'"),
    (["run", "--isolate-files", "--file-timeout", "-1"], "truegreen run: argument "
     f"--file-timeout: {SECONDS} '-1'"),
    (["ablate", "--records", "--run-timeout", "1e10"], "truegreen ablate: argument "
     f"--run-timeout: {SECONDS} '1e10'"),
    (["ablate", "--records", "--run-timeout", "nan"], "truegreen ablate: argument "
     f"--run-timeout: {SECONDS} 'nan'"),
    (["flakes", "--run-timeout", "inf"], f"truegreen flakes: argument --run-timeout: {SECONDS} "
     "'inf'"),
]  # fmt: skip


@pytest.mark.parametrize(("words", "message"), NUMBERS, ids=[" ".join(w) for w, _ in NUMBERS])
def test_a_timeout_or_deadline_beyond_a_week_or_not_above_zero_is_one_usage_line(
    words: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """1e10 seconds overflows the waits (an OverflowError traceback once the run had started),
    inf and NaN never end, zero and below end at once: each is refused before anything runs.

    Ablation: replace `0 < value <= MAX_SECONDS` with `0 < value` in
    `src/truegreen/cli/__init__.py`.
    """
    monkeypatch.chdir(tmp_path)  # without the check, a run starts here: nothing to collect
    assert main(words) == Status.USAGE
    assert one_error_line(capsys.readouterr().err) == f"truegreen: error: {message}\n"


@pytest.mark.parametrize("when", ["1e10", "nan", "-1", "inf"])
def test_a_deadline_epoch_must_be_a_time_within_a_week(
    when: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Unix time past a week from now, or not a time at all, is one usage line (a time
    already past still ends the run at once: the job's time is up).

    Ablation: replace `0 < value <= time.time() + MAX_SECONDS` with `True` in
    `src/truegreen/cli/__init__.py`.
    """
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--deadline-epoch", when]) == Status.USAGE
    assert one_error_line(capsys.readouterr().err) == (
        "truegreen: error: truegreen run: argument --deadline-epoch: expected a Unix time in "
        f"seconds, above 0 and at most a week from now, found {when!r}\n"
    )


COUNTS = [
    (["ablate", "app.py", "--delete", "X = 1", "--test", "test_a.py", "--occurrence", "0"],
     "truegreen ablate: argument --occurrence: expected a whole number of at least 1, found "
     "'0'"),
    (["ablate", "app.py", "--delete", "X = 1", "--test", "test_a.py", "--occurrence", "-1"],
     "truegreen ablate: argument --occurrence: expected a whole number of at least 1, found "
     "'-1'"),
    (["shards", "plan", "--count", "0"], "truegreen shards plan: argument --count: expected a "
     "whole number from 1 to 1000, found '0'"),
    (["shards", "plan", "--count", "1001"], "truegreen shards plan: argument --count: "
     "expected a whole number from 1 to 1000, found '1001'"),
    (["shards", "verify", ".", "--count", "1001"], "truegreen shards verify: argument --count: "
     "expected a whole number from 1 to 1000, found '1001'"),
    (["metrics", ".", "--top", "0"], "truegreen metrics: argument --top: expected a whole "
     "number of at least 1, found '0'"),
    (["metrics", ".", "--top", "-1"], "truegreen metrics: argument --top: expected a whole "
     "number of at least 1, found '-1'"),
]  # fmt: skip


@pytest.mark.parametrize(("words", "message"), COUNTS, ids=[" ".join(w[-2:]) for w, _ in COUNTS])
def test_a_count_out_of_its_range_is_one_usage_line(
    words: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--occurrence 0` reported the claim stale, `--top -1` dropped a table's last row and
    `--count 1000000000` planned a billion shards for ever: each is refused.

    Ablation: replace `value < low` with `False` in `src/truegreen/cli/__init__.py`.

    Ablation: replace `high is not None and value > high` with `False` in
    `src/truegreen/cli/__init__.py`.
    """
    (tmp_path / "app.py").write_text("X = 1\n")
    monkeypatch.chdir(tmp_path)
    assert main(words) == Status.USAGE
    assert one_error_line(capsys.readouterr().err) == f"truegreen: error: {message}\n"


@pytest.mark.parametrize("test", ["", "  "])
def test_ablate_refuses_an_empty_test_id_before_running_anything(
    test: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--test ''` ran the whole suite, unablated and ablated, and reported what it found as the
    claim's verdict; an empty node id is one usage line.

    Ablation: replace `not test.strip()` with `False` in `src/truegreen/cli/ablate.py`.
    """
    (tmp_path / "app.py").write_text("X = 1\n")
    monkeypatch.chdir(tmp_path)
    assert main(["ablate", "app.py", "--delete", "X = 1", "--test", test, "--no-warm"]) == 2
    assert one_error_line(capsys.readouterr().err) == (
        f"truegreen: error: truegreen ablate: --test expects a node id, found {test!r}\n"
    )


# -- records no test holds --------------------------------------------------------------

STRAY = '''"""Ablation: delete `X = 1` in `app.py`."""


class TestThing:
    """Ablation: replace `X` with `2` in `app.py`."""


def helper():
    """Ablation: delete `X = 1` in `app.py`."""


# Ablation: delete `X = 1`
# in `app.py`.
'''


def test_ablate_lists_records_that_name_no_test_and_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record on a module, a class, a helper or in a comment outside every test names no
    test to run: it was dropped without a word; it is listed with its line, and fails the run.

    Ablation: replace `len(found.unreadable) + len(found.stray)` with `len(found.unreadable)`
    in `src/truegreen/cli/ablate.py`.
    """
    (tmp_path / "test_stray.py").write_text(STRAY)
    monkeypatch.chdir(tmp_path)
    assert main(["ablate", "--records", "test_stray.py"]) == Status.FINDINGS
    advice = "names no test to run; put it in the docstring or a comment of the test that checks it"
    assert capsys.readouterr().out.splitlines() == [
        "no checkable claim",
        "4 records that name no test, never run:",
        f"  test_stray.py:1: a record on the module {advice}",
        f"  test_stray.py:4: a record on class TestThing {advice}",
        f"  test_stray.py:8: a record on function helper (not a test) {advice}",
        f"  test_stray.py:12: a record on a comment outside every test {advice}",
        "0 claims",
    ]


# -- a reader that went away ------------------------------------------------------------


PIPED = [
    (["doctor"], 141),
    (["audit", "."], 141),
    (["audit", "--explain", "TG101"], 141),
    (["platforms", "--os", "linux", "--all", "."], 141),
    (["docs-check"], 141),
    (["shards", "plan", "--count", "2", "."], 141),
    # pytest writes the output itself, and ends as pytest ends on a broken pipe: 1
    (["run", "--", "-p", "no:randomly", "-q"], 1),
]


@pytest.mark.parametrize(("words", "status"), PIPED, ids=[" ".join(w) for w, _ in PIPED])
def test_a_reader_that_went_away_ends_each_verb_quietly(
    words: list[str], status: int, tmp_path: Path
) -> None:
    """`truegreen VERB | head -1`: once the reader has gone, the verb stops without a traceback,
    with the status a shell gives a command that SIGPIPE ended (`run` passes on pytest's own).

    Ablation: replace `BrokenPipeError` with `NotImplementedError` in
    `src/truegreen/cli/__init__.py`.
    """
    for n in range(40):
        (tmp_path / f"test_{n}.py").write_text("import time\n\ndef test_a():\n    time.sleep(0)\n")
    (tmp_path / "README.md").write_text("# Readme\n\n[self](README.md)\n")
    reader, writer = os.pipe()
    os.close(reader)
    with pytest.raises(BrokenPipeError):
        os.write(writer, b"premise: nobody reads this pipe")
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", *words],
        stdout=writer, stderr=subprocess.PIPE, cwd=tmp_path, check=False,
    )  # fmt: skip
    os.close(writer)
    assert (done.returncode, done.stderr.decode()) == (status, "")
