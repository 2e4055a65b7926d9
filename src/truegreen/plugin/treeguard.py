"""The tree guard: git status before and after the run (session) or around every test (each)."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from collections.abc import Generator, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Callable, Optional

import pytest

from truegreen.core import protocol
from truegreen.core.config import Config
from truegreen.core.gitstatus import Change, Snapshot, diff_snapshots, excluded, parse_status
from truegreen.guards.git import GitError, environment, git
from truegreen.guards.hook import quiet
from truegreen.plugin.listing import HooksOnly
from truegreen.plugin.relay import relay
from truegreen.plugin.stash import MACHINE_ENV_KEY, per_test

# Captured at import: a test that mocks these must not blind the guard that watches it.
_open = open
_lstat = os.lstat
_readlink = os.readlink

# Dirty files up to this size are hashed; bigger ones are compared by size and mtime only.
HASH_LIMIT = 1 << 20
SECTION = "truegreen tree guard"
# Set on a teardown report as a plain list of [path, what], so xdist can ship it to the controller.
REPORT_ATTR = "truegreen_tree_changes"
_STATUS = ("status", "--porcelain=v1", "-z", "--untracked-files=all")


def find_checkout(root: Path, env: Mapping[str, str]) -> tuple[Optional[str], str]:
    """The top of the git checkout holding ``root``, or None and the reason there is none.

    Found without starting git, as git looks: the nearest directory at or above ``root``
    (its real path) holding a ``.git``, never entering one of ``GIT_CEILING_DIRECTORIES``.
    A run outside a checkout starts no git at all; inside one, the two ``git status`` of
    the session are the only processes the guard starts.
    """
    folder = os.path.realpath(root)
    ceilings = env.get("GIT_CEILING_DIRECTORIES", "").split(os.pathsep)
    stops = {os.path.realpath(c) for c in ceilings if c}
    while not os.path.lexists(os.path.join(folder, ".git")):
        parent = os.path.dirname(folder)
        if parent == folder or parent in stops:
            return None, f"not a git checkout: {root}"
        folder = parent
    if shutil.which("git", path=env.get("PATH", os.defpath)) is None:
        return None, "git not found"
    return folder, ""


def fingerprint(path: str) -> str:
    """What a dirty file looks like now: size, mtime and (below HASH_LIMIT) a SHA-1 of it."""
    try:
        st = _lstat(path)
    except OSError:
        return "missing"
    if stat.S_ISLNK(st.st_mode):
        return "link " + _readlink(path)
    if not stat.S_ISREG(st.st_mode):
        return f"mode {st.st_mode:o}"  # a nested repository or submodule: git speaks for it
    mark = f"{st.st_size} {st.st_mtime_ns}"
    if st.st_size > HASH_LIMIT:
        return mark
    try:
        with _open(path, "rb") as handle:
            return f"{mark} {hashlib.sha1(handle.read(), usedforsecurity=False).hexdigest()}"
    except OSError as exc:
        return f"{mark} unreadable ({exc.strerror})"


class Checkout:
    """One git checkout, asked with the environment the session started with."""

    def __init__(self, top: str, env: Mapping[str, str], skip: Sequence[str] = ()) -> None:
        self.top = top
        self.env = env
        self.skip = tuple(skip)

    def snapshot(self) -> Snapshot:
        # The guard's own git and reads are truegreen's, not the test's: the guards look away.
        with quiet():
            return self._snapshot()

    def _snapshot(self) -> Snapshot:
        done = git(_STATUS, self.top, self.env)
        if not done.ok:
            raise GitError(f"git status failed in {self.top}: {done.complaint()}")
        try:
            parsed = parse_status(done.stdout)
        except ValueError as exc:
            raise GitError(f"could not read git status in {self.top}: {exc}") from None
        status = {p: code for p, code in parsed.items() if not excluded(p, self.skip)}
        return Snapshot(status, {p: fingerprint(os.path.join(self.top, p)) for p in status})


def _inside(path: str, top: str) -> Optional[str]:
    """``path`` relative to ``top`` with '/' separators, or None when it lies outside."""
    real, base = os.path.realpath(path), os.path.realpath(top)
    try:
        if os.path.commonpath([real, base]) != base or real == base:
            return None
    except ValueError:  # another drive
        return None
    return os.path.relpath(real, base).replace(os.sep, "/")


def _own_paths(config: pytest.Config, settings: Config, top: str) -> list[str]:
    """The paths inside the checkout that this run writes itself, relative to ``top``.

    pytest empties and refills ``--basetemp``; truegreen writes the manifest and metrics
    directories, the durations file and the files its own verbs ask for. What the run was
    told to write is no change a test made.
    """
    request = protocol.Request.from_options(config.getoption)
    named = (
        config.option.basetemp,
        settings.manifest,
        settings.metrics,
        settings.durations,
        request.plan_out,
        request.basetemp_out,
    )
    where = config.invocation_params.dir
    inside = (_inside(os.path.join(where, path), top) for path in named if path)
    return [path for path in inside if path is not None]


class TreeGuardPlugin(HooksOnly):
    """Fails a run (session) or a test (each) that changed what git status reports."""

    def __init__(
        self,
        mode: str,
        checkout: Optional[Checkout],
        why_off: str,
        worker: bool,
        ordered: Callable[[Iterable[str]], list[str]] = list,
    ) -> None:
        self.mode = mode
        self.ordered = ordered  # tests in the run's order (under xdist, not the reports')
        self.checkout = checkout
        self.why_off = why_off
        # Only the process that is not an xdist worker sees the whole run.
        self.whole_run = checkout is not None and not worker
        self.per_test = checkout is not None and mode == "each"
        self.start: Optional[Snapshot] = None
        self.chain: Optional[Snapshot] = None
        self.chain_problem: Optional[str] = None
        self.run_changes: list[Change] = []
        self.by_test: dict[str, list[Change]] = {}
        self.problems: list[str] = []

    @classmethod
    def register(cls, config: pytest.Config, settings: Config) -> TreeGuardPlugin:
        # git sees the developer's excludes file: the environment before the process seal
        machine = config.stash.get(MACHINE_ENV_KEY, None)
        env = environment(os.environ if machine is None else machine, user_config=True)
        top, why_off = find_checkout(config.rootpath, env)
        checkout = None
        if top is not None:
            checkout = Checkout(top, env, _own_paths(config, settings, top))
        worker = hasattr(config, "workerinput")
        plugin = cls(settings.tree_guard, checkout, why_off, worker, relay(config).ordered)
        config.pluginmanager.register(plugin, "truegreen-tree-guard")
        if plugin.per_test:
            each = EachTest(plugin)
            config.pluginmanager.register(each, "truegreen-tree-guard-each")
            per_test(config).add("tree", each)
        return plugin

    def snapshot(self) -> tuple[Optional[Snapshot], Optional[str]]:
        assert self.checkout is not None
        try:
            return self.checkout.snapshot(), None
        except GitError as exc:
            return None, f"could not compare the working tree: {exc}"

    # -- the whole run ----------------------------------------------------------

    def pytest_report_header(self) -> list[str]:
        if self.checkout is None:
            return [f"{SECTION}: off here ({self.why_off})"]
        if self.mode == "each":
            return [f"{SECTION}: each (git status around every test)"]
        return [f"{SECTION}: session (git status before and after the run)"]

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self) -> None:
        if self.whole_run:
            self.start = self._keep(self.snapshot())

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.whole_run:
            return
        if self.start is not None:
            after = self._keep(self.snapshot())
            if after is not None:
                named = {c.path for changes in self.by_test.values() for c in changes}
                self.run_changes = [
                    c for c in diff_snapshots(self.start, after) if c.path not in named
                ]
        # Like pytest's own --max-warnings: the tests passed, the run did not.
        if (self.run_changes or self.problems) and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _keep(self, taken: tuple[Optional[Snapshot], Optional[str]]) -> Optional[Snapshot]:
        snapshot, problem = taken
        if problem is not None:
            self.problems.append(problem)
        return snapshot

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.whole_run or not (self.run_changes or self.by_test or self.problems):
            return
        tr = terminalreporter
        tr.write_sep("-", SECTION, red=True)
        for nodeid in self.ordered(self.by_test):
            tr.write_line(f"{nodeid} changed the working tree:")
            for change in self.by_test[nodeid]:
                tr.write_line(f"  {change}")
        if self.run_changes:
            where = "outside any test" if self.per_test else "during the run"
            tr.write_line(f"{protocol.TREE_CHANGED} {where} (git status before and after):")
            for change in self.run_changes:
                tr.write_line(f"  {change}")
        for problem in self.problems:
            tr.write_line(problem)
        hint = "the run fails"
        if self.run_changes and not self.per_test:
            hint += "; --truegreen-tree-guard=each names the test that did it"
        tr.write_line(f"{hint}; a path a test may write belongs in .gitignore", red=True)


class EachTest(HooksOnly):
    """The per-test half of ``tree-guard = "each"``: registered only in that mode, so the
    session mode adds no hook to any test."""

    def __init__(self, guard: TreeGuardPlugin) -> None:
        self.guard = guard

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self) -> None:
        # The snapshot after one test is the one before the next: one git status per test.
        if self.guard.chain is None:
            self.guard.chain, self.guard.chain_problem = self.guard.snapshot()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if call.when == "teardown":
            self._judge(item, report)
        return report

    def _judge(self, item: pytest.Item, report: pytest.TestReport) -> None:
        """Fail the teardown report of a test that changed the working tree."""
        guard = self.guard
        before, before_problem = guard.chain, guard.chain_problem
        after, after_problem = guard.snapshot()
        guard.chain, guard.chain_problem = after, None  # the next test starts where this one ends
        lines = [p for p in (before_problem, after_problem) if p is not None]
        if before is not None and after is not None:
            changes = diff_snapshots(before, after)
            if changes:
                setattr(report, REPORT_ATTR, [[c.path, c.what] for c in changes])
                lines[:0] = [f"{item.nodeid} changed the working tree:"]
                lines[1:1] = [f"  {c}" for c in changes]
        if not lines:
            return
        text = "\n".join([*lines, "a path a test may write belongs in .gitignore"])
        if report.failed:
            report.sections.append((SECTION, text))
        else:
            report.outcome = "failed"
            report.longrepr = text

    def on_logreport(self, report: pytest.TestReport) -> None:
        # Called by the per-test fan-out (plugin/fanout.py).
        found = getattr(report, REPORT_ATTR, None)
        if self.guard.whole_run and found:
            self.guard.by_test[report.nodeid] = [Change(path, what) for path, what in found]
