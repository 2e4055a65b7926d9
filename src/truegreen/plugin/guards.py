"""The guards in a pytest session: who is running, which report a violation fails, the summary.

Violations are attributed to the test whose protocol is running (or to collection,
or to the wider-scoped fixture being set up) and fail the report of the phase in
which they happened, even when the code under test caught the exception.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections import defaultdict
from collections.abc import Generator, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

import pytest

from truegreen.core.config import Config
from truegreen.core.homesnap import HomeSnapshot, existing_folder
from truegreen.core.paths import Roots, absolute_globs, leaked_into, under
from truegreen.core.words import counted
from truegreen.guards import active, hook, network
from truegreen.guards.children import with_shim
from truegreen.guards.current import Publisher
from truegreen.guards.policy import POLICY_FILE, RUN_VAR, Policy, parse_host
from truegreen.guards.reads import ENVIRON_GLOB, is_proc_environ, python_paths
from truegreen.guards.runtime import Guard
from truegreen.plugin.listing import HooksOnly
from truegreen.plugin.relay import relay
from truegreen.plugin.stash import (
    GUARD_KEY,
    METRICS_RUN_DIR_KEY,
    NOTE_READS_KEY,
    per_test,
    real_home,
)

NETWORK_MARKER = "truegreen_network"
# Set on a report by an xdist worker: the home directories it watches, as plain lists.
HOME_ATTR = "truegreen_home_watch"

if TYPE_CHECKING:
    from truegreen.guards.violations import Violation


def _real(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


class GuardsPlugin(HooksOnly):
    """Installs the guards for the session and turns violations into failed reports."""

    def __init__(self, config: pytest.Config, settings: Config) -> None:
        self.config = config
        self.settings = settings
        self.home = _real(real_home(config))  # the real home, before any seal
        self.guard: Optional[Guard] = None
        self.publisher: Optional[Publisher] = None
        self.children = False  # whether this session started a process: it may outlive its test
        self.seen = 0
        self.failures: dict[str, list[Violation]] = defaultdict(list)
        self.warnings: dict[str, list[Violation]] = defaultdict(list)
        self.outside: list[Violation] = []
        self._saved_env: dict[str, Optional[str]] = {}
        self.marked: dict[str, pytest.Item] = {}  # node id -> test with a network marker
        self._run_mtime = 0
        # What ``_collect`` stats for the run directory's time: its path, or once it is asked
        # a descriptor of it (``fstat`` walks no path: once a phase for the rest of the run).
        self._run_at: Any = None
        # The real home as the session found it (see core/homesnap.py); an xdist worker only
        # watches the directories its writes were refused in, and ships them to the controller.
        self.worker = hasattr(config, "workerinput")
        self.home_watch: Optional[HomeSnapshot] = None
        self.shipped: set[str] = set()
        self.home_changes: list[Violation] = []
        # The files this process writes its output to (``pytest > ~/log.txt``): capturing is
        # suspended while plugins are configured, so these are the terminal's own.
        self.outputs = _file_ids((1, 2))
        # Under xdist, the workers' summaries, merged on the controller (plugin/relay.py).
        self.relay = relay(config)
        self.received = Summary()

    @classmethod
    def register(cls, config: pytest.Config, settings: Config) -> None:
        plugin = cls(config, settings)
        config.pluginmanager.register(plugin, "truegreen-guards")
        per_test(config).add("guards", plugin)
        plugin.relay.listen("guards", plugin.received.merge)

    # -- session ----------------------------------------------------------------

    def _policy(self, basetemp: str, run_dir: str) -> Policy:
        s = self.settings
        project = _real(str(self.config.rootpath))
        roots = Roots(
            protected=(("home", self.home), ("project", project)),
            allowed=(basetemp, _real(tempfile.gettempdir())),
            globs=absolute_globs(s.allow_writes, project=project, home=self.home),
        )
        return Policy(
            home_writes=s.home_writes,
            tree_writes=s.tree_writes,
            reads=s.reads,
            python_paths=python_paths() if s.reads != "off" else (),
            read_globs=absolute_globs(s.allow_reads, project=project, home=self.home),
            read_homes=(os.path.abspath(real_home(self.config)),),
            read_projects=(str(self.config.rootpath),),
            roots=roots,
            network=s.network,
            allow_hosts=tuple(parse_host(h) for h in s.allow_hosts),
            deny_programs=frozenset(s.deny_programs),
            root_pid=os.getpid(),
            run_dir=run_dir,
        )

    def _setenv(self, name: str, value: str) -> None:
        self._saved_env.setdefault(name, os.environ.get(name))
        os.environ[name] = value

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        previous = active.deactivate()  # a pytest started by a test runs its own session
        del previous
        factory: pytest.TempPathFactory = self.config._tmp_path_factory  # type: ignore[attr-defined]
        basetemp = _real(str(factory.getbasetemp()))
        run_dir = os.path.join(basetemp, "truegreen-run")
        if self.settings.metrics:  # one stream: the children report into the metrics too,
            # in the run's directory, in one of this process's own (a run has several)
            stream_dir = self.config.stash.get(
                METRICS_RUN_DIR_KEY, os.path.abspath(self.settings.metrics)
            )
            run_dir = os.path.join(stream_dir, f"run-{os.getpid()}")
        policy = self._policy(basetemp, run_dir)
        self._watch_home(policy)  # before the run directory is made: it may be in the home
        with hook.quiet():
            os.makedirs(run_dir, exist_ok=True)
            Path(run_dir, POLICY_FILE).write_bytes(policy.dumps())
        self.publisher = Publisher(run_dir)  # the running test, for processes outliving theirs
        self.guard = Guard(policy, role="session", project=dict(policy.roots.protected)["project"])
        self.guard.locate = fixture_where
        if self.home_watch is not None:
            self.guard.on_refused = self._refused
        self.guard.notes_reads = self.config.stash.get(NOTE_READS_KEY, False)
        self.config.stash[GUARD_KEY] = self.guard  # for the features that read its records
        active.activate(self.guard)
        if policy.network == "owned":
            self.guard.tracking = network.track_listeners(self.guard)
        self._setenv(RUN_VAR, run_dir)
        self._setenv("PYTHONPATH", with_shim(os.environ.get("PYTHONPATH")))

    def pytest_unconfigure(self) -> None:
        if self._run_at is not None:
            os.close(self._run_at)
            self._run_at = None
        if self.guard is not None and active.current() is self.guard:
            active.deactivate()
        if self.publisher is not None:
            self.publisher.close()
            self.publisher = None
        for name, value in self._saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self, session: pytest.Session) -> Generator[None, Any, Any]:
        guard = self.guard
        if guard is not None:
            guard.where = "collection"
        try:
            result = yield
        finally:
            if guard is not None:
                guard.where = None
        # item.keywords answers in a few dictionary lookups; get_closest_marker walks the
        # node chain, so it is asked only of the tests that carry the marker at all
        self.marked = {
            item.nodeid: item
            for item in getattr(session, "items", ())
            if NETWORK_MARKER in item.keywords
        }
        return result

    # -- per test ---------------------------------------------------------------

    # Called by the per-test fan-out (plugin/fanout.py), first of the features: each hook
    # implementation costs pluggy about 4,000 instructions a call, so the guards add none per
    # test or per fixture. Where inside the test a violation happened (a wider-scoped
    # fixture's setup) is worked out from the stack when there is one (``fixture_where``);
    # child processes learn their test from pytest's own PYTEST_CURRENT_TEST.

    def on_logstart(self, nodeid: str) -> None:
        guard = self.guard
        if guard is not None:
            guard.test = guard.where = nodeid
            if self.publisher is not None:
                self.publisher.publish(nodeid)
            guard.extra_hosts, guard.network_mode = (), guard.policy.network
            item = self.marked.get(nodeid)
            if item is not None:
                marker = item.get_closest_marker(NETWORK_MARKER)
                if marker is not None:
                    guard.extra_hosts = tuple(parse_host(str(h)) for h in marker.args)
                    guard.network_mode = marker.kwargs.get("mode", guard.network_mode)

    def on_logfinish(self, nodeid: str) -> None:
        guard = self.guard
        if guard is not None:
            guard.test = guard.where = None
            if self.publisher is not None:
                self.publisher.publish(None)

    def _collect(self) -> list[Violation]:
        """Violations recorded since the last call, with what child processes reported.

        Children are read when this process saw a spawn or a fork, or, once it has started
        one or multiprocessing is imported, when the run directory changed at all (a child
        touches it as it records): a process may outlive its test and act in a later one,
        and multiprocessing's spawn and forkserver start methods raise no audit event in this
        process (nothing else in the standard library starts a process without one). A
        ``stat`` per phase is dear for a suite that starts nothing.
        """
        guard = self.guard
        assert guard is not None
        if guard.spawned:
            guard.spawned = False
            self.children = True
            self._run_mtime = _mtime(self._run_dir(guard))
            guard.ingest()
        elif self.children or "multiprocessing" in sys.modules:
            mtime = _mtime(self._run_dir(guard))
            if mtime != self._run_mtime:
                self._run_mtime = mtime
                guard.ingest()
        fresh = guard.violations[self.seen :]
        self.seen = len(guard.violations)
        return fresh

    def _run_dir(self, guard: Guard) -> Any:
        """The run directory to stat: a descriptor of it where one can be had, else its path."""
        if self._run_at is None:
            try:
                with hook.quiet():
                    self._run_at = os.open(guard.policy.run_dir, os.O_RDONLY | _DIRECTORY)
            except OSError:  # no descriptor of a directory (Windows): its path
                return guard.policy.run_dir
        return self._run_at

    def on_logreport(self, report: pytest.TestReport) -> None:
        """Fail the report of the phase a violation happened in, before anyone reads it.

        pytest decides whether to run a test's call from this very report object, so a
        violation during setup stops the test like any setup error. The fan-out's report
        hook runs first of all (tryfirst) and hands the report to the guards first.
        """
        if self.guard is not None:
            mine = []
            fresh = self._collect()
            for violation in fresh:
                if violation.test == report.nodeid:
                    mine.append(violation)
                else:
                    self.outside.append(violation)
            if mine:
                self._fail(report, mine, self.guard.policy)
            # A report with nothing refused, shipped or to ship (the usual one) has nothing
            # for the home's watch; an absent attribute is a dictionary miss, not an exception.
            if self.home_watch is not None and (
                fresh or self.worker or HOME_ATTR in report.__dict__
            ):
                self._watch_refused(report, fresh)

    # -- the real home ------------------------------------------------------------

    def _watch_home(self, policy: Policy) -> None:
        """Snapshot the real home, unless its writes are not watched or it cannot be told
        apart from the run (the root directory, or a home inside the project)."""
        home, project = self.home, dict(policy.roots.protected)["project"]
        if policy.home_writes == "off" or home == os.path.dirname(home) or under(home, project):
            return
        self.home_watch = HomeSnapshot(home)
        if self.worker:  # the controller looks at the top level, once for the run
            self.home_watch.folders.clear()

    def _refused(self, real: str) -> None:
        """A write under the real home was refused in this process: watch its directory as it
        is now, before anything else writes there."""
        assert self.home_watch is not None
        self.home_watch.watch(existing_folder(real, self.home))

    def _watch_refused(self, report: pytest.TestReport, fresh: list[Violation]) -> None:
        """Watch the directories this phase's children were refused in; an xdist worker ships
        what it watches with the report, and the controller (or the session) takes it in."""
        watch = self.home_watch
        assert watch is not None
        for v in fresh:
            if v.blocked and v.kind == "write" and v.target.endswith(" (under the real home)"):
                watch.watch(existing_folder(v.target.rsplit(" (under ", 1)[0], self.home))
        shipped = report.__dict__.get(HOME_ATTR)
        if self.worker:
            new = [f for f in watch.folders if f not in self.shipped]
            if new:
                self.shipped.update(new)
                data = [row for row in watch.as_data() if row[0] in new]
                setattr(report, HOME_ATTR, data)
        elif shipped:
            watch.merge(shipped)

    def _home_ignores(self, policy: Policy) -> Any:
        """Whether a changed path in the home is the run's own: the project, an allowed
        root (the temporary directories) or a directory holding one, the run directory, an
        allow-writes glob or a tool cache."""
        keep = (*policy.roots.allowed, policy.run_dir)
        outputs = self.outputs

        def ignore(path: str) -> bool:
            if any(under(root, path) for root in keep if root):
                return True
            if outputs and _path_id(path) in outputs:
                return True
            return leaked_into(path, policy.roots) != "home"

        return ignore

    def _compare_home(self) -> None:
        """At the end of the run: each new, removed or changed entry of the real home."""
        guard, watch = self.guard, self.home_watch
        if guard is None or watch is None or self.worker:
            return
        policy = guard.policy
        changes = watch.changes(self._home_ignores(policy))
        if not changes:
            return
        from truegreen.guards.violations import Violation  # the records, only when there is one

        for what, path in changes:
            violation = Violation(
                kind="write",
                test=None,
                where="the session",
                operation=what,
                target=f"{path} (under the real home)",
                site="?",
                blocked=False,
                pid=os.getpid(),
                mode=policy.home_writes,
            )
            self.home_changes.append(violation)
            guard.emit(violation.record())

    def _fail(self, report: pytest.TestReport, mine: list[Violation], policy: Policy) -> None:
        """Record this test's violations; fail its report unless they are only warnings."""
        failing = [v for v in mine if not v.warning]
        for v in mine:
            (self.failures if v in failing else self.warnings)[report.nodeid].append(v)
        text = explain(mine, policy)
        if failing and report.passed:
            report.outcome = "failed"
            report.longrepr = text
        else:
            report.sections.append((f"truegreen guards ({report.when})", text))

    # -- reporting ----------------------------------------------------------------

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.guard is None:
            return
        self.guard.spawned = True
        self.outside.extend(self._collect())
        self._compare_home()
        if self.relay.worker:
            self.relay.ship("guards", self.summary().as_data())
        failing = [v for v in (*self.outside, *self.home_changes) if not v.warning]
        failing_elsewhere = any(failing for _, failing in self.received.outside)
        if (failing or failing_elsewhere) and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def summary(self) -> Summary:
        """This process's violations, programs and unguarded children, as plain data."""
        assert self.guard is not None
        found = Summary()
        for into, groups in ((found.failures, self.failures), (found.warnings, self.warnings)):
            for test, violations in groups.items():
                into[test] = [
                    v.describe() + (f" [{v.where}]" if v.where != test else "") for v in violations
                ]
        found.outside = [[f"[{v.where}] {v.describe()}", not v.warning] for v in self.outside]
        for spawn in self.guard.spawns:
            programs = found.programs.setdefault(spawn.test or OUTSIDE, {})
            programs[spawn.name] = programs.get(spawn.name, 0) + 1
        for item in self.guard.unguarded:
            children = found.unguarded.setdefault(item.test or OUTSIDE, {})
            key = f"{item.program}\n{item.reason}"
            children[key] = children.get(key, 0) + 1
        return found

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        guard = self.guard
        if guard is None:
            return
        tr = terminalreporter
        summary = self.summary()
        summary.merge(self.received.as_data())
        lines = summary_lines(summary, self.relay.ordered, tr.verbosity)
        if lines:
            tr.write_sep("-", "truegreen guards")
            for line in lines:
                tr.write_line(line)
        if self.home_changes:
            warn = all(v.warning for v in self.home_changes)
            tr.write_sep("-", "truegreen: the real home changed", red=not warn)
            for line in home_lines(self.home_changes, self.home):
                tr.write_line(line)


_FIXTURE_SETUP: list[Any] = []  # the code object of pytest's own pytest_fixture_setup


def fixture_where() -> Optional[str]:
    """``session fixture 'db'`` while a wider-scoped fixture is being set up on this thread's
    stack (the innermost fixture setup decides), else None: asked only of a violation."""
    if not _FIXTURE_SETUP:
        # A private import: pytest has no public name for its own fixture-setup hook, whose
        # frame marks a fixture being set up (pytest.FixtureDef is public, this is not).
        from _pytest import fixtures

        _FIXTURE_SETUP.append(getattr(fixtures.pytest_fixture_setup, "__code__", None))
    code = _FIXTURE_SETUP[0]
    frame: Any = sys._getframe(1)
    while frame is not None:
        if frame.f_code is code:
            fixturedef = frame.f_locals.get("fixturedef")
            scope = getattr(fixturedef, "scope", "function")
            if scope == "function":
                return None
            return f"{scope} fixture {fixturedef.argname!r}"
        frame = frame.f_back
    return None


def _file_ids(fds: tuple[int, ...]) -> frozenset[tuple[int, int]]:
    """(device, inode) of the regular files open on these descriptors."""
    import stat

    found = set()
    for fd in fds:
        try:
            seen = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISREG(seen.st_mode):
            found.add((seen.st_dev, seen.st_ino))
    return frozenset(found)


def _path_id(path: str) -> tuple[int, int]:
    try:
        seen = os.lstat(path)
    except OSError:
        return (-1, -1)
    return (seen.st_dev, seen.st_ino)


_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def _mtime(path: Any) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def allow_hint(violation: Violation, policy: Policy) -> str:
    """The ``allow-writes`` (or ``allow-reads``) entry that would let this path through."""
    path = violation.target.rsplit(" (", 1)[0]
    if violation.kind == "read" and is_proc_environ(path):
        return ENVIRON_GLOB  # the pid differs in every run
    roots = dict(policy.roots.protected)
    for label, prefix in (("project", ""), ("home", "~/")):
        root = roots.get(label, "")
        if root and path.startswith(root + os.sep):
            return prefix + path[len(root) + 1 :].replace(os.sep, "/")
    return path


def explain(violations: list[Violation], policy: Policy) -> str:
    """The failure text: each violation, and the way out."""
    lines = ["truegreen: this test reached outside its sandbox:"]
    lines += [
        f"  {v.describe()}" + (f" [{v.where}]" if v.where != v.test else "") for v in violations
    ]
    if any(v.kind == "read" for v in violations):
        read = next(v for v in violations if v.kind == "read")
        lines.append(
            "A read outside its sandbox: the test sees what this machine holds there. Give the "
            "code a file under tmp_path or in the project; to allow it deliberately: "
            f'allow-reads = ["{allow_hint(read, policy)}"] in [tool.truegreen]'
        )
    writes = [v for v in violations if v.kind == "write"]
    if writes:
        hint = allow_hint(writes[0], policy)
        lines.append(
            "Write into tmp_path instead; to allow it deliberately: "
            f'allow-writes = ["{hint}"] in [tool.truegreen]'
        )
    if any(v.kind == "network" for v in violations):
        lines.append(
            "Start the server in the test (a thread or a child process), or allow the address "
            'deliberately: allow-hosts = [...] or @pytest.mark.truegreen_network("host:port")'
        )
    if any(v.kind == "program" for v in violations):
        lines.append("Replace the program with a test double; deny-programs lists it.")
    return "\n".join(lines)


OUTSIDE = "outside any test"


class Summary:
    """What the guards' terminal section lists, as plain data: one process's, or a run's
    merged from its xdist workers. Each violation is its text (``describe``, with where it
    happened when that is not the test), as the process that saw it described it."""

    def __init__(self) -> None:
        self.failures: dict[str, list[str]] = {}  # test -> violations that failed it
        self.warnings: dict[str, list[str]] = {}  # test -> violations of a guard in "warn"
        self.outside: list[list[Any]] = []  # [text, whether it fails the run]
        self.programs: dict[str, dict[str, int]] = {}  # test -> program -> times started
        self.unguarded: dict[str, dict[str, int]] = {}  # test -> "program\nreason" -> times

    def as_data(self) -> dict[str, Any]:
        return {
            "failures": self.failures,
            "warnings": self.warnings,
            "outside": self.outside,
            "programs": self.programs,
            "unguarded": self.unguarded,
        }

    def merge(self, data: dict[str, Any]) -> None:
        """Add another process's summary (``as_data``) to this one."""
        for name in ("failures", "warnings"):
            mine: dict[str, list[str]] = getattr(self, name)
            for test, texts in data[name].items():
                mine.setdefault(test, []).extend(texts)
        # Each xdist worker collects the whole suite: a violation at collection is the same
        # finding in every worker, listed once as a single process lists it.
        before = list(self.outside)
        self.outside.extend(item for item in data["outside"] if item not in before)
        for name in ("programs", "unguarded"):
            counts: dict[str, dict[str, int]] = getattr(self, name)
            for test, found in data[name].items():
                into = counts.setdefault(test, {})
                for key, n in found.items():
                    into[key] = into.get(key, 0) + n


def summary_lines(
    summary: Summary, ordered: Callable[[Iterable[str]], list[str]], verbosity: int
) -> list[str]:
    """The guards' terminal section; ``ordered`` puts tests in the run's order."""
    lines: list[str] = []
    for title, groups in (
        ("violations", summary.failures),
        ('warnings (mode "warn")', summary.warnings),
    ):
        if groups:
            lines.append(f"{title} by test:")
            for test in ordered(groups):
                lines.append(f"  {test}")
                lines += [f"    {text}" for text in groups[test]]
    if summary.outside:
        lines.append("violations outside any test (the run fails):")
        lines += [f"  {text}" for text, _ in summary.outside]
    programs = summary.programs
    if programs:
        tests = ordered(programs)
        shown = tests if verbosity > 0 else tests[:20]
        lines.append(f"programs run, by test ({counted(len(tests), 'test')}):")
        for test in shown:
            listed = ", ".join(
                f"{name} x{n}" if n > 1 else name for name, n in programs[test].items()
            )
            lines.append(f"  {test}: {listed}")
        if len(shown) < len(tests):
            lines.append(f"  ... {counted(len(tests) - len(shown), 'more test')} (-v lists all)")
    return lines + unguarded_lines(summary.unguarded, ordered, verbosity)


def unguarded_lines(
    unguarded: dict[str, dict[str, int]],
    ordered: Callable[[Iterable[str]], list[str]],
    verbosity: int,
) -> list[str]:
    """Per test, the child processes the guards did not reach, grouped by program and reason:
    a test that runs ``git`` fifty times is one line."""
    if not unguarded:
        return []
    tests = ordered(unguarded)
    shown = tests if verbosity > 0 else tests[:20]
    lines = [f"unguarded child processes, by test ({counted(len(tests), 'test')}):"]
    for test in shown:
        by_reason: dict[str, list[str]] = defaultdict(list)
        for key, n in unguarded[test].items():
            program, reason = key.split("\n", 1)
            by_reason[reason].append(f"{program} x{n}" if n > 1 else program)
        listed = "; ".join(f"{', '.join(names)} ({reason})" for reason, names in by_reason.items())
        lines.append(f"  {test}: {listed}")
    if len(shown) < len(tests):
        lines.append(f"  ... {counted(len(tests) - len(shown), 'more test')} (-v lists all)")
    return lines


def home_lines(changes: list[Violation], home: str) -> list[str]:
    """The terminal section for a real home that changed during the run."""
    lines = [
        "the real home changed during the run: a program that is not Python (git, gpg, a "
        "shell), or a write the guards could not see:"
    ]
    for v in changes:
        path = v.target.rsplit(" (under ", 1)[0]
        shown = "~" + path[len(home) :] if path.startswith(home + os.sep) else path
        lines.append(f"  {v.operation}: {shown}")
    if all(v.warning for v in changes):
        lines.append('home-writes = "warn": the run does not fail for it')
    else:
        lines.append(
            "the run fails; point the program at the test's own home (the hermetic "
            'environment\'s HOME), or allow the path deliberately: allow-writes = ["~/..."]'
        )
    return lines
