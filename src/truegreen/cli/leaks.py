"""``truegreen leaks``: the ambient variable, dotfile, zone or locale a test's outcome hangs on."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from truegreen.cli import Status, add_verb
from truegreen.core import formats
from truegreen.core.errors import UsageError
from truegreen.core.factors import Factor
from truegreen.core.leakhunt import HomeWrite, Leak, LeakReport, find_leaks
from truegreen.runner.leaks import LeakRuns
from truegreen.runner.process import PytestProcess
from truegreen.runner.procs import sealed_environment

EXAMPLE = """\
  truegreen leaks -- -q tests/
  truegreen leaks --keep-env PYTHONPATH --format json -- tests/test_config.py
"""

_NAME = re.compile(r"[^=\0]+\Z")


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "leaks",
        summary="find the ambient variable, dotfile, zone or locale a test depends on",
        description="Run the suite twice, in this shell's environment and sealed as truegreen "
        "run seals it (a fresh HOME, TZ=UTC, LANG=C.UTF-8, no git configuration, only PATH "
        "and a short allowlist), and compare each test's outcome. For every test that "
        "differs, rerun the sealed run's tests in its order, up to the last differing one, "
        "with ambient factors put back (each variable the sealed run lacks, each dotfile of "
        "the home, the time zone, the locale), bisecting to the smallest set that flips it; "
        "confirm it with one whole sealed run, and print the fix. A test the ambient run "
        "failed for writing into the real home is named as such. Values are never printed, "
        "only names. Exit 1 when a test differs, 0 when none does.",
        example=EXAMPLE,
    )
    parser.add_argument("--keep-env", action="append", default=[], metavar="NAME",
                        help="pass one variable to the sealed runs too (repeatable)")  # fmt: skip
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("pytest_args", nargs="*", metavar="-- PYTEST_ARGS")
    parser.set_defaults(run=run)


def _factor(factor: Factor) -> dict[str, str]:
    return {"kind": factor.kind, "name": factor.name, "label": factor.label, "fix": factor.fix}


def document(report: LeakReport) -> dict[str, Any]:
    return {
        "format": formats.LEAKS,
        "tests": report.tests,
        "factors": report.factors,
        "untried": list(report.untried),
        "reruns": report.reruns,
        "leaks": [
            {
                "test": leak.test,
                "ambient": leak.ambient,
                "sealed": leak.sealed,
                "culprit": None if leak.culprit is None else [_factor(f) for f in leak.culprit],
                "confirmed": leak.confirmed,
                "after_home_write": leak.after_home_write,
                "home_write": None
                if leak.home_write is None
                else {
                    "path": leak.home_write.path,
                    "through": None
                    if leak.home_write.through is None
                    else _factor(leak.home_write.through),
                },
            }
            for leak in report.leaks
        ],
        "unsteady": list(report.unsteady),
    }


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _unsteady(report: LeakReport) -> list[str]:
    if not report.unsteady:
        return []
    return [
        "",
        f"{_count(len(report.unsteady), 'test')} differed once but not when the run was "
        "repeated: a flake, not a leak (truegreen flakes):",
        *(f"  {test}" for test in report.unsteady),
    ]


def _home_write(write: HomeWrite) -> list[str]:
    through = write.through
    if through is None:
        way, fix = "", "point the setting that names that place at a path under tmp_path"
    elif through.kind == "variable":
        way = f", reached through {through.label}"
        fix = f"set {through.name} inside the test (monkeypatch.setenv) to a path under tmp_path"
    else:
        way = f", reached through {through.label}"
        fix = (
            f"establish {through.label} inside the test (hermetic.home_file), naming a path "
            "under tmp_path"
        )
    return [
        f"  differs by a write into the real home: {write.path}{way}",
        "  why: the ambient run's write guard (home-writes) stopped the write into your home, "
        "and a rerun in a temporary home cannot make it again",
        f"  fix: {fix}",
    ]


def _explained(leak: Leak) -> list[str]:
    """The lines under a leak's outcomes: its cause and fix, or why there is none."""
    if leak.home_write is not None:
        return _home_write(leak.home_write)
    if leak.culprit is None and leak.after_home_write is not None:
        return [
            "  culprit: none of the ambient factors; it ran after "
            f"{leak.after_home_write}, which the ambient run failed for writing into the real "
            "home: it may depend on what that write would have left (fix that test first)"
        ]
    if leak.culprit is None:
        return [
            "  culprit: none of the ambient factors; with all of them the test still "
            "behaves as sealed (a system file, a flake: try truegreen flakes)"
        ]
    names = " + ".join(f.label for f in leak.culprit)
    if not leak.confirmed:
        return [
            f"  culprit: not confirmed; the search ended on {names}, but the whole sealed "
            f"run with it applied does not give the test its ambient outcome ({leak.ambient}) "
            "again: it depends on order or chance (try truegreen flakes), not on this factor"
        ]
    return [f"  culprit: {names}", *(f"  fix: {f.fix}" for f in leak.culprit)]


def render(report: LeakReport) -> str:
    if not report.leaks:
        head = (
            f"truegreen leaks: no test differs between the ambient and the sealed run "
            f"({_count(report.tests, 'test')}, {_count(report.factors, 'ambient factor')})"
        )
        return "\n".join([head, *_unsteady(report)])
    lines = [
        f"truegreen leaks: {len(report.leaks)} of {_count(report.tests, 'test')} differ "
        f"between the ambient and the sealed run ({_count(report.factors, 'ambient factor')}, "
        f"{_count(report.reruns, 'rerun')})"
    ]
    for leak in report.leaks:
        lines += ["", leak.test, f"  ambient: {leak.ambient}, sealed: {leak.sealed}"]
        lines += _explained(leak)
    lines += _unsteady(report)
    for path in report.untried:
        lines += ["", f"note: {path} was not tried (too large to copy into every rerun's home)"]
    return "\n".join(lines)


def _progress(line: str) -> None:
    sys.stderr.write(f"truegreen leaks: {line}\n")
    sys.stderr.flush()


def run(args: argparse.Namespace) -> int:
    for name in args.keep_env:
        if not _NAME.match(name):
            shown = name.split("=", 1)[0] + "=..." if "=" in name else name  # never a value
            raise UsageError(
                f"truegreen leaks: --keep-env takes a variable name, like --keep-env "
                f"MYAPP_URL (got {shown!r})"
            )
    keep = tuple(args.keep_env)

    def seal(ambient: Mapping[str, str], home: str) -> dict[str, str]:
        return sealed_environment(ambient, home, keep)

    # One process: a rerun keeps the sealed run's order, which xdist's workers would not.
    pytest = PytestProcess(args.pytest_args, who="truegreen leaks", cwd=Path.cwd(),
                           one_process=True)  # fmt: skip
    runs = LeakRuns(pytest, os.environ, Path(os.path.expanduser("~")), seal)
    report = find_leaks(runs, runs.machine(), _progress)
    if args.format == "json":
        print(json.dumps(document(report), indent=2))
    else:
        print(render(report))
    return Status.FINDINGS if report.leaks else Status.CLEAN
