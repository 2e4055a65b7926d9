"""Run integrity: a skipped gate is not a green gate, and a run that ran nothing is not green.

``must-run`` patterns name gate tests that must have been collected, run and passed; a skip,
a deselection or an absence fails the run and says the gate did not run. A gate counts when
the run's selection could have held it: the paths and node ids given, ``-k``, ``-m``,
``--deselect`` and ``--lf``. A gate outside them (``pytest tests/test_ok.py``, ``-k fast``)
is not this run's to pass; one inside them that another plugin deselected, or that was
skipped, still fails. A run that executes no test at all fails unless ``allow-empty``
(pytest's own exit status 5 covers only "nothing collected"). The summary prints the numbers
a reader needs to see that the intended behaviour was exercised. Under xdist the workers
collect; each ships what it collected and deselected to the controller (plugin/relay.py),
which counts the reports and judges.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any, Optional

import pytest

from truegreen.core import protocol
from truegreen.core.config import Config
from truegreen.core.words import counted
from truegreen.plugin.listing import HooksOnly
from truegreen.plugin.relay import relay
from truegreen.plugin.stash import SHARDED_OUT_KEY, per_test

WAIVE = "to run without the gates this once: --truegreen-must-run= (empty)"


def _reason(report: pytest.TestReport) -> str:
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else "skipped"
    return str(reason).removeprefix("Skipped: ")


def selection_args(config: pytest.Config) -> list[str]:
    """What the run was asked to collect, as root-relative paths and node ids (a directory
    ends in ``/``, the root is ``""``); ``[""]`` for the configured suite (no arguments,
    ``testpaths``) and for ``--pyargs``; one file's process of ``truegreen run
    --isolate-files`` selects that file."""
    only_file = protocol.Request.from_options(config.getoption).only_file
    if only_file:  # one file's process of `truegreen run --isolate-files`
        return [Path(only_file).as_posix()]
    source = getattr(config, "args_source", None)
    if source == pytest.Config.ArgsSource.TESTPATHS or config.getoption("pyargs", False):
        return [""]
    base = config.invocation_params.dir
    found = []
    for arg in config.args:
        path, sep, rest = str(arg).partition("::")
        full = os.path.normpath(os.path.join(base, path))
        relative = os.path.relpath(full, config.rootpath).replace(os.sep, "/")
        if relative == ".":
            return [""]
        if os.path.isdir(full) and not sep:
            relative += "/"
        found.append(relative + sep + rest)
    return found


def deselected_by_user(config: pytest.Config, item: pytest.Item) -> Optional[str]:
    """The option of the user's selection that leaves ``item`` out (``-k``, ``-m``,
    ``--deselect``), whoever deselected it; None when the selection holds it."""
    prefixes = tuple(config.getoption("deselect", None) or ())
    if prefixes and item.nodeid.startswith(prefixes):
        return "--deselect"
    # pytest's own matchers, so the expression means what it means to pytest; they are not
    # public API, and without them a test the user's expression names counts as selected.
    try:
        from _pytest.mark import KeywordMatcher, MarkMatcher
        from _pytest.mark.expression import Expression
    except ImportError:
        return None
    keyword = (config.getoption("keyword", "") or "").lstrip()
    if keyword and not Expression.compile(keyword).evaluate(KeywordMatcher.from_item(item)):
        return "-k"
    markexpr = config.getoption("markexpr", "") or ""
    if markexpr:
        from_markers = getattr(MarkMatcher, "from_markers", None)
        if from_markers is not None:
            matcher = from_markers(item.iter_markers())
        else:  # pytest < 8.2
            matcher = MarkMatcher.from_item(item)  # type: ignore[attr-defined]
        if not Expression.compile(markexpr).evaluate(matcher):
            return "-m"
    return None


class IntegrityPlugin(HooksOnly):
    """Counts what the run collected, deselected, ran and skipped; enforces the gates."""

    def __init__(self, config: pytest.Config, settings: Config) -> None:
        self.config = config
        self.must_run = settings.must_run
        self.allow_empty = settings.allow_empty
        self.collected: dict[str, None] = {}  # node ids, in order, each once
        self.deselected: set[str] = set()
        self.elsewhere: set[str] = set()  # left to the other shards
        self.outside: dict[str, str] = {}  # gate test -> the user's option that left it out
        self.last_failed: Optional[frozenset[str]] = None  # what --lf runs, as the run started
        self.ran: dict[str, str] = {}  # nodeid -> outcome of its call
        self.reran: dict[str, None] = {}  # tests a rerun plugin ran again after a failure
        self.failed_setup: set[str] = set()
        self.skipped: dict[str, str] = {}  # nodeid -> reason
        self.problems: list[str] = []
        self.not_required: list[str] = []
        self.relay = relay(config)

    @classmethod
    def register(cls, config: pytest.Config, settings: Config) -> None:
        """Register the count; the per-test fan-out hands it each report (after the guards
        have failed it, if they did)."""
        plugin = cls(config, settings)
        config.pluginmanager.register(plugin, "truegreen-integrity")
        per_test(config).add("integrity", plugin)
        plugin.relay.listen("integrity", plugin.take)

    def pytest_sessionstart(self) -> None:
        # --lf runs the tests that failed last time; the run itself rewrites that record.
        cache = getattr(self.config, "cache", None)
        if self.config.getoption("lf", False) and cache is not None:
            self.last_failed = frozenset(map(str, cache.get("cache/lastfailed", {})))

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected.update(item.nodeid for item in items)
        self.collected.update(dict.fromkeys(item.nodeid for item in items))
        if not self.must_run:
            return
        from truegreen.core.mustrun import matches  # only a run with gates reads the patterns

        for item in items:
            if any(matches(item.nodeid, pattern) for pattern in self.must_run):
                why = deselected_by_user(self.config, item)
                if why is not None:
                    self.outside[item.nodeid] = why

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # After every selection, whatever order the plugins that select run in: what is left
        # will run; what was deselected was recorded as it went. Tests with collection
        # errors are in neither.
        self.collected.update(dict.fromkeys(item.nodeid for item in session.items))

    def take(self, data: Any) -> None:
        """On the xdist controller: what one worker collected (each collects the same)."""
        self.collected.update(dict.fromkeys(data["collected"]))
        self.deselected.update(data["deselected"])
        self.elsewhere.update(data["elsewhere"])
        self.outside.update(data["outside"])

    def on_logreport(self, report: pytest.TestReport) -> None:
        """Count one report (after the guards have failed it, if they did)."""
        when, outcome = report.when, str(report.outcome)  # a plugin may set its own outcome
        if outcome == "rerun":  # pytest-rerunfailures: this attempt failed, another follows
            self.reran[report.nodeid] = None
            return
        if when == "call":
            if "wasxfail" in report.__dict__:
                self.ran[report.nodeid] = "xfailed" if outcome == "skipped" else "xpassed"
            elif outcome == "skipped":  # pytest.skip() inside the test: it did not run
                self.skipped[report.nodeid] = _reason(report)
            else:
                self.ran[report.nodeid] = outcome
        elif when == "setup":
            if outcome == "skipped":
                self.skipped[report.nodeid] = _reason(report)
            elif outcome == "failed":
                self.failed_setup.add(report.nodeid)

    def _left_out(self, nodeid: str) -> Optional[str]:
        """The option of the user's selection that left this deselected gate test out."""
        why = self.outside.get(nodeid)
        if why is None and self.last_failed and nodeid not in self.last_failed:
            why = "--lf"
        return why

    def _selection_holds(self, pattern: str, args: list[str]) -> bool:
        """Whether the selection could have held a test the pattern names."""
        from truegreen.core.mustrun import covers, matches

        if not covers(args, pattern):
            return False
        last_failed = self.last_failed
        if last_failed and any(n in last_failed for n in self.collected):  # --lf narrowed it
            return any(matches(n, pattern) for n in last_failed)
        return True

    def gate_problems(self, elsewhere: set[str]) -> list[str]:
        """One line per must-run pattern or gate test that did not run and pass here.

        Tests in ``elsewhere`` belong to other shards: ``truegreen shards verify`` checks
        that they passed there. A pattern the selection could not have held, and a gate
        test the user's selection left out, go to ``not_required``.
        """
        found: list[str] = []
        if not self.must_run:
            return found
        from truegreen.core.mustrun import matches  # only a run with gates reads the patterns

        args = selection_args(self.config)
        for pattern in self.must_run:
            hits = [n for n in self.collected if matches(n, pattern)]
            if not hits:
                if self._selection_holds(pattern, args):
                    found.append(f"{pattern}: no collected test matches: the gate did not run")
                else:
                    self.not_required.append(f"{pattern}: outside this selection")
            for nodeid in hits:
                if nodeid in elsewhere:
                    continue
                if nodeid in self.deselected:
                    why = self._left_out(nodeid)
                    if why is None:
                        found.append(f"{nodeid}: deselected: the gate did not run")
                    else:
                        self.not_required.append(f"{nodeid}: left out by {why}")
                elif nodeid in self.skipped:
                    found.append(
                        f"{nodeid}: skipped ({self.skipped[nodeid]}): the gate did not run"
                    )
                elif nodeid in self.failed_setup:
                    found.append(f"{nodeid}: error at setup: the gate did not run")
                elif nodeid not in self.ran:
                    found.append(f"{nodeid}: not run: the gate did not run")
                elif self.ran[nodeid] != "passed":
                    found.append(f"{nodeid}: {self.ran[nodeid]}: the gate did not pass")
        return found

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        config = session.config
        if config.getoption("collectonly") or config.getoption("setuponly", False):
            return
        if config.getoption("setupplan", False):
            return
        sharded_out: set[str] = config.stash.get(SHARDED_OUT_KEY, set())
        self.elsewhere.update(sharded_out)
        if self.relay.worker:  # the controller counts the reports and judges
            self.relay.ship(
                "integrity",
                {
                    "collected": list(self.collected),
                    "deselected": sorted(self.deselected),
                    "elsewhere": sorted(self.elsewhere),
                    "outside": self.outside,
                },
            )
            return
        elsewhere = self.elsewhere
        self.problems = self.gate_problems(elsewhere)
        here = [n for n in self.collected if n not in elsewhere]
        empty = bool(here) and not self.ran and not self.allow_empty
        if empty and session.exitstatus in (0, pytest.ExitCode.NO_TESTS_COLLECTED):
            self.problems.append(
                "no test ran: every collected test was skipped or deselected "
                "(allow-empty = true in [tool.truegreen] accepts that)"
            )
        if self.problems and session.exitstatus in (0, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def counts(self) -> str:
        outcomes = Counter(self.ran.values())
        kinds = ("passed", "failed", "xfailed", "xpassed")
        ran = ", ".join(f"{outcomes[k]} {k}" for k in kinds if outcomes[k])
        parts = [
            f"collected {len(self.collected)}",
            f"ran {len(self.ran)}" + (f" ({ran})" if ran else ""),
        ]
        if self.failed_setup:
            parts.append(f"errors at setup {len(self.failed_setup)}")
        parts.append(f"skipped {len(self.skipped)}")
        elsewhere = len(self.elsewhere)
        parts.append(f"deselected {len(self.deselected) - elsewhere}")
        if elsewhere:
            parts.append(f"in other shards {elsewhere}")
        return ", ".join(parts)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.collected or self.relay.worker:
            return
        tr = terminalreporter
        tr.write_sep("-", "truegreen run integrity")
        tr.write_line(self.counts())
        reasons = Counter(self.skipped.values())
        for reason, count in reasons.most_common():
            tr.write_line(f"  skipped {count}: {reason}")
        flaky = [nodeid for nodeid in self.reran if self.ran.get(nodeid) == "passed"]
        if flaky:
            tr.write_line(
                f"FLAKY {counted(len(flaky), 'test')} passed only on a rerun (the rerun "
                "plugin hid the failure; the test has a bug a rerun hides):"
            )
            for nodeid in self.relay.ordered(flaky):
                tr.write_line(f"  {nodeid}")
        for line in self.not_required:
            tr.write_line(f"gate not required in this run: {line}")
        for problem in self.problems:
            tr.write_line(f"FAILED GATE {problem}", red=True)
        if any("the gate did" in problem for problem in self.problems):
            tr.write_line(f"{WAIVE}")
