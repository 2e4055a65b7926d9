"""``truegreen ablate``: prove a negative test can fail, by running it with its gate cut out.

The user's file is never written. The ablated source is served from memory by an import
hook that the ``sitecustomize`` shim installs in the pytest process and in every Python
child it starts (:mod:`truegreen.guards.mutant`; a warm run, forked from a server that
started pytest once, installs it itself: :mod:`truegreen.runner.ablation`), so a
``kill -9`` at any moment loses no byte of anyone's source, and several ablations run side
by side without seeing each other.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from truegreen.cli import add_jobs, add_run_timeout, add_verb, count, cpus
from truegreen.cli.signals import Terminated, sigterm_raises
from truegreen.core import formats
from truegreen.core.ablation import APPLIES, BROKEN, PASSING, STALE, Unapplied, Verdict
from truegreen.core.claims import (
    Claim,
    ProseRecord,
    StrayRecord,
    Unreadable,
    python_source,
    read_file_records,
    syntax_problem,
)
from truegreen.core.errors import UsageError
from truegreen.core.files import unreadable, walked
from truegreen.core.snippets import (
    SnippetError,
    choose,
    delete,
    delete_lines,
    find_expressions,
    find_statements,
    splice,
)
from truegreen.runner import forkserver
from truegreen.runner.ablation import Ablator, Outcome, Runner

EXAMPLE = """\
  truegreen ablate src/app/config.py --delete "if raw is None: return None" \\
      --test tests/test_config.py::test_missing_value_is_refused
  truegreen ablate src/app/auth.py --replace "level > 2" --with "level > 3" \\
      --test tests/test_auth.py
  # every `Ablation:` record in the suite
  truegreen ablate --records tests/ -j 2
  # a new pytest process a run, not a fork
  truegreen ablate --records tests/ --no-warm
  truegreen ablate --records --changed-since origin/main
  # no run: does each record still name code that exists, once? (seconds)
  truegreen ablate --records tests/ --check
  # no records: which negative tests fail without the raise they caught
  truegreen ablate --discover tests/ -j 2
  truegreen ablate --discover tests/test_config.py --write-records
"""


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "ablate",
        summary="cut a gate out of the code and check that its negative test fails",
        description="Run the given tests unablated (they must pass), then with a snippet of "
        "PATH deleted or replaced, matched by its syntax tree: killed (a test failed: the "
        "claim holds), survived (all passed: the test cannot see the gate), broken (the run "
        "proves nothing), timeout, stale (the snippet matches nothing), ambiguous (several "
        "places), premise-failed. With --records, every `Ablation:` record in the test "
        "files' docstrings and comments, each claim singly. With --discover, no records: one "
        "traced run finds the raise each passing test caught, and each becomes a claim (its "
        "`if` condition made False, or the raise deleted); --write-records then adds the killed "
        "ones to the tests' docstrings, the only time ablate writes a file. Otherwise the file "
        "is never written.",
        example=EXAMPLE,
    )
    parser.add_argument("path", nargs="?", help="the file to ablate (single mode)")
    parser.add_argument("--delete", metavar="SNIPPET", help="statements to delete")
    parser.add_argument("--replace", metavar="OLD", help="an expression to replace")
    parser.add_argument("--with", dest="new", metavar="NEW", help="what replaces OLD")
    parser.add_argument("--lines", metavar="A-B", help="delete lines A to B")
    parser.add_argument("--occurrence", type=count(1), metavar="N",
                        help="which match, when several (1-based)")  # fmt: skip
    parser.add_argument("--test", action="append", default=[], metavar="NODEID")
    parser.add_argument(
        "--records",
        nargs="*",
        metavar="PATHS",
        default=None,
        help="run the records in these test files or directories",
    )
    parser.add_argument(
        "--discover",
        nargs="*",
        metavar="PATHS",
        default=None,
        help="no records: trace one run of these tests, derive a claim from each raise a "
        "passing test caught, and run the claims",
    )
    parser.add_argument(
        "--write-records",
        action="store_true",
        help="with --discover: add each killed claim as an `Ablation:` record to its test's "
        "docstring (the only time ablate writes a file)",
    )
    parser.add_argument(
        "--batch",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="with --discover: run the claims of many tests in one pytest process, each claim "
        "behind a switch (the default); --no-batch runs each claim in a process of its own",
    )
    parser.add_argument(
        "--changed-since",
        metavar="REV",
        help="only records whose target or test file changed since REV",
    )
    add_jobs(parser, "pytest runs", min(4, cpus()), "CPUs, at most 4")
    add_run_timeout(parser, 600.0)
    parser.add_argument(
        "--warm",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="start pytest once and fork each run from it: the default where the OS can fork "
        "(POSIX); --no-warm starts a new process a run",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="with --records: run no test, only check that each record applies (its file "
        "exists and its snippet matches exactly one place, and the result is Python): "
        "seconds where running them takes minutes, for pre-commit; stale, ambiguous and broken "
        "records fail",
    )
    parser.add_argument("--strict", action="store_true", help="prose-only records fail too")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(run=run)


# -- one claim --------------------------------------------------------------------------


def mutate(source: str, claim: Claim, occurrence: Optional[int] = None) -> str:
    """The ablated source; :class:`Unapplied` for a claim that cannot be applied."""
    try:
        if claim.new is None:
            return delete(source, choose(find_statements(source, claim.snippet), occurrence))
        span = choose(find_expressions(source, claim.snippet), occurrence)
        return splice(source, span, claim.new)
    except SnippetError as exc:
        raise Unapplied(BROKEN, str(exc)) from None
    except SyntaxError as exc:
        raise Unapplied(BROKEN, f"{claim.path}: {syntax_problem(exc)}") from None


# -- records ----------------------------------------------------------------------------


def _test_files(paths: list[Path]) -> list[Path]:
    found = []
    for path in paths:
        why = unreadable(path)
        if why is not None:
            raise UsageError(
                f"truegreen ablate: expected a readable file or directory, found {path} ({why})"
            )
        if path.is_dir():
            # a directory named like a test file is walked, not read; a dangling link is
            # kept, to be listed as unreadable
            found += sorted(
                p for p in path.rglob("test_*.py") if ".venv" not in p.parts and walked(p)
            )
        else:
            found.append(path)
    return found


@dataclass
class Found:
    """What the test files hold: claims, prose-only records, and the files that could not
    be read (not Python, or not in their encoding), each with what was wrong."""

    claims: list[Claim] = field(default_factory=list)
    prose: list[ProseRecord] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    stray: list[StrayRecord] = field(default_factory=list)


def collect(paths: list[Path], changed_since: Optional[str]) -> Found:
    found = Found()
    cwd = Path.cwd()
    for path in _test_files(paths):
        name = os.path.relpath(path, cwd).replace(os.sep, "/")
        try:
            claims, prose, stray = read_file_records(path.read_bytes(), name)
        except Unreadable as exc:
            found.unreadable.append((name, str(exc)))
            continue
        except OSError as exc:
            found.unreadable.append(
                (name, f"expected a readable file, found {unreadable(path, exc)}")
            )
            continue
        found.claims += claims
        found.prose += prose
        found.stray += stray
    if changed_since:
        from truegreen.runner.changes import changed_files  # git's module: only for this

        # a record whose target was deleted stays in, to be reported stale
        real = changed_files(cwd, changed_since, who="truegreen ablate", flag="--changed-since",
                             deleted=True)  # fmt: skip
        here = os.path.realpath(cwd)
        changed = {Path(os.path.relpath(path, here)).as_posix() for path in real}
        found.claims = [
            c for c in found.claims if c.path in changed or c.test.split("::")[0] in changed
        ]
    return found


# -- the verb ---------------------------------------------------------------------------


def _single(args: argparse.Namespace) -> list[Claim]:
    if not args.path or not args.test:
        raise UsageError("truegreen ablate: expected PATH and at least one --test, or --records")
    for test in args.test:
        if not test.strip():
            # pytest would run the whole suite, and name no test that failed
            raise UsageError(f"truegreen ablate: --test expects a node id, found {test!r}")
    chosen = [x for x in (args.delete, args.replace, args.lines) if x is not None]
    if len(chosen) != 1 or (args.replace is not None) != (args.new is not None):
        raise UsageError(
            "truegreen ablate: expected exactly one of --delete SNIPPET, --replace OLD --with "
            "NEW, or --lines A-B"
        )
    snippet = args.delete if args.delete is not None else (args.replace or f"lines {args.lines}")
    return [Claim(" ".join(args.test), args.path, snippet, args.new, 0)]


def _prepare(claim: Claim, args: argparse.Namespace) -> Union[str, Verdict]:
    """The ablated source, or the verdict of a claim that cannot be applied."""
    path = Path(claim.path)
    try:
        if not path.is_file():
            raise Unapplied(STALE, f"{claim.path} does not exist")
        try:
            source = python_source(path.read_bytes())
        except Unreadable as exc:
            raise Unapplied(BROKEN, f"{claim.path}: {exc}") from None
        if claim.snippet.startswith("lines ") and args.lines:
            first, _, last = args.lines.partition("-")
            try:
                return delete_lines(source, int(first), int(last or first))
            except (ValueError, SnippetError) as exc:
                raise Unapplied(BROKEN, str(exc)) from None
        return mutate(source, claim, args.occurrence if args.records is None else None)
    except Unapplied as exc:
        return exc.verdict


def run(args: argparse.Namespace) -> int:
    """The verb; a SIGTERM (like Ctrl-C) ends the pytest runs in flight and removes their
    files before it exits (143)."""
    try:
        with sigterm_raises():
            return _run(args)
    except Terminated:
        sys.stderr.write("truegreen ablate: terminated; its pytest runs were ended\n")
        return 128 + signal.SIGTERM


def _run(args: argparse.Namespace) -> int:
    if args.check and (args.records is None or args.discover is not None):
        raise UsageError("truegreen ablate: --check goes with --records [PATHS]")
    if args.discover is not None or args.write_records:
        return _discover(args)
    found = Found()
    plans: list[tuple[Claim, tuple[str, ...]]]
    if args.records is not None:
        found = collect([Path(p) for p in args.records or ["."]], args.changed_since)
        plans = [(c, (c.test,)) for c in found.claims]
    else:
        plans = [(c, tuple(args.test)) for c in _single(args)]
    items = [(c, tests, _prepare(c, args)) for c, tests in plans]
    if args.check:
        return _report(_checked(items), found, args, passing={APPLIES})
    targets = sorted({c.path for c, _, ablated in items if isinstance(ablated, str)})
    # Warm by default where the OS can fork: as safe as a new process a run (docs/ablate.md)
    # and about half the CPU for one claim, a fifth for many.
    warm = forkserver.available() if args.warm is None else args.warm
    runner = Runner.start(args.run_timeout, warm and bool(targets), targets)  # no run, no server
    try:
        for target in targets:
            if runner.server is not None and not runner.forks(target):
                sys.stderr.write(f"truegreen ablate: the warm server imports {target} itself; "
                                 "its claims run in a new process\n")  # fmt: skip
        outcomes = Ablator(runner, args.jobs).run(items)
    finally:
        runner.close()
    return _report(outcomes, found, args, PASSING)


def _checked(items: list[tuple[Claim, tuple[str, ...], Union[str, Verdict]]]) -> list[Outcome]:
    """``--check``: each claim's verdict without a run: applies, or why it cannot."""
    return [
        Outcome(claim, ablated if isinstance(ablated, Verdict) else Verdict(APPLIES), 0.0)
        for claim, _, ablated in items
    ]


def _report(
    outcomes: list[Outcome], found: Found, args: argparse.Namespace, passing: Set[str]
) -> int:
    failing = [o for o in outcomes if o.verdict.verdict not in passing]
    if args.format == "json":
        print(json.dumps(_document(outcomes, found), indent=2))
    else:
        _table(outcomes, found)
    never_run = len(found.unreadable) + len(found.stray)
    return 1 if failing or never_run or (args.strict and found.prose) else 0


def _discover(args: argparse.Namespace) -> int:
    from truegreen.cli import ablate_discover

    if args.discover is None:
        raise UsageError("truegreen ablate: --write-records goes with --discover")
    if args.records is not None or args.path or args.test or args.changed_since:
        raise UsageError(
            "truegreen ablate: expected --discover [PATHS] alone, found it with PATH, --test, "
            "--records or --changed-since"
        )
    return ablate_discover.run(args, lambda claim: _prepare(claim, args))


def _document(outcomes: list[Outcome], found: Found) -> dict[str, Any]:
    return {
        "format": formats.ABLATE,
        "records": [
            {
                "test": o.claim.test,
                "path": o.claim.path,
                "snippet": o.claim.snippet,
                "new": o.claim.new,
                "verdict": o.verdict.verdict,
                "detail": o.verdict.detail,
                "seconds": round(o.seconds, 3),
                "failed": [list(f) for f in o.verdict.failed],
            }
            for o in outcomes
        ],
        "prose_only": [{"test": p.test, "line": p.line, "text": p.text} for p in found.prose],
        "unreadable": [{"path": path, "why": why} for path, why in found.unreadable],
        "not_runnable": [{"path": s.path, "line": s.line, "on": s.where} for s in found.stray],
    }


def _table(outcomes: list[Outcome], found: Found) -> None:
    if outcomes:
        width = min(max(len(o.claim.test) for o in outcomes), 70)
        print(f"{'test':<{width}}  {'verdict':<14}  {'seconds':>7}  record")
        for o in outcomes:
            print(
                f"{o.claim.test[:width]:<{width}}  {o.verdict.verdict:<14}  "
                f"{o.seconds:>7.1f}  {o.claim.describe()}"
            )
        for o in outcomes:
            if o.verdict.detail:
                print(f"  {o.verdict.verdict}: {o.claim.test}: {o.verdict.detail}")
    else:
        print("no checkable claim")
    if found.prose:
        print(f"{len(found.prose)} prose-only records (no `delete ... in ...` clause to check):")
        for p in found.prose:
            print(f"  {p.test}: {p.text}")
    if found.unreadable:
        print(f"{len(found.unreadable)} test files whose records cannot be read:")
        for path, why in found.unreadable:
            print(f"  {path}: {why}")
    if found.stray:
        print(f"{len(found.stray)} records that name no test, never run:")
        for stray in found.stray:
            print(f"  {stray.describe()}")
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.verdict.verdict] = counts.get(o.verdict.verdict, 0) + 1
    print(", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "0 claims")
