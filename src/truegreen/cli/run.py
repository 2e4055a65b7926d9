"""``truegreen run``: pytest in a sealed process, under a deadline, one file at a time if asked."""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable, Optional

from truegreen.cli import Status, add_jobs, add_verb, count, cpus, seconds, unix_time
from truegreen.cli.signals import Terminated, sigterm_raises
from truegreen.core.metrics import new_run_id, read_dir, summarize
from truegreen.core.protocol import RUN_ID_VAR, SESSION_DIR_PREFIX
from truegreen.runner import forkserver, offline
from truegreen.runner.files import FileRun, FileSessions, Limits
from truegreen.runner.forkclient import ForkServer
from truegreen.runner.process import PytestProcess
from truegreen.runner.procs import Subreaper, sealed_environment
from truegreen.runner.scratch import sweep
from truegreen.runner.selfseal import reexec_sealed

EXAMPLE = """\
  truegreen run -- -q tests/
  truegreen run --deadline 600 --metrics .metrics -- -n 2
  truegreen run --isolate-files -j 4 --file-timeout 120 --retries 1 -- tests/
  truegreen run --offline -- tests/
"""


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "run",
        summary="run pytest sealed: a clean process environment, a deadline, isolated files",
        description="Start pytest in a scrubbed process environment (PATH and a short "
        "allowlist, a fresh HOME, TZ=UTC, LANG=C.UTF-8, no git configuration, no "
        "credentials), so plugins and conftest imports already see a clean machine. At the "
        "deadline the whole process tree is ended (exit 124) and the tests that were running "
        "are named. --isolate-files runs each test file in its own pytest process. --offline "
        "runs the whole tree in a network namespace with only loopback (Linux). Exit "
        "statuses follow pytest's.",
        example=EXAMPLE,
    )
    parser.add_argument("--keep-env", action="append", default=[], metavar="NAME",
                        help="pass one variable through (repeatable)")  # fmt: skip
    parser.add_argument("--metrics", metavar="DIR", help="record the event stream into DIR")
    parser.add_argument("--offline", action="store_true",
                        help="the whole tree in a network namespace with only loopback (Linux, "
                        "unprivileged user namespaces); exit 2 where there is none")  # fmt: skip
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--deadline", type=seconds, metavar="SECONDS", help="seconds from now")
    group.add_argument("--deadline-epoch", type=unix_time, metavar="T", help="a Unix time")
    parser.add_argument("--isolate-files", action="store_true",
                        help="each test file in its own pytest process")  # fmt: skip
    add_jobs(parser, "files' pytest runs with --isolate-files", cpus(), "CPUs")
    parser.add_argument("--file-timeout", type=seconds, metavar="S",
                        help="end a file's pytest run after S seconds, with its whole process "
                        "tree")  # fmt: skip
    parser.add_argument("--retries", type=count(0), default=0, metavar="N",
                        help="reruns of a failing file (default 0)")  # fmt: skip
    parser.add_argument("--strict-flaky", action="store_true",
                        help="a file that passed only on a retry fails the run")  # fmt: skip
    parser.add_argument("--no-fork-server", action="store_true",
                        help="with --isolate-files, start a new process per file instead of "
                        "forking one that imported pytest once (always so on Windows)")  # fmt: skip
    parser.add_argument("pytest_args", nargs="*", metavar="-- PYTEST_ARGS")
    parser.set_defaults(run=run)


def _running(metrics: Path) -> list[str]:
    try:
        return summarize(read_dir(metrics)).unfinished
    except Exception:  # a stream the kill cut short must not hide the deadline itself
        return []


def run(args: argparse.Namespace) -> int:
    """The verb; a SIGTERM ends every process of the run's tree and removes its temporary
    folders, as the end of the run does, before it exits 143."""
    try:
        with sigterm_raises():
            return _start(args)
    except Terminated:
        sys.stderr.write("truegreen run: terminated; every process of the run was ended\n")
        return 128 + signal.SIGTERM


def _start(args: argparse.Namespace) -> int:
    reexec_sealed(args.keep_env)  # first of all: the runner's own environment sealed too
    if args.offline:
        offline.enter()  # first: before any thread, child or temporary directory
    home = tempfile.mkdtemp(prefix="truegreen-run-home-")
    own_metrics = args.metrics is None
    metrics = Path(args.metrics or tempfile.mkdtemp(prefix="truegreen-run-metrics-"))
    deadline = args.deadline_epoch or (time.time() + args.deadline if args.deadline else None)
    env = sealed_environment(os.environ, home, args.keep_env)
    run_id = env[RUN_ID_VAR] = new_run_id()  # every pytest this starts is one run
    start = time.time()
    try:
        # Every process the run starts ends with it, whichever pytest process started it.
        with Subreaper() as reaper:
            status = _run(args, env, metrics, run_id, deadline, start)
        if reaper.ended:
            sys.stderr.write(f"truegreen run: ended {reaper.ended} processes the tests left "
                             "running\n")  # fmt: skip
        return status
    finally:
        shutil.rmtree(home, ignore_errors=True)
        sweep(SESSION_DIR_PREFIX)  # those of the pytest processes a deadline or a signal ended
        if own_metrics:
            shutil.rmtree(metrics, ignore_errors=True)


def _run(
    args: argparse.Namespace,
    env: dict[str, str],
    metrics: Path,
    run_id: str,
    deadline: Optional[float],
    start: float,
) -> int:
    if args.isolate_files:
        return isolated(args, env, metrics, run_id, deadline, start)
    pytest = PytestProcess(args.pytest_args, who="truegreen run", env=env, keep_reports=True)
    argv = pytest.argv([f"--truegreen-metrics={metrics}"])
    done = pytest.call(argv, deadline=deadline, everything=True, capture=False)
    if done.timed_out:
        _deadline_message(start, _running(metrics / run_id))
        return Status.DEADLINE
    return done.status


def _deadline_message(start: float, running: list[str]) -> None:
    sys.stderr.write(f"truegreen run: the deadline ended the run after {time.time() - start:.1f}s"
                     " (exit 124)\n")  # fmt: skip
    for test in running:
        sys.stderr.write(f"  was running: {test}\n")


# -- one file at a time -----------------------------------------------------------------


def _fork_server(args: argparse.Namespace, env: dict[str, str]) -> Optional[ForkServer]:
    if args.no_fork_server or not forkserver.available():
        return None
    try:
        return ForkServer.start(env, args.pytest_args)
    except (RuntimeError, OSError) as exc:
        sys.stderr.write(f"truegreen run: no fork server ({exc}); a new process per file\n")
        return None


def isolated(
    args: argparse.Namespace,
    env: dict[str, str],
    metrics: Path,
    run_id: str,
    deadline: Optional[float],
    start: float,
) -> int:
    server = _fork_server(args, env)
    pytest = PytestProcess(
        args.pytest_args, who="truegreen run", env=env, server=server, keep_reports=True
    )
    limits = Limits(deadline, args.file_timeout, args.retries, args.jobs)
    try:
        with FileSessions(pytest, metrics, limits, run_id) as sessions:
            if not sessions.files:
                if deadline is not None and time.time() >= deadline:
                    _deadline_message(start, [])
                    return Status.DEADLINE
                print("no tests ran")
                return 5
            results = sessions.run()
            sessions.status = report(
                results, args, start, deadline, lambda: _running(metrics / run_id)
            )
            return sessions.status
    finally:
        if server is not None:
            server.close()


def report(
    results: Sequence[FileRun],
    args: argparse.Namespace,
    start: float,
    deadline: Optional[float],
    running: Callable[[], list[str]] = list,
) -> int:
    totals: dict[str, int] = {}
    for result in results:
        for kind, n in result.counts.items():
            totals[kind] = totals.get(kind, 0) + n
    failed = [r for r in results if r.status not in (0, 5) and not r.timed_out]
    timed_out = [r for r in results if r.timed_out]
    flaky = [r for r in results if r.flaky]
    for result in failed:
        print(f"{'=' * 20} FAILED {result.path} (exit {result.status}) {'=' * 20}")
        print(result.output.rstrip())
    for result in timed_out:
        print(f"{'=' * 20} TIMED OUT {result.path}: ended, not retried {'=' * 20}")
        print(result.output.rstrip())
    if flaky:
        print(f"{'=' * 20} FLAKY: passed only on a retry (a bug to fix, not noise) {'=' * 20}")
        for result in flaky:
            print(f"--- {result.path}: the failing attempt ---")
            print((result.first_failure or "").rstrip())
            print(f"--- {result.path}: the passing retry ---")
            print(result.output.rstrip())
    kinds = ("passed", "failed", "errors", "skipped", "xfailed")
    parts = [f"{totals[k]} {k}" for k in kinds if totals.get(k)]
    if flaky:
        parts.append(f"{len(flaky)} flaky files")
    if timed_out:
        parts.append(f"{len(timed_out)} files timed out")
    print(f"{', '.join(parts) or 'no tests ran'} in {time.time() - start:.2f}s "
          f"({len(results)} files, one process each)")  # fmt: skip
    if deadline is not None and time.time() >= deadline and timed_out:
        _deadline_message(start, running())
        return Status.DEADLINE
    if failed or timed_out or (flaky and args.strict_flaky):
        return 1
    return 0 if totals else 5
