"""``truegreen collect-gate``: changed test files that a pytest command never collects."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from truegreen.cli import Status, add_verb
from truegreen.core import formats
from truegreen.core.collectgate import Record, Verdict, is_test_file, verdicts
from truegreen.core.errors import UsageError
from truegreen.core.hermetic import GIT_UNSET, GIT_UNSET_PREFIXES

EXAMPLE = """\
  truegreen collect-gate -- -m "not slow"            # changes since HEAD, committed or not
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


def git_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The caller's environment without git's repository and config overrides: only the
    checkout itself decides what changed."""
    env = {
        name: value
        for name, value in environ.items()
        if name not in GIT_UNSET and not name.startswith(GIT_UNSET_PREFIXES)
    }
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_SYSTEM=os.devnull,
               GIT_CONFIG_NOSYSTEM="1", LC_ALL="C")  # fmt: skip
    return env


def _git(args: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", *args], cwd=cwd, env=git_environment(os.environ), stdin=subprocess.DEVNULL,
            capture_output=True, text=True, errors="surrogateescape", check=False,
        )  # fmt: skip
    except OSError as exc:
        raise UsageError(f"collect-gate: expected git on PATH, found none ({exc})") from None


def changed_files(cwd: Path, base: str) -> list[str]:
    """Real paths of the files added or changed since ``base``'s merge base with HEAD,
    committed or not, untracked included; deleted files left out."""
    top = _git(["rev-parse", "--show-toplevel"], cwd)
    if top.returncode != 0:
        raise UsageError(
            f"collect-gate: expected a git checkout, found none at {str(cwd)!r}; "
            "run it inside the repository"
        )
    root = Path(top.stdout.strip())
    if _git(["rev-parse", "--verify", "--quiet", f"{base}^{{commit}}"], cwd).returncode != 0:
        raise UsageError(
            f"collect-gate: --base expected a git revision, found {base!r}; "
            "name a branch, tag or commit (default HEAD)"
        )
    merge_base = _git(["merge-base", base, "HEAD"], cwd)
    since = merge_base.stdout.strip() if merge_base.returncode == 0 else base
    names: set[str] = set()
    for args in (
        ["diff", "--name-only", "-z", "--diff-filter=d", since, "--"],
        ["ls-files", "--others", "--exclude-standard", "-z"],
    ):
        done = _git(args, root)
        if done.returncode != 0:
            said = done.stderr.strip().splitlines() or ["no output"]
            raise UsageError(f"collect-gate: git {args[0]} failed: {said[-1]}")
        names.update(name for name in done.stdout.split("\0") if name)
    return sorted(os.path.realpath(root / name) for name in names)


def collect(cwd: Path, pytest_args: Sequence[str], record_file: Path) -> Record:
    """Run the pytest command once with --collect-only and the recording plugin."""
    argv = [sys.executable, "-m", "pytest", "--collect-only", "-q",
            "-p", "truegreen.plugin.collectrecord", f"--truegreen-collect-record={record_file}",
            *pytest_args]  # fmt: skip
    done = subprocess.run(
        argv, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        errors="replace", check=False,
    )  # fmt: skip
    if done.returncode in (3, 4) or not record_file.is_file():
        raise UsageError(
            f"collect-gate: expected pytest to collect with {shlex.join(pytest_args)!r}, "
            f"found exit {done.returncode}: {_complaint(done.stderr + done.stdout)}; "
            "fix the arguments after --"
        )
    return Record.from_data(json.loads(record_file.read_text(encoding="utf-8")))


def _complaint(output: str) -> str:
    """The line of pytest's output that says what went wrong."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    return (errors or lines or ["no output"])[-1]


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def run(args: argparse.Namespace) -> int:
    cwd = Path.cwd()
    changed = [p for p in changed_files(cwd, args.base) if p.endswith(".py")]
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
