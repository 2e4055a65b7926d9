"""``truegreen collect-gate``: changed test files that a pytest command never collects."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from truegreen.cli import Status, add_verb
from truegreen.core import formats, protocol
from truegreen.core.collectgate import Record, Verdict, is_test_file, verdicts
from truegreen.core.errors import UsageError
from truegreen.runner.changes import changed_files
from truegreen.runner.process import PytestProcess

EXAMPLE = """\
  # changes since HEAD, committed or not
  truegreen collect-gate -- -m "not slow"
  truegreen collect-gate --base origin/main -- tests/unit -k fast
  truegreen collect-gate --base origin/main --format json -- $CI_PYTEST_ARGS
"""


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "collect-gate",
        summary="find changed test files that a pytest command collects nothing from",
        description="List the test files added or changed since --base (committed since its "
        "merge base with HEAD, staged, unstaged or untracked), run the given pytest command "
        "once with --collect-only, and name each changed test file it collects no test from, "
        "with the reason: outside testpaths or the paths given, misnamed (python_files), "
        "ignored (--ignore, collect_ignore, norecursedirs), deselected (-k, -m, --deselect), "
        "a collection error, or no test inside. A test file is one named like a test "
        "(test_*.py, *_test.py, python_files) or any module under testpaths or a tests "
        "directory that defines test functions. Exit 1 when one collects nothing.",
        example=EXAMPLE,
    )
    parser.add_argument("--base", default="HEAD", metavar="REV",
                        help="compare against this revision (default: HEAD)")  # fmt: skip
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("pytest_args", nargs="*", metavar="-- PYTEST_ARGS")
    parser.set_defaults(run=run)


def collect(cwd: Path, pytest_args: Sequence[str], record_file: Path) -> Record:
    """Run the pytest command once with --collect-only and the recording plugin."""
    pytest = PytestProcess(pytest_args, who="collect-gate", cwd=cwd)
    record = [f"{protocol.COLLECT_RECORD.flag}={record_file}"]
    done = pytest.call(pytest.argv(["--collect-only", "-q", "-p", protocol.COLLECT_RECORD_PLUGIN,
                                    *record]))  # fmt: skip
    if done.status in (3, 4) or not record_file.is_file():
        raise UsageError(
            f"collect-gate: expected pytest to collect with {shlex.join(pytest_args)!r}, "
            f"found exit {done.status}: {done.last_line()}; fix the arguments after --"
        )
    return Record.from_data(json.loads(record_file.read_text(encoding="utf-8")))


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def run(args: argparse.Namespace) -> int:
    cwd = Path.cwd()
    changed = changed_files(cwd, args.base, who="collect-gate", flag="--base")
    changed = [p for p in changed if p.endswith(".py")]
    found: list[Verdict] = []
    if changed:  # no Python file changed: nothing to collect, so pytest need not run
        with tempfile.TemporaryDirectory(prefix="truegreen-collect-gate-") as scratch:
            record = collect(cwd, args.pytest_args, Path(scratch) / "record.json")
        found = verdicts([p for p in changed if is_test_file(p, _read(p), record)], record)
    here = os.path.realpath(cwd)
    shown = {v.path: Path(os.path.relpath(v.path, here)).as_posix() for v in found}
    missing = [v for v in found if v.reason is not None]
    if args.format == "json":
        document = {
            "format": formats.COLLECT_GATE,
            "base": args.base,
            "pytest_args": list(args.pytest_args),
            "files": [
                {"path": shown[v.path], "collected": v.collected, "reason": v.reason} for v in found
            ],
        }
        print(json.dumps(document, indent=2))
    else:
        print(_text(found, missing, shown, args))
    return Status.FINDINGS if missing else Status.CLEAN


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _text(
    found: list[Verdict], missing: list[Verdict], shown: dict[str, str], args: argparse.Namespace
) -> str:
    since = f"since {args.base}"
    if not found:
        return f"collect-gate: no test file changed {since}"
    files = _count(len(found), "test file")
    if not missing:
        tests = _count(sum(v.collected for v in found), "test")
        return f"collect-gate: {files} changed {since}, every one collected ({tests})"
    command = shlex.join(["pytest", *args.pytest_args])
    verb = "collects" if len(missing) == 1 else "collect"
    lines = [f"collect-gate: {len(missing)} of {files} changed {since} {verb} nothing under: "
             f"{command}"]  # fmt: skip
    lines += [f"  {shown[v.path]}: {v.reason}" for v in missing]
    return "\n".join(lines)
