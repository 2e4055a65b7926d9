"""The tracing run of ``truegreen ablate --discover``: which exceptions each test caught.

Loaded with ``-p truegreen.plugin.discovery --truegreen-discover-out=FILE`` into one pytest
run, and into no other. While a test's call runs, it watches for an exception *caught* in
the test's own module, or in ``pytest.raises`` and ``assertRaises`` (their function forms
catch in pytest's and unittest's code): on Python 3.12+ with ``sys.monitoring``'s
``EXCEPTION_HANDLED`` event. Below 3.12, ``sys.settrace`` costs a Python call on every Python
call, so it traces only the tests whose module catches by itself (an ``except``, ``with
suppress``, or a call of a test-side helper that does); the others are watched through the
``__exit__`` of ``pytest.raises``' and ``assertRaises``' contexts, at no cost per call. For
each caught exception it keeps the traceback from the catching frame inward, each frame
marked ``project`` (the project's own source), ``test``, ``stdlib`` or ``dependency``; the
``truegreen ablate`` process turns that into claims (:mod:`truegreen.core.discovery`).

At the end of the session it writes FILE: JSON, one entry per test that passed and caught
something, and the number of tests that passed.
"""

from __future__ import annotations

import dis
import json
import os
import sys
import sysconfig
from collections import Counter
from collections.abc import Generator
from pathlib import Path
from types import CodeType, FrameType, TracebackType
from typing import Any, Callable, Optional

import pytest

from truegreen.core.discovery import (
    DEPENDENCY,
    EARLY_CONTINUE,
    EARLY_RETURN,
    PROJECT,
    STDLIB,
    TEST,
    catching_functions,
    early_continues,
    early_returns,
    falsy_assert_lines,
    falsy_tests,
    is_test_path,
    mentioned,
)
from truegreen.plugin.listing import HooksOnly

OPTION = "--truegreen-discover-out"
# auto: sys.monitoring on 3.12+, "contexts" below; settrace: every test by sys.settrace;
# contexts: the raises contexts where they suffice, sys.settrace elsewhere (both for tests)
METHOD_OPTION = "--truegreen-discover-method"
TOOL_NAME = "truegreen-discover"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(OPTION, help="(truegreen ablate --discover) where to write the trace")
    parser.addoption(METHOD_OPTION, choices=("auto", "settrace", "contexts"), default="auto",
                     help="(truegreen ablate --discover) how to trace")  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    out = config.getoption(OPTION)
    if out:
        config.pluginmanager.register(Tracer(config, out), "truegreen-discover-tracer")


# The contexts that catch for a test, whose __exit__ says what they caught: pytest.raises
# (RaisesExc and RaisesGroup from pytest 8.4, RaisesContext before) and unittest's
# assertRaises and assertRaisesRegex (both forms).
CONTEXTS = (
    ("_pytest.raises", "RaisesExc"),
    ("_pytest.raises", "RaisesGroup"),
    ("_pytest.python_api", "RaisesContext"),
    ("unittest.case", "_AssertRaisesContext"),
)


def _catcher_files() -> set[str]:
    """The files outside the test modules whose frames catch for a test: the function
    forms of ``pytest.raises`` and ``assertRaises``."""
    import unittest.case

    files: set[str] = set()
    for module in (unittest.case, sys.modules.get("_pytest.python_api"),
                   sys.modules.get("_pytest.raises")):  # fmt: skip
        filename = getattr(module, "__file__", None)
        if filename:  # as code objects name it, and as it is
            files.update((filename, os.path.realpath(filename)))
    return files


class Tracer(HooksOnly):
    """Per test call: the exceptions caught by the test; at the end, the file."""

    def __init__(self, config: pytest.Config, out: str) -> None:
        self.root = os.path.realpath(config.rootpath)
        self.out = out
        method = config.getoption(METHOD_OPTION)
        self.settrace = method == "settrace"
        self.monitor = method == "auto" and sys.version_info >= (3, 12)
        self.catchers = _catcher_files()  # as code objects name them, and real paths
        self.tests: set[str] = set()  # the collected test modules
        self.kinds: dict[str, str] = {}
        self.catching: dict[str, bool] = {}  # filename -> whether its frames catch for a test
        # code object -> its frames' local tracer (None: untraced) and whether it traces
        # lines, without and with the early-outs of a test that asserts a falsy result
        self.decided: dict[bool, dict[CodeType, tuple[Any, bool]]] = {False: {}, True: {}}
        self.caught: list[tuple[BaseException, Optional[TracebackType]]] = []
        self.found: dict[str, list[dict[str, Any]]] = {}
        self.failed: set[str] = set()
        self.passed: set[str] = set()
        self.methods: Counter[str] = Counter()  # how the test calls were traced
        # Below 3.12: the raises contexts patched to report what they caught while watching;
        # test file -> whether they suffice for its tests; the catching helpers' names
        self.watching = False
        self.patched = [] if self.settrace or self.monitor else self._patch_contexts()
        self.suffice: dict[str, bool] = {}
        self.helpers: Optional[frozenset[str]] = None
        # A test that asserts a falsy result (`assert not f(x)`, `assert f(x) is None`): the
        # early-out returns (`if ...: return None`) of the project it took, with what value
        self.falsy: dict[str, frozenset[int]] = {}  # test file -> its such tests' lines
        self.asserts: dict[str, frozenset[int]] = {}  # test file -> its falsy asserts' lines
        self.test_code: Optional[CodeType] = None  # the running test function's
        self.returns: dict[str, frozenset[int]] = {}  # project file -> its early-out lines
        self.continues: dict[str, frozenset[int]] = {}  # project file -> its early continues
        self.took: list[tuple[str, int, str]] = []  # (file, line, EARLY_RETURN or _CONTINUE)
        prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
        self.prefixes = tuple(os.path.realpath(p) + os.sep for p in prefixes)
        stdlib = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib")}
        self.stdlib = tuple(os.path.realpath(p) + os.sep for p in stdlib)

    # -- where a frame is ---------------------------------------------------------------

    def kind(self, filename: str) -> str:
        found = self.kinds.get(filename)
        if found is None:
            found = self.kinds[filename] = self._kind(filename)
        return found

    def _kind(self, filename: str) -> str:
        if filename.startswith("<"):  # <frozen importlib._bootstrap>, <string>
            return STDLIB if filename.startswith("<frozen ") else DEPENDENCY
        path = os.path.realpath(filename)
        if path in self.tests:
            return TEST
        parts = Path(path).parts
        if "site-packages" in parts or "dist-packages" in parts:
            return DEPENDENCY
        if path.startswith(self.stdlib):
            return STDLIB
        if path.startswith(self.prefixes) or not path.startswith(self.root + os.sep):
            return DEPENDENCY
        if is_test_path(os.path.relpath(path, self.root)):
            return TEST
        return PROJECT

    def catches(self, filename: str) -> bool:
        return filename in self.catchers or self.kind(filename) == TEST

    def _contexts_suffice(self, filename: str) -> bool:
        """Whether the tests of ``filename`` catch only through the raises contexts: no
        function of it catches by itself, nor uses the name of a test-side helper that does."""
        found = self.suffice.get(filename)
        if found is None:
            source = _read(filename)
            own = catching_functions(source)
            found = own is not None and not own and not mentioned(source) & self._helpers()
            self.suffice[filename] = found
        return found

    def _helpers(self) -> frozenset[str]:
        """The catching functions of the test-side modules imported by now that are not
        test modules (conftest files, helper modules), by name."""
        if self.helpers is None:
            names: set[str] = set()
            for module in list(sys.modules.values()):
                filename = getattr(module, "__file__", None)
                if not isinstance(filename, str) or not filename.endswith(".py"):
                    continue
                if self.kind(filename) == TEST and os.path.realpath(filename) not in self.tests:
                    names.update(catching_functions(_read(filename)) or ())
            self.helpers = frozenset(names)
        return self.helpers

    def _patch_contexts(self) -> list[tuple[type, Any]]:
        """Make the raises contexts report what they catch while :attr:`watching`; none
        (sys.settrace for every test) unless pytest's own is among them."""
        import unittest.case  # noqa: F401 (its context is patched with pytest's)

        found: list[tuple[type, Any]] = []
        for module_name, class_name in CONTEXTS:
            kind = getattr(sys.modules.get(module_name), class_name, None)
            original = getattr(kind, "__dict__", {}).get("__exit__")
            if isinstance(kind, type) and original is not None:
                found.append((kind, original))
        if not any(kind.__module__.startswith("_pytest") for kind, _ in found):
            return []
        for kind, original in found:
            setattr(kind, "__exit__", self._reporting(original))  # noqa: B010 (on a class)
        return found

    def _reporting(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def __exit__(context: Any, kind: Any, exc: Any, tb: Optional[TracebackType]) -> Any:
            suppressed = original(context, kind, exc, tb)
            if suppressed and exc is not None and self.watching:
                self._seen(exc, tb)
            return suppressed

        return __exit__

    # -- hooks ----------------------------------------------------------------------------

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self.tests = {os.path.realpath(item.path) for item in items}
        self.kinds.clear()
        self.catching.clear()
        self.decided = {False: {}, True: {}}

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, Any, Any]:
        self.caught, self.took = [], []
        stop = self._start(item)
        try:
            return (yield)
        finally:
            stop()
            caught, self.caught = self.caught, []
            entries = [self._entry(exc, tb) for exc, tb in caught]
            took, self.took = list(dict.fromkeys(self.took)), []
            entries += [{"type": kind, "frames": [[path, line, PROJECT]]}
                        for path, line, kind in took]  # fmt: skip
            if entries:
                self.found[item.nodeid] = entries

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed or report.skipped:
            self.failed.add(report.nodeid)
        elif report.when == "call":
            self.passed.add(report.nodeid)

    def pytest_unconfigure(self) -> None:
        for kind, original in self.patched:
            setattr(kind, "__exit__", original)  # noqa: B010 (on a class)
        self.patched = []

    def pytest_sessionfinish(self) -> None:
        passed = self.passed - self.failed
        methods = self.methods.most_common()
        method = (
            methods[0][0]
            if len(methods) == 1
            else ", ".join(f"{name} ({count} test calls)" for name, count in methods)
        )
        document = {
            "passed": len(passed),
            "method": method,
            "tests": [
                {"test": test, "caught": entries}
                for test, entries in self.found.items()
                if test in passed
            ],
        }
        with open(self.out, "w", encoding="utf-8") as handle:
            json.dump(document, handle)

    # -- what a caught exception was --------------------------------------------------------

    def _entry(self, exc: BaseException, tb: Optional[TracebackType]) -> dict[str, Any]:
        frames = []
        while tb is not None:
            filename = tb.tb_frame.f_code.co_filename
            path = filename if filename.startswith("<") else os.path.realpath(filename)
            frames.append([path, tb.tb_lineno, self.kind(filename)])
            tb = tb.tb_next
        if len(frames) > 41:  # a deep recursion: the catcher, and the innermost frames
            frames = frames[:1] + frames[-40:]
        return {"type": type(exc).__name__, "frames": frames}

    def _seen(self, exc: BaseException, tb: Optional[TracebackType]) -> None:
        # its traceback as it is now: from the catching frame inward. Control flow is not a
        # negative test's subject (StopIteration, pytest's skip and fail outcomes).
        if not isinstance(exc, Exception) or isinstance(exc, (StopIteration, StopAsyncIteration)):
            return
        if not any(exc is seen for seen, _ in self.caught):
            self.caught.append((exc, tb))

    def _asserts_falsy(self, item: pytest.Item) -> bool:
        function = getattr(item, "function", None)
        code = getattr(function, "__code__", None)
        if code is None:
            return False
        return code.co_firstlineno in _per_file(self.falsy, code.co_filename, falsy_tests)

    def _asserted(self, frame: FrameType) -> bool:
        """Whether ``frame`` runs in a call the test made on the line of a falsy assertion
        (up its callers to the test's own frame)."""
        caller = frame.f_back
        while caller is not None:
            code = caller.f_code
            if code is self.test_code:
                lines = _per_file(self.asserts, code.co_filename, falsy_assert_lines)
                return caller.f_lineno in lines
            caller = caller.f_back
        return False

    def _early_outs(self, filename: str) -> frozenset[int]:
        return _per_file(self.returns, filename, early_returns)

    def _early_continues(self, filename: str) -> frozenset[int]:
        return _per_file(self.continues, filename, early_continues)

    def _start(self, item: pytest.Item) -> Callable[[], None]:
        # The early-out returns are seen by sys.settrace on every Python, and only in the
        # tests that assert a falsy result.
        falsy = self._asserts_falsy(item)
        self.test_code = getattr(getattr(item, "function", None), "__code__", None)
        if self.monitor and not falsy:
            return self._monitor()
        if self.patched and not falsy and self._contexts_suffice(str(item.path)):
            return self._contexts()
        return self._settrace(falsy)

    def _contexts(self) -> Callable[[], None]:
        self.watching = True
        self.methods["raises contexts"] += 1

        def stop() -> None:
            self.watching = False

        return stop

    def _monitor(self) -> Callable[[], None]:  # Python 3.12+
        monitoring: Any = getattr(sys, "monitoring")  # noqa: B009 (not in typeshed's 3.9)
        tool = next((t for t in (4, 3, 2) if monitoring.get_tool(t) is None), None)
        if tool is None:  # every free tool id taken (coverage, a debugger, a profiler)
            return self._settrace()
        monitoring.use_tool_id(tool, TOOL_NAME)
        event = monitoring.events.EXCEPTION_HANDLED

        def handled(code: CodeType, offset: int, exc: BaseException) -> None:
            if self.catches(code.co_filename):
                self._seen(exc, exc.__traceback__)

        monitoring.register_callback(tool, event, handled)
        monitoring.set_events(tool, event)
        self.methods["sys.monitoring"] += 1

        def stop() -> None:
            monitoring.set_events(tool, 0)
            monitoring.register_callback(tool, event, None)
            monitoring.free_tool_id(tool)

        return stop

    def _settrace(self, falsy: bool = False) -> Callable[[], None]:
        # Below 3.12 there is no "handled" event: an exception that reaches a catching frame
        # of a test that passes was caught there or by a caller within the same test (else
        # the test had failed). Only the catching files' frames are traced, and not by line.
        def local(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "exception":
                self._seen(arg[1], arg[2])
            return local

        def returned(frame: FrameType, event: str, arg: Any) -> Any:
            filename = frame.f_code.co_filename
            if (
                event == "return"
                and frame.f_lineno in self._early_outs(filename)
                and _falsy(arg)
                and self._asserted(frame)
            ):
                self.took.append((os.path.realpath(filename), frame.f_lineno, EARLY_RETURN))
            return returned

        # A frame whose code holds an early-out `continue` is traced by line as well: the
        # continues it took count when the frame returns a falsy result (they skipped what
        # it would have answered), not when it raises.
        skipped: dict[FrameType, list[int]] = {}
        raising: set[FrameType] = set()

        def looped(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "line":
                raising.discard(frame)  # an exception caught within the frame
                if frame.f_lineno in self._early_continues(frame.f_code.co_filename):
                    skipped.setdefault(frame, []).append(frame.f_lineno)
            elif event == "exception":
                raising.add(frame)
            elif event == "return":
                lines = skipped.pop(frame, [])
                if frame in raising:
                    raising.discard(frame)
                    return looped
                filename = frame.f_code.co_filename
                early = frame.f_lineno in self._early_outs(filename)
                if (lines or early) and _falsy(arg) and self._asserted(frame):
                    path = os.path.realpath(filename)
                    if early:
                        self.took.append((path, frame.f_lineno, EARLY_RETURN))
                    self.took.extend((path, line, EARLY_CONTINUE) for line in lines)
            return looped

        # Called for every Python call: one lookup by code object, most of the time. A
        # frame of a catching file gets `local`; in a test asserting a falsy result, a frame
        # of the project whose code holds an early-out return gets `returned`, one holding
        # an early-out continue `looped`; any other frame nothing, so its lines, returns and
        # exceptions cost nothing.
        decided = self.decided[falsy]

        def decide(code: CodeType) -> Any:
            filename = code.co_filename
            found = self.catching.get(filename)
            if found is None:
                found = self.catching[filename] = self.catches(filename)
            if found:
                return local, False
            if falsy and self.kind(filename) == PROJECT:
                outs, skips = self._early_outs(filename), self._early_continues(filename)
                if outs or skips:
                    lines = {line for _, line in dis.findlinestarts(code)}
                    if not skips.isdisjoint(lines):
                        return looped, True
                    if not outs.isdisjoint(lines):
                        return returned, False
            return None, False

        def call(frame: FrameType, event: str, arg: Any) -> Any:
            found = decided.get(frame.f_code)
            if found is None:
                found = decided[frame.f_code] = decide(frame.f_code)
            tracer, lines = found
            if tracer is not None:
                frame.f_trace_lines = lines  # its returns and exceptions, and lines if looped
            return tracer

        previous = sys.gettrace()
        sys.settrace(call)
        self.methods["sys.settrace"] += 1

        def stop() -> None:
            sys.settrace(previous)

        return stop


def _per_file(
    table: dict[str, frozenset[int]], filename: str, lines: Callable[[str], frozenset[int]]
) -> frozenset[int]:
    """``lines`` of the file's source, read and parsed once a file and kept in ``table``."""
    found = table.get(filename)
    if found is None:
        found = table[filename] = lines(_read(filename))
    return found


def _read(filename: str) -> str:
    try:
        return Path(filename).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _falsy(value: Any) -> bool:
    try:
        return not value
    except Exception:  # a __bool__ that raises: not a falsy result
        return False
