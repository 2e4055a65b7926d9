"""truegreen ablate over a fixture project with every verdict; the source is never changed."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from truegreen.cli import main

APP = """\
import os

SEPARATOR = os.sep


def parse(raw):
    if raw is None:
        raise ValueError("missing")
    if raw == "":
        return "default"
    return raw.strip()


def level(n):
    return n > 2


def spin(n):
    while n > 0:
        n = n - 1
    return n


def home():
    return SEPARATOR
"""

TESTS = '''\
import subprocess
import sys

import pytest

from app.core import home, level, parse, spin


def test_missing_is_refused():
    """Ablation: delete `if raw is None: raise ValueError("missing")` in `app/core.py`."""
    with pytest.raises(ValueError):
        parse(None)


def test_blank():
    """Ablation: delete ``return "default"`` in ``app/core.py``: the test never looks."""
    assert parse(" x ") == "x"


def test_level():
    """Ablations: replace `n > 2` with `n >= 2` in `app/core.py`; delete `return 0` in
    `app/core.py`; replace `raw` with `None` in `app/core.py`."""
    assert level(2) is False


def test_broken():
    """Ablation: delete `import os` in `app/core.py`."""
    assert home()


def test_spin():
    """Ablation: replace `n - 1` with `n` in `app/core.py`."""
    assert spin(3) == 0


def test_child_sees_the_mutant():
    """Ablation: delete `if raw is None: raise ValueError("missing")` in `app/core.py`."""
    code = (
        "from app.core import parse\\ntry:\\n    parse(None)\\n"
        "except ValueError:\\n    print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok"


def test_red():
    """Ablation: delete `return raw.strip()` in `app/core.py`."""
    assert parse("a") == "b"


def test_prose():
    """Ablation: we removed the strip and it failed."""
    assert parse(" a") == "a"
'''


# Every run a new process, or forks of one warm server: the same verdicts either way.
MODES = pytest.mark.parametrize("mode", [["--no-warm"], ["--warm"]], ids=["cold", "warm"])


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "core.py").write_text(APP)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_core.py").write_text(TESTS)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npythonpath = ["."]\n[tool.truegreen]\ntree-guard = "off"\n'
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@MODES
def test_every_verdict_in_one_table(
    project: Path, mode: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = _digest(project / "app" / "core.py")
    status = main(["ablate", "--records", "tests", "-j", "2", "--run-timeout", "12",
                   "--format", "json", *mode])  # fmt: skip
    assert status == 1
    document = json.loads(capsys.readouterr().out)
    verdicts = {(r["test"].split("::")[1], r["snippet"]): r["verdict"] for r in document["records"]}
    assert verdicts == {
        ("test_missing_is_refused", 'if raw is None: raise ValueError("missing")'): "killed",
        ("test_blank", 'return "default"'): "survived",
        ("test_level", "n > 2"): "killed",
        ("test_level", "return 0"): "stale",
        ("test_level", "raw"): "ambiguous",
        ("test_broken", "import os"): "broken",
        ("test_spin", "n - 1"): "timeout",
        ("test_child_sees_the_mutant", 'if raw is None: raise ValueError("missing")'): "killed",
        ("test_red", "return raw.strip()"): "premise-failed",
    }
    assert document["prose_only"][0]["test"] == "tests/test_core.py::test_prose"
    assert _digest(project / "app" / "core.py") == before


def test_check_runs_no_test_and_fails_only_records_that_cannot_apply(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--records --check`` answers in seconds what a run's stale and ambiguous verdicts
    would, for pre-commit: test_red fails whenever it runs, and its record applies.

    Ablation: delete `return _report(_checked(items), found, args, passing={APPLIES})` in
    `src/truegreen/cli/ablate.py`: every claim is run. Restored."""
    before = _digest(project / "app" / "core.py")
    # (bounded runs: with the check ablated, every claim runs, test_spin's for ever)
    check = ["ablate", "--records", "tests", "--check", "--run-timeout", "5", "-j", "2"]
    assert main([*check, "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    verdicts = {(r["test"].split("::")[1], r["snippet"]): r["verdict"] for r in document["records"]}
    assert verdicts == {
        ("test_missing_is_refused", 'if raw is None: raise ValueError("missing")'): "applies",
        ("test_blank", 'return "default"'): "applies",
        ("test_level", "n > 2"): "applies",
        ("test_level", "return 0"): "stale",
        ("test_level", "raw"): "ambiguous",
        ("test_broken", "import os"): "applies",
        ("test_spin", "n - 1"): "applies",
        ("test_child_sees_the_mutant", 'if raw is None: raise ValueError("missing")'): "applies",
        ("test_red", "return raw.strip()"): "applies",
    }
    assert {r["seconds"] for r in document["records"]} == {0}
    assert _digest(project / "app" / "core.py") == before
    level = """Ablations: replace `n > 2` with `n >= 2` in `app/core.py`; delete `return 0` in
    `app/core.py`; replace `raw` with `None` in `app/core.py`."""
    assert level in TESTS
    fixed = TESTS.replace(level, "Ablation: replace `n > 2` with `n >= 2` in `app/core.py`.")
    (project / "tests" / "test_core.py").write_text(fixed)
    assert main(check) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "7 applies"


def test_check_goes_with_records(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ablate", "--discover", "tests", "--check"]) == 2
    assert capsys.readouterr().err == (
        "truegreen: error: truegreen ablate: --check goes with --records [PATHS]\n"
    )


@MODES
def test_the_stale_bytecode_trap_a_same_size_edit_in_the_same_second_is_killed(
    project: Path,
    mode: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Bytecode is allowed here, so the unablated run leaves a fresh .pyc of the same size
    and second: the ablated run must still execute the mutant."""
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    status = main(["ablate", "app/core.py", "--replace", "n > 2", "--with", "n > 1",
                   "--test", "tests/test_core.py::test_level", *mode])  # fmt: skip
    out = capsys.readouterr().out
    assert status == 0, out
    assert "killed" in out
    assert list((project / "app" / "__pycache__").glob("core.*.pyc"))  # premise: it was cached


def test_test_files_that_are_not_python_are_listed_and_the_others_still_run(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tests = project / "tests"
    (tests / "test_syntax.py").write_text("def test_x(:\n    pass\n")
    (tests / "test_latin.py").write_bytes(b"def test_x():\n    pass  # caf\xe9\n")
    (tests / "test_good.py").write_text(
        "from app.core import level\n\n\ndef test_level():\n"
        '    """Ablation: replace `n > 2` with `n >= 2` in `app/core.py`."""\n'
        "    assert level(2) is False\n"
    )
    files = ["tests/test_good.py", "tests/test_latin.py", "tests/test_syntax.py"]
    status = main(["ablate", "--records", *files, "--format", "json"])
    document = json.loads(capsys.readouterr().out)
    assert status == 1
    assert [(r["test"], r["verdict"]) for r in document["records"]] == [
        ("tests/test_good.py::test_level", "killed")
    ]
    latin = "expected UTF-8 text, found byte b'\\xe9' at offset 29"
    syntax = "expected Python, found invalid syntax at line 1: 'def test_x(:'"
    assert document["unreadable"] == [
        {"path": "tests/test_latin.py", "why": latin},
        {"path": "tests/test_syntax.py", "why": syntax},
    ]
    assert main(["ablate", "--records", "tests/test_syntax.py"]) == 1
    assert capsys.readouterr().out.splitlines()[-3:] == [
        "1 test files whose records cannot be read:",
        f"  tests/test_syntax.py: {syntax}",
        "0 claims",
    ]


@pytest.mark.parametrize(
    ("source", "why"),
    [
        (
            b"def level(n):\n    return n >\n",
            "expected Python, found invalid syntax at line 2: 'return n >'",
        ),
        (b"x = 1  # caf\xe9\n", "expected UTF-8 text, found byte b'\\xe9' at offset 12"),
    ],
    ids=["syntax", "latin-1-without-cookie"],
)
def test_a_target_that_is_not_python_is_a_broken_claim(
    project: Path, source: bytes, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "app" / "core.py").write_bytes(source)
    status = main(["ablate", "app/core.py", "--delete", "x = 1", "--test", "tests",
                   "--format", "json"])  # fmt: skip
    [record] = json.loads(capsys.readouterr().out)["records"]
    assert (status, record["verdict"], record["detail"]) == (1, "broken", f"app/core.py: {why}")


def test_usage_errors_are_one_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ablate", "app/core.py", "--delete", "x = 1"]) == 2
    assert capsys.readouterr().err == (
        "truegreen: error: truegreen ablate: expected PATH and at least one --test, or --records\n"
    )
    assert main(["ablate", "app/core.py", "--replace", "n > 2", "--test", "tests"]) == 2
    assert "expected exactly one of --delete SNIPPET" in capsys.readouterr().err


@MODES
def test_kill_9_at_random_moments_never_changes_the_source(project: Path, mode: list[str]) -> None:
    """50 ablation runs killed with SIGKILL at random moments (runs that finish first do not
    count): the source stays byte-identical and git sees a clean tree every time."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "fixture"], check=True)
    target = project / "app" / "core.py"
    before = target.read_bytes()
    rng = random.Random(1234)
    argv = [sys.executable, "-m", "truegreen", "ablate", "app/core.py", "--delete",
            'if raw is None: raise ValueError("missing")', "--test",
            "tests/test_core.py::test_missing_is_refused", *mode]  # fmt: skip
    kills = attempts = 0
    while kills < 50:
        attempts += 1
        assert attempts <= 100, f"only {kills} of {attempts} runs were still running to kill"
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)  # fmt: skip
        time.sleep(rng.uniform(0.0, 0.4))  # truegreen: ignore[TG402] a random kill point
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            kills += 1
        process.wait()
        assert target.read_bytes() == before
        status = subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True)
        assert [line for line in status.stdout.splitlines() if "__pycache__" not in line] == []


def test_changed_since_keeps_only_records_whose_target_or_test_changed(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    (project / "app" / "other.py").write_text("def gate(x):\n    return x > 0\n")
    (project / "tests" / "test_other.py").write_text(
        "from app.other import gate\n\n\ndef test_gate():\n"
        '    """Ablation: replace `x > 0` with `True` in `app/other.py`."""\n'
        "    assert gate(0) is False\n"
    )
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    (project / "app" / "other.py").write_text("def gate(x):\n    return x > 0  # edited\n")
    status = main(["ablate", "--records", "tests", "--changed-since", "HEAD", "--format", "json"])
    records = json.loads(capsys.readouterr().out)["records"]
    assert [(r["test"], r["verdict"]) for r in records] == [
        ("tests/test_other.py::test_gate", "killed")
    ]
    assert status == 0
