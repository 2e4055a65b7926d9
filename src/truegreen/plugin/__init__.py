"""The pytest plugin: options, configuration, and one small plugin object per feature.

Loaded through the ``pytest11`` entry point as soon as truegreen is installed;
``-p no:truegreen`` or ``enabled = false`` turns it off.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Generator
from typing import Any, Optional

import pytest

if os.environ.get("_TRUEGREEN_MUTANT"):
    # An ablation in progress: its mutant goes in front of pytest's assertion rewriter now,
    # so that every truegreen module imported from here on can be the ablated one.
    from truegreen.guards.mutant import to_front

    to_front()

from truegreen.plugin.rewriting import import_without_rewriting, mutant_first

import_without_rewriting()

from truegreen.core import protocol  # noqa: E402 - not through the rewriter
from truegreen.core.config import Config  # noqa: E402
from truegreen.core.errors import TruegreenError  # noqa: E402
from truegreen.plugin.stash import (  # noqa: E402
    AMBIENT_KEY,
    CONFIG_KEY,
    MACHINE_ENV_KEY,
    REAL_HOME_KEY,
    per_test,
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("truegreen", "truegreen: make a green run mean what it says")
    group.addoption(
        "--truegreen-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one [tool.truegreen] key for this run, e.g. --truegreen-set timezone=false "
        "(repeatable; wins over the table and TRUEGREEN_* variables)",
    )
    group.addoption(
        "--truegreen-tree-guard",
        dest="truegreen_tree_guard",
        default=None,
        metavar="off|session|each",
        help="compare git status before and after the session (session) or every test (each)",
    )

    group.addoption(
        "--truegreen-must-run",
        dest="truegreen_must_run",
        action="append",
        default=None,
        metavar="PATTERN",
        help="tests matching this node-id pattern must be collected, run and pass when the "
        "selection holds them; a skip fails the run (repeatable; replaces must-run from the "
        "table; --truegreen-must-run= with nothing: no gate for this run)",
    )

    group.addoption(
        "--truegreen-shard",
        dest="truegreen_shard",
        default=None,
        metavar="K/N",
        help="run only shard K of N (1-based), after -k, -m and the other selections",
    )
    group.addoption(
        "--truegreen-shard-mode",
        dest="truegreen_shard_mode",
        default=None,
        metavar="digest|duration|external",
        help="digest (stable as the suite changes, the default), duration (balanced) or "
        "external (another plugin splits; truegreen writes the manifest of shard K of N)",
    )
    group.addoption(
        "--truegreen-durations",
        dest="truegreen_durations",
        default=None,
        metavar="FILE",
        help="per-test durations, JSON {nodeid: seconds} (pytest-split's .test_durations)",
    )
    group.addoption(
        "--truegreen-manifest",
        dest="truegreen_manifest",
        default=None,
        metavar="DIR",
        help="write this run's shard manifest (shard-K-of-N.json) into DIR",
    )
    group.addoption(
        "--truegreen-metrics",
        dest="truegreen_metrics",
        default=None,
        metavar="DIR",
        help="record the run's event stream into DIR (see truegreen metrics DIR)",
    )
    for option in protocol.HIDDEN:  # the command's side of the protocol, never typed by hand
        group.addoption(option.flag, dest=option.dest, help=argparse.SUPPRESS)


# Dedicated flags that set one key each: (key, option dest).
NAMED_FLAGS = (
    ("tree-guard", "truegreen_tree_guard"),
    ("must-run", "truegreen_must_run"),
    ("shard", "truegreen_shard"),
    ("shard-mode", "truegreen_shard_mode"),
    ("durations", "truegreen_durations"),
    ("manifest", "truegreen_manifest"),
    ("metrics", "truegreen_metrics"),
)


def _load(config: pytest.Config, options: Optional[argparse.Namespace] = None) -> Config:
    """Build the effective configuration once and keep it in the stash.

    ``options`` are the command line's options when pytest has only parsed it partly (before
    the first conftest, its ``known_args_namespace``); ``config.getoption`` otherwise.
    """
    from truegreen.core import config as tgconfig

    found = config.stash.get(CONFIG_KEY, None)
    if found is not None:
        return found

    def option(dest: str) -> Any:
        return config.getoption(dest) if options is None else getattr(options, dest, None)

    named = [(key, option(dest)) for key, dest in NAMED_FLAGS]
    loaded = config.stash[CONFIG_KEY] = tgconfig.load(
        config.rootpath,
        os.environ,
        option("truegreen_set") or [],
        named=[(key, value) for key, value in named if value is not None],
    )
    return loaded


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> Generator[None, None, None]:
    # A wrapper, so this runs before every other plugin's implementation (pytest-env's
    # tryfirst one included): what they set as pytest starts is the suite's decision, made on
    # top of the seal and kept. Before the conftests are imported: a variable the suite sets
    # itself, at import or in pytest_configure (setuptools-scm's SOURCE_DATE_EPOCH), is not
    # the machine's.
    early_config.stash[AMBIENT_KEY] = frozenset(os.environ)
    told = os.environ.pop(protocol.REAL_HOME_VAR, None)  # a verb that started us with a fresh HOME
    early_config.stash[REAL_HOME_KEY] = told or os.path.expanduser("~")
    early_config.stash[MACHINE_ENV_KEY] = dict(os.environ)
    # This session's rewriter is new (a warm run's fork imported us before): truegreen's modules
    # come off its list and the mutant goes ahead of it before any other module of ours, a
    # conftest or a test file is imported.
    import_without_rewriting()
    mutant_first()
    _seal_process(early_config)
    return (yield)


def _seal_process(config: pytest.Config) -> None:
    """Seal the whole process now, before pytest imports the first conftest (plugin/session.py).

    A configuration that does not load is left to ``pytest_cmdline_main`` to report (one line,
    pytest's usage status 4); nothing is sealed for a run that will not start.
    """
    try:
        settings = _load(config, config.known_args_namespace)
    except TruegreenError:
        return
    from truegreen.plugin.session import seal_process

    seal_process(config, settings)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """Reject a bad configuration before the session starts: one line, and pytest's own status
    for a usage error (4), not the command's 2, which pytest means as "interrupted"."""
    if config.getoption("help") or config.getoption("version"):
        return None
    try:
        _load(config)
    except TruegreenError as exc:
        sys.stderr.write(f"ERROR: truegreen: {exc}\n")
        return pytest.ExitCode.USAGE_ERROR
    return None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "truegreen_ambient: run this test in the ambient environment, unsealed "
        "(the truegreen summary lists every test that did)",
    )
    config.addinivalue_line(
        "markers",
        "platforms(*specs, arch=None): run only on these hosts; specs: linux, macos, windows, "
        "posix, any, 'not <spec>'; several specs mean any-of; one marker per test",
    )
    config.addinivalue_line(
        "markers",
        "truegreen_network(*hosts, mode=None): let this test reach these host[:port] addresses, "
        "or run it under another network mode ('allow', 'loopback', 'owned', 'block')",
    )
    try:
        _load(config)  # xdist workers skip pytest_cmdline_main
    except TruegreenError as exc:
        if config.getoption("help"):
            return  # --help stays readable; the error shows on the next real run
        raise pytest.UsageError(f"truegreen: {exc}") from None
    settings = config.stash[CONFIG_KEY]
    if not settings.enabled:
        return
    from truegreen.plugin.session import SESSION_SEAL_KEY

    session = config.stash.get(SESSION_SEAL_KEY, None)
    # On an xdist worker, the machine is the one the controller found.
    if session is not None and session.adopt(getattr(config, "workerinput", None)):
        config.stash[REAL_HOME_KEY] = session.real_home
        config.stash[AMBIENT_KEY] = frozenset(session.machine)
        config.stash[MACHINE_ENV_KEY] = session.machine
    # Each feature registers itself and, for the hot per-test hooks, with the per-test fan-out,
    # whose declared order (plugin/fanout.py ORDER) is the order they see each test in; none
    # refers to another, so the order of the registrations below does not matter, except in
    # _register_in_order.
    if settings.hermetic:
        from truegreen.plugin import fixtures
        from truegreen.plugin.hermetic import HermeticPlugin

        HermeticPlugin.register(config, settings)
        config.pluginmanager.register(fixtures, "truegreen-hermetic-fixtures")
    if settings.tree_guard != "off":
        from truegreen.plugin.treeguard import TreeGuardPlugin

        TreeGuardPlugin.register(config, settings)
    guarded = (settings.home_writes, settings.tree_writes, settings.reads) != ("off",) * 3
    if guarded or settings.network != "allow" or settings.deny_programs:
        from truegreen.plugin.ambient import AmbientReads
        from truegreen.plugin.guards import GuardsPlugin

        GuardsPlugin.register(config, settings)
        AmbientReads.register(config, settings)
        if settings.leftover_processes != "off":
            from truegreen.plugin.leftovers import LeftoversPlugin

            LeftoversPlugin.register(config, settings)
        if settings.hermetic:
            from truegreen.plugin.hints import FailureHints

            FailureHints.register(config)
    from truegreen.plugin.platforms import PlatformsPlugin

    PlatformsPlugin.register(config)
    request = protocol.Request.from_options(config.getoption)  # what `truegreen` asked, if any
    if request.basetemp_out:
        from truegreen.plugin.isolate import RunBasetemp

        config.pluginmanager.register(RunBasetemp(request.basetemp_out))
    _register_in_order(config, settings, request)
    per_test(config).install()  # one plugin object for the hot hooks of all the features


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Plugins that do part of truegreen's work, and which of the two decides."""
    settings = config.stash.get(CONFIG_KEY, None)
    if settings is None or not settings.enabled:
        return []
    from truegreen.core.overlaps import KNOWN, overlaps

    loaded = [name for name in KNOWN if config.pluginmanager.has_plugin(name)]
    refusing = [flag for flag, dest in (("--disable-socket", "disable_socket"),
                                        ("--allow-hosts", "allow_hosts"))
                if config.getoption(dest, None)]  # fmt: skip
    return [f"truegreen beside {o.plugin}: {o.says}" for o in overlaps(loaded, refusing)]


def _register_in_order(config: pytest.Config, settings: Config, request: protocol.Request) -> None:
    """The plugins whose order of registration matters, in that order.

    The one place where it does (with the per-test fan-out's declared ORDER): pluggy runs
    ``trylast`` implementations of a hook in the order they were registered. The cuts of the
    collection, each a trylast ``pytest_collection_modifyitems``, see the ones before them:
    the imposed order first (the shard is cut from exactly the tests it names), then the
    shard, then one file's or a list's tests. The run-integrity count reads what is left at
    ``pytest_collection_finish``, after every cut, and comes last: its trylast
    ``pytest_sessionfinish`` fails the run for a gate that did not run after the metrics'
    and the shard's have recorded the session's exit status.
    """
    if settings.metrics or settings.manifest:
        from truegreen.plugin.outputs import check_directories

        check_directories(settings)
    if settings.metrics:
        from truegreen.plugin.metrics import MetricsPlugin

        MetricsPlugin.register(config, settings.metrics)
    if request.order:
        from truegreen.plugin.order import ImposedOrder

        config.pluginmanager.register(ImposedOrder(request.order))
    if settings.shard or settings.manifest or request.plan_out:
        from truegreen.plugin.sharding import ShardPlugin

        ShardPlugin.register(config, settings)
    if request.only_file:
        from truegreen.plugin.isolate import OnlyFile

        only_file = OnlyFile(request.only_file, config.rootpath)
        config.pluginmanager.register(only_file)
        if config.pluginmanager.has_plugin("cacheprovider"):
            from truegreen.plugin.sharedcache import SharedCache

            config.pluginmanager.register(SharedCache(config))
    if request.only_ids:
        from truegreen.plugin.isolate import OnlyIds

        config.pluginmanager.register(OnlyIds.from_file(request.only_ids))
    from truegreen.plugin.integrity import IntegrityPlugin

    IntegrityPlugin.register(config, settings)
