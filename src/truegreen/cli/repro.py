"""``truegreen repro [REV]``: the CI run reproduced on a clean room, its outcomes compared with
this checkout's."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from truegreen.cli import Status, _Parser, add_verb
from truegreen.cli.metrics import plural
from truegreen.core import formats
from truegreen.core.errors import UsageError
from truegreen.core.metrics import pick, read_dir, runs, summarize
from truegreen.core.reports import without_reports
from truegreen.core.repro import compare, pytest_step, sentence
from truegreen.runner.repro import WHO, CleanRoom, checkout, run_suite

EXAMPLE = """\
  truegreen repro                      # HEAD, with pytest's default command
  truegreen repro main --workflow .github/workflows/ci.yml
  truegreen repro HEAD --extra test -- -q tests/
  # offline: wheels from a folder, or this environment's packages
  PIP_NO_INDEX=1 PIP_FIND_LINKS=wheels/ truegreen repro
  truegreen repro --inherit-packages --local .metrics --format json
"""


class _SplitParser(_Parser):
    """The verb's parser: what follows ``--`` is pytest's, whatever REV is; argparse alone
    would hand the first of pytest's arguments to the optional REV."""

    def parse_known_args(  # type: ignore[override]
        self, args: Optional[Sequence[str]] = None, namespace: Optional[argparse.Namespace] = None
    ) -> tuple[argparse.Namespace, list[str]]:
        words = list(sys.argv[1:] if args is None else args)
        after: list[str] = []
        if "--" in words:
            at = words.index("--")
            words, after = words[:at], words[at + 1 :]
        found, extra = super().parse_known_args(words, namespace)
        found.pytest_args = after
        return found, extra


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "repro",
        summary="the CI run reproduced on a clean room: fresh clone, fresh venv, outcomes compared",
        description="Clone REV (default HEAD) of this repository into a temporary directory, "
        "make a fresh venv there with the project's declared test dependencies (from uv.lock "
        "when there is one, else a requirements file, else pyproject.toml's test extra and "
        "dependency group; --install and --extra choose instead), run the suite sealed with "
        "the CI's pytest command (the step of --workflow FILE that runs pytest, else the "
        "arguments after --, else pytest's default), and compare each test's outcome with "
        "this checkout's: a local run made the same way here, or the event stream of --local "
        "DIR. Uncommitted and untracked files are not in the clean room, and that is the "
        "point: a green local run can hide a missing install step or a file never "
        "committed.\n\n"
        "pip and uv read their own variables (PIP_NO_INDEX, PIP_FIND_LINKS, PIP_INDEX_URL, "
        "UV_*) from this shell. Progress goes to stderr. Exit status 1 when an outcome "
        "differs or the clean room cannot install or run the suite, 0 when every outcome "
        "is the same, 2 for bad input (not a git checkout, an unknown REV, an unreadable "
        "workflow).",
        example=EXAMPLE,
    )
    parser.__class__ = _SplitParser  # the subparsers' class is shared by every verb
    parser.usage = "truegreen repro [options] [REV] [-- PYTEST_ARGS]"
    parser.add_argument("rev", nargs="?", default="HEAD", metavar="REV",
                        help="the revision to reproduce (default HEAD)")  # fmt: skip
    parser.add_argument("--workflow", type=Path, metavar="FILE",
                        help="a GitHub workflow file: its first step that runs pytest gives "
                        "the command")  # fmt: skip
    parser.add_argument("--local", type=Path, metavar="DIR",
                        help="compare with this run's event stream (--truegreen-metrics=DIR, "
                        "its latest run) instead of running the suite here")  # fmt: skip
    parser.add_argument("--install", action="append", default=[], metavar="CMD",
                        help="install with this command instead, run in the clone with the "
                        "venv first on PATH; python and pip mean the venv's "
                        "(repeatable)")  # fmt: skip
    parser.add_argument("--extra", action="append", default=[], metavar="NAME",
                        help="install the project with this extra instead of the test extra "
                        "found in pyproject.toml (repeatable)")  # fmt: skip
    parser.add_argument("--inherit-packages", action="store_true",
                        help="the venv also sees this environment's installed packages, as "
                        "with --system-site-packages (for a machine that cannot download); "
                        "the clone's own files still come only from git")  # fmt: skip
    parser.add_argument("--keep-env", action="append", default=[], metavar="NAME",
                        help="pass one variable through to both sealed runs "
                        "(repeatable)")  # fmt: skip
    parser.add_argument("--keep", action="store_true",
                        help="keep the clean room's directory (its path is printed)")  # fmt: skip
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(run=run, pytest_args=[])


def _progress(line: str) -> None:
    sys.stderr.write(f"{WHO}: {line}\n")
    sys.stderr.flush()


def _command(args: argparse.Namespace) -> tuple[list[str], str]:
    """pytest's arguments, and where they came from."""
    if args.workflow is None:
        shown = shlex.join(args.pytest_args)
        return list(args.pytest_args), f"pytest {shown}".strip()
    if args.pytest_args:
        raise UsageError(f"{WHO}: expected the pytest command from --workflow or after --, "
                         "found both; give one")  # fmt: skip
    try:
        text = args.workflow.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise UsageError(f"{WHO}: --workflow {str(args.workflow)!r}: expected a readable "
                         f"workflow file, found {why}") from None  # fmt: skip
    step = pytest_step(text, str(args.workflow))
    return without_reports(step.args), f"{step.command} ({args.workflow}, line {step.line})"


def _local(directory: Path) -> dict[str, str]:
    """Each test's outcome in the latest run recorded in ``directory``."""
    return dict(summarize(pick(runs(read_dir(directory)), None).streams).outcomes)


def document(args: argparse.Namespace) -> dict[str, Any]:
    repo = checkout(Path.cwd(), args.rev)
    pytest_args, command = _command(args)
    recorded = None if args.local is None else _local(args.local)  # bad input fails first
    if repo.uncommitted:
        untracked = sum(code == "??" for code, _ in repo.uncommitted)
        parts = [plural(len(repo.uncommitted) - untracked, "uncommitted change"),
                 plural(untracked, "untracked file")]  # fmt: skip
        shown = " and ".join(p for p in parts if not p.startswith("0 "))
        _progress(f"not in the clean room: {shown} of this checkout (commit them to test them)")
    room = CleanRoom(_progress, keep=args.keep)
    try:
        room.clone(repo)
        chosen = room.plan(args.extra, args.install)
        room.make_venv(args.inherit_packages)
        room.install(chosen, os.environ)
        room.ready(chosen)
        _progress(f"running the suite in the clean room: {command}")
        clean = run_suite(pytest_args, cwd=room.source, keep=args.keep_env,
                          environ=room.environment(os.environ), python=room.python)  # fmt: skip
    finally:
        room.close()
    here_why: dict[tuple[str, str], str] = {}  # an event stream holds no failure text
    if recorded is not None:
        here_tests, local = recorded, f"the event stream in {args.local}"
    else:
        _progress(f"running the suite here: {command}")
        here = run_suite(pytest_args, cwd=repo.root, keep=args.keep_env, environ=os.environ)
        here_tests, here_why = dict(here.outcomes.tests), here.messages
        local = f"a sealed run in {repo.root}"
    differences = compare(here_tests, clean.outcomes.tests, here_why, clean.messages)
    return {
        "format": formats.REPRO,
        "revision": {"asked": repo.rev, "commit": repo.sha},
        "command": command,
        "pytest_args": pytest_args,
        "installed_from": chosen.chose,
        "install_commands": [list(c) for c in chosen.commands],
        "local": local,
        "not_in_clean_room": [{"status": code, "path": path} for code, path in repo.uncommitted],
        "tests": {"here": len(here_tests), "clean": len(clean.outcomes.tests)},
        "differences": differences,
    }


def report(data: dict[str, Any]) -> list[str]:
    """The differences in words, grouped by the pair of outcomes."""
    tests = data["tests"]
    head = (f"truegreen repro: {data['revision']['asked']} ({data['revision']['commit'][:12]}) "
            f"on a clean machine, {plural(tests['clean'], 'test')}; here, "
            f"{plural(tests['here'], 'test')} ({data['local']})")  # fmt: skip
    lines = [head, f"installed from {data['installed_from']}", f"command: {data['command']}"]
    differences = data["differences"]
    if not differences:
        lines += ["", "every test has the same outcome here and on a clean machine"]
    groups: dict[str, list[dict[str, Any]]] = {}
    for one in differences:
        groups.setdefault(sentence(one["here"], one["clean"]), []).append(one)
    for words, group in groups.items():
        lines += ["", f"{words}: {plural(len(group), 'test')}"]
        for one in group:
            lines.append(f"  {one['test']}" + (f": {one['why']}" if one["why"] else ""))
    if differences and data["not_in_clean_room"]:
        lines += ["", "not in the clean room (uncommitted or untracked here):"]
        lines += [f"  {d['status']} {d['path']}" for d in data["not_in_clean_room"][:20]]
        more = len(data["not_in_clean_room"]) - 20
        lines += [f"  ... and {more} more"] if more > 0 else []
    return lines


def run(args: argparse.Namespace) -> int:
    data = document(args)
    if args.format == "json":
        print(json.dumps(data, indent=2))
    else:
        print("\n".join(report(data)))
    return Status.FINDINGS if data["differences"] else Status.CLEAN
