"""pytest as a child of the command: collect its units, run a selection in an order, and
read each test's outcome back from the event stream the plugin records.

Every verb that starts pytest and reads something back (``run``, ``leaks``, ``flakes``,
``shards plan``, ``collect-gate``) goes through :class:`PytestProcess`: one way to build the
argv (the hidden options of :mod:`truegreen.core.protocol`), to start it (a new process in
a session of its own, or a fork of a warm server), to end it at a deadline with its whole
process tree, and to say in one line why a run proved nothing.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from truegreen.core import protocol
from truegreen.core.errors import DataError, UsageError
from truegreen.core.reports import probe_environment
from truegreen.runner.forkclient import ForkServer, start_pytest
from truegreen.runner.procs import Child, InFlight, wait_until

if TYPE_CHECKING:  # the event streams' modules: imported by the runs that read them
    from truegreen.core.outcomes import Outcomes

Progress = Callable[[str], None]


def last_line(output: str) -> str:
    """What pytest said last about what went wrong: the last line that reports an error
    (``ERROR ...``, an ``E   ...`` line of a traceback, ``pytest: error: ...``: its usage
    errors end with ``inifile:`` and ``rootdir:`` lines), else its last line, without the
    ``=`` rule around a summary."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("E ", "ERROR")) or "error:" in line]
    found = (errors or lines or ["no output"])[-1]
    return found.strip("= ") or found


@dataclass(frozen=True)
class Finished:
    """A pytest process that ended: its exit status, its output (empty when not captured),
    and whether the deadline ended it (status 124)."""

    status: int
    output: str = ""
    timed_out: bool = False

    def last_line(self) -> str:
        return last_line(self.output)


class TimedOut(Exception):
    """The deadline ended a pytest process before it said anything usable."""


class PytestProcess:
    """``python -m pytest OPTIONS ... PYTEST_ARGS``, started as often as a verb needs.

    ``who`` names the verb in errors; ``env`` is the environment of every start unless a
    call gives its own (by default this process's); ``options`` go before the user's
    arguments; ``server`` forks each run from a warm pytest instead of starting a new one;
    with ``one_process``, ``-n 0`` after the user's arguments keeps a run out of xdist
    unless a call asks for workers (an ``-n`` in the suite's addopts would scatter it).
    ``timeout`` bounds each run; ``progress`` hears when it ended one; ``python`` is the
    interpreter that runs pytest (this one's unless named). Unless ``keep_reports`` (a run of
    the user's suite in their stead), the runs are probes: report and coverage options in
    ``PYTEST_ADDOPTS`` are left out (:mod:`truegreen.core.reports`).
    """

    def __init__(
        self,
        pytest_args: Sequence[str],
        *,
        who: str,
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[Path] = None,
        options: Sequence[str] = (),
        server: Optional[ForkServer] = None,
        one_process: bool = False,
        timeout: Optional[float] = None,
        progress: Progress = lambda line: None,
        python: Optional[str] = None,
        keep_reports: bool = False,
    ) -> None:
        self.pytest_args = list(pytest_args)
        self.who = who
        self.env = dict(os.environ if env is None else env)
        self.keep_reports = keep_reports
        self.cwd = cwd
        self.options = list(options)
        self.server = server
        self.timeout = timeout
        self.progress = progress
        self.python = python
        self.calls = 0
        blocked = any("no:xdist" in arg for arg in self.pytest_args)
        self.xdist = one_process and not blocked and python is None and _has_xdist()

    # -- starting -------------------------------------------------------------------------

    def argv(self, extra: Sequence[str] = (), after: Sequence[str] = ()) -> list[str]:
        """pytest's arguments: the options, ``extra``, the user's arguments, ``after``."""
        return [*self.options, *extra, *self.pytest_args, *after]

    def start(
        self,
        args: Sequence[str],
        output: Optional[str],
        env: Optional[Mapping[str, str]] = None,
    ) -> Child:
        """Start ``pytest ARGS`` (as built by :meth:`argv`) with its output in the file
        ``output`` (None: this process's own), forked by the server when there is one."""
        environ = self.env if env is None else dict(env)
        if not self.keep_reports:
            environ = probe_environment(environ)
        fork_env = None if env is None else environ
        cwd = None if self.cwd is None else str(self.cwd)
        return start_pytest(args, output, environ, self.server, fork_env, cwd, self.python)

    def call(
        self,
        args: Sequence[str],
        *,
        env: Optional[Mapping[str, str]] = None,
        deadline: Optional[float] = None,
        everything: bool = False,
        capture: bool = True,
        within: Optional[str] = None,
        watch: Optional[InFlight] = None,
    ) -> Finished:
        """Run ``pytest ARGS`` to its end or to ``deadline`` (epoch seconds), when its whole
        process tree is ended (``everything``: every orphan of this subreaper's too). Its
        output goes to a temporary folder in ``within`` (by default the temporary directory);
        ``watch`` holds the run while it lasts, to end it when the verb is stopped."""
        self.calls += 1
        with tempfile.TemporaryDirectory(prefix="truegreen-pytest-", dir=within) as scratch:
            output = os.path.join(scratch, "output") if capture else None
            child = self.start(args, output, env)
            with watch.holding(child) if watch is not None else contextlib.nullcontext():
                status, timed_out = wait_until(child, deadline, everything=everything)
            text = ""
            if output is not None and os.path.exists(output):
                with open(output, "rb") as handle:
                    text = handle.read().decode(errors="replace")
        return Finished(status, text, timed_out)

    # -- what a verb asks -----------------------------------------------------------------

    def collect_units(
        self, extra: Sequence[str] = (), *, deadline: Optional[float] = None
    ) -> dict[str, str]:
        """Node id -> unit of every test the selection reaches, in collection order.

        :class:`TimedOut` when the deadline ends the collection; a :class:`UsageError`
        with pytest's last line when it collects nothing the plugin could record.
        """
        return self.collect(extra, deadline=deadline)[0]

    def collect(
        self, extra: Sequence[str] = (), *, deadline: Optional[float] = None
    ) -> tuple[dict[str, str], dict[str, str]]:
        """:meth:`collect_units`, and node id -> document of every item that is not a Python
        test function (:func:`truegreen.core.protocol.units_document`)."""
        with tempfile.TemporaryDirectory(prefix="truegreen-collect-") as scratch:
            plan = os.path.join(scratch, "units.json")
            added = ["--collect-only"]
            added += [] if "-q" in self.options else ["-q"]
            added += [] if "no:cacheprovider" in self.options else ["-p", "no:cacheprovider"]
            request = protocol.Request(plan_out=plan).argv()
            args = self.argv([*added, *request, *extra], self._one())
            done = self.call(args, deadline=deadline, everything=True)
            if done.timed_out:
                raise TimedOut
            try:
                with open(plan, encoding="utf-8") as handle:
                    text = handle.read()
                return protocol.read_units(text, plan), protocol.read_documents(text, plan)
            except (OSError, DataError):
                raise UsageError(
                    f"{self.who}: expected pytest to collect with {self._shown()} and the "
                    f"truegreen plugin on, found exit {done.status}: {done.last_line()}"
                ) from None

    def run(
        self,
        selection: Optional[Sequence[str]] = None,
        order: Optional[Sequence[str]] = None,
        *,
        env: Optional[Mapping[str, str]] = None,
        workers: Optional[int] = None,
        private: bool = False,
    ) -> Outcomes:
        """Run the user's selection, kept to ``selection`` (node ids, in collection order)
        or run in exactly ``order``, and read each test's outcome from its event stream.

        With ``workers``, under ``pytest -n WORKERS``. With ``private`` the run's output may
        hold the values of variables: it is discarded, and an error names no line of it.
        """
        from truegreen.core.metrics import read_dir
        from truegreen.core.outcomes import Outcomes

        scratch = Path(tempfile.mkdtemp(prefix="truegreen-run-"))
        try:
            metrics = scratch / "metrics"
            request = protocol.Request(
                only_ids=self._listing(scratch / "only.json", selection),
                order=self._listing(scratch / "order.json", order),
            )
            extra = [f"--truegreen-metrics={metrics}", *request.argv()]
            after = ["-n", str(workers)] if workers else self._one()
            args = self.argv(extra, [*self._narrowed(selection), *after])
            deadline = time.time() + self.timeout if self.timeout else None
            done = self.call(args, env=env, deadline=deadline)
            if done.timed_out:
                self.progress(f"  the run was ended after {self.timeout:g}s (--run-timeout); "
                              "the test it was running counts as failed")  # fmt: skip
            streams = read_dir(metrics) if metrics.is_dir() else []
            if not streams:
                said = "run pytest with them to see why" if private else done.last_line()
                raise UsageError(
                    f"{self.who}: expected pytest to run {self._shown()} and record its event "
                    "stream with the truegreen plugin on (no -p no:truegreen, no enabled = "
                    f"false), found exit {done.status}: {said}"
                )
            return Outcomes.from_streams(done.status, streams, timed_out=done.timed_out)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    # -- helpers ----------------------------------------------------------------------------

    def _one(self) -> list[str]:
        return ["-n", "0"] if self.xdist else []

    def _shown(self) -> str:
        return repr(shlex.join(self.pytest_args)) if self.pytest_args else "no arguments"

    @staticmethod
    def _listing(path: Path, nodeids: Optional[Sequence[str]]) -> Optional[str]:
        if nodeids is None:
            return None
        path.write_text(protocol.ids_text(nodeids), encoding="utf-8")
        return str(path)

    def _narrowed(self, selection: Optional[Sequence[str]]) -> list[str]:
        """The node ids of ``selection`` as arguments, so only their files are collected,
        when every file resolves from the working directory (the only-ids file keeps the
        run to the selection either way, within whatever the user's arguments select)."""
        if selection is None or "--pyargs" in self.pytest_args:
            return []
        here = self.cwd or Path.cwd()
        files = {nodeid.split("::", 1)[0] for nodeid in selection}
        return list(selection) if all((here / path).is_file() for path in files) else []


def _has_xdist() -> bool:
    import importlib.util

    return importlib.util.find_spec("xdist") is not None
