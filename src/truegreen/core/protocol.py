"""The protocol between the ``truegreen`` command and the plugin in a pytest it starts.

The command narrows, orders and questions the pytest processes it starts through hidden
options, each naming a file: the command writes the node ids a run keeps, the plugin writes
the units it collected and the temporary base it made. Everything both sides must agree on
is here: the option names, the formats of those files, a function that builds the argv and
one that reads it back, and the plugin modules a fork server may import ahead of a run.
Plain data and JSON text only; who reads and writes the files is each side's business.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional

from truegreen.core.errors import DataError


class _Value:
    """A small immutable value: equal when its fields are. Plain slotted classes, not
    dataclasses or NamedTuples: the plugin imports this module in every pytest process, and
    either of those costs its start-up about a millisecond here (a NamedTuple compiles each
    annotation)."""

    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={v!r}" for n, v in zip(self.__slots__, self._values()))
        return f"{type(self).__name__}({shown})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _set(self, **values: object) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)


class Option(_Value):
    """One hidden pytest option: its flag, the name pytest stores it under, what it does,
    and what its value names."""

    __slots__ = ("dest", "flag", "meaning", "metavar")
    flag: str
    dest: str
    meaning: str
    metavar: str

    def __init__(self, flag: str, dest: str, meaning: str, metavar: str = "FILE") -> None:
        self._set(flag=flag, dest=dest, meaning=meaning, metavar=metavar)


PLAN_OUT = Option(
    "--truegreen-plan-out",
    "truegreen_plan_out",
    "write the selected tests' units to FILE (`units_document`) after the selection",
)
ONLY_FILE = Option(
    "--truegreen-only-file",
    "truegreen_only_file",
    "collect and run only the test file PATH of the selection (truegreen run --isolate-files)",
    "PATH",
)
ONLY_IDS = Option(
    "--truegreen-only-ids",
    "truegreen_only_ids",
    "run only the node ids FILE lists (a JSON list), within the selection",
)
ORDER = Option(
    "--truegreen-order",
    "truegreen_order",
    "run exactly the node ids FILE lists (a JSON list), in that order",
)
BASETEMP_OUT = Option(
    "--truegreen-basetemp-out",
    "truegreen_basetemp_out",
    "write the session's temporary base to FILE (`Basetemp`)",
)
# Every hidden option the plugin adds, in the order the plugin adds them.
HIDDEN = (PLAN_OUT, ONLY_FILE, BASETEMP_OUT, ONLY_IDS, ORDER)

# The developer's home, in the environment of a pytest that a verb starts with a fresh HOME of
# its own (``truegreen run``, ``leaks``): the home the guards protect. The plugin takes it out
# of the environment as it loads, so no test and no process started later inherits it.
REAL_HOME_VAR = "_TRUEGREEN_REAL_HOME"

# The metrics run's id, in the environment of every pytest one ``truegreen run`` starts (one
# per file with --isolate-files): their streams are one run. The plugin takes it out of the
# environment as it reads it, so a pytest a test starts begins a run of its own.
RUN_ID_VAR = "_TRUEGREEN_METRICS_RUN"

# The folder of a pytest process's session home, in the temporary directory, then its pid and
# a dash: a pytest killed before its end leaves it, and ``truegreen run`` removes those of
# processes that are gone as it ends.
SESSION_DIR_PREFIX = "truegreen-session-"

# ``truegreen collect-gate`` loads a plugin of its own by name, which adds one option.
COLLECT_RECORD_PLUGIN = "truegreen.plugin.collectrecord"
COLLECT_RECORD = Option(
    "--truegreen-collect-record",
    "truegreen_collect_record",
    "write what the collection reached, ignored and kept to FILE (truegreen collect-gate)",
)

# The plugin's modules that pytest_configure imports when their feature is on: every run
# imports most of them and none runs code of the user's, so a fork server imports them once.
PLUGIN_MODULES = (
    "truegreen.core.config",
    "truegreen.plugin.ambient",
    "truegreen.plugin.fanout",
    "truegreen.plugin.guards",
    "truegreen.plugin.hermetic",
    "truegreen.plugin.hints",
    "truegreen.plugin.integrity",
    "truegreen.plugin.isolate",
    "truegreen.plugin.metrics",
    "truegreen.plugin.platforms",
    "truegreen.plugin.sealed",
    "truegreen.plugin.sharding",
    "truegreen.plugin.treeguard",
)


class Request(_Value):
    """What the command asks of one pytest run beyond the user's arguments: each field is
    the file (or, for ``only_file``, the test file) its hidden option names, or None."""

    __slots__ = ("basetemp_out", "only_file", "only_ids", "order", "plan_out")
    plan_out: Optional[str]
    only_file: Optional[str]
    basetemp_out: Optional[str]
    only_ids: Optional[str]
    order: Optional[str]

    def __init__(
        self,
        plan_out: Optional[str] = None,
        only_file: Optional[str] = None,
        basetemp_out: Optional[str] = None,
        only_ids: Optional[str] = None,
        order: Optional[str] = None,
    ) -> None:
        self._set(plan_out=plan_out, only_file=only_file, basetemp_out=basetemp_out,
                  only_ids=only_ids, order=order)  # fmt: skip

    def argv(self) -> list[str]:
        """The hidden options, as arguments for pytest."""
        given = ((OPTIONS[name], value) for name, value in zip(self.__slots__, self._values()))
        return [f"{option.flag}={value}" for option, value in given if value is not None]

    @classmethod
    def from_options(cls, getoption: Callable[[str], Any]) -> Request:
        """Read the request back from pytest's parsed options (``config.getoption``)."""
        values = {name: getoption(OPTIONS[name].dest) for name in cls.__slots__}
        return cls(**{name: str(v) if v else None for name, v in values.items()})


OPTIONS = {
    "plan_out": PLAN_OUT,
    "only_file": ONLY_FILE,
    "basetemp_out": BASETEMP_OUT,
    "only_ids": ONLY_IDS,
    "order": ORDER,
}


# The tree guard's summary line when the working tree changed outside any test's own changes,
# then one indented line a change. A verb that judges a run by its exit status names it rather
# than pytest's last line ("3 passed"): the run failed for that, not for a test.
TREE_CHANGED = "the working tree changed"


# -- the files ------------------------------------------------------------------------------
# Read and written by the verbs and the plan-out run only: what they need from the event
# stream's formats (and its JSON reader) is imported there, not in every pytest process.


def units_document(
    units: Mapping[str, str], documents: Optional[Mapping[str, str]] = None
) -> dict[str, Any]:
    """The plan-out file: ``{"format": 1, "units": {node id: unit}, "documents": {node id:
    document}}``, in collection order. A unit is what sharding never splits: a test, or a whole
    class or module (an xdist group). ``documents`` names, for each item that is not a Python
    test function (a doctest, a block of a Sybil or other document), the document it belongs
    to: the items of one document run in sequence, in their order, by design."""
    from truegreen.core.formats import UNITS

    return {"format": UNITS, "units": dict(units), "documents": dict(documents or {})}


def read_units(text: str, source: str) -> dict[str, str]:
    """Node id -> unit from a plan-out file's text; :class:`DataError` naming ``source``."""
    from truegreen.core.formats import UNITS

    data = _json(text, source)
    units = data.get("units") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("format") != UNITS:
        raise DataError(
            f"{source}: expected a units document of format {UNITS}, found {text[:80]!r}"
        )
    if not isinstance(units, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in units.items()
    ):
        raise DataError(f"{source}: 'units' expected an object of node id -> unit")
    return units


def read_documents(text: str, source: str) -> dict[str, str]:
    """Node id -> document from a plan-out file's text ({} when it names none);
    :class:`DataError` naming ``source``."""
    read_units(text, source)
    documents = _json(text, source).get("documents", {})
    if not isinstance(documents, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in documents.items()
    ):
        raise DataError(f"{source}: 'documents' expected an object of node id -> document")
    return documents


def ids_text(nodeids: Sequence[str]) -> str:
    """The only-ids and order files: a JSON list of node ids. A file rather than node ids on
    the command line: a large suite's ids overflow the argument list, and a parametrized id
    holding ``::``, a space or a bracket of its own is read back as something else."""
    return json.dumps(list(nodeids))


def read_ids(text: str, source: str) -> list[str]:
    """The node ids of an only-ids or order file; :class:`DataError` naming ``source``."""
    data = _json(text, source)
    if not isinstance(data, list) or not all(isinstance(i, str) for i in data):
        raise DataError(f"{source}: expected a JSON list of node ids, found {text[:80]!r}")
    return data


class Basetemp(_Value):
    """The collecting session's temporary base: the directory, whether the user gave it
    (``--basetemp``), and pytest's ``tmp_path_retention_policy`` for it."""

    __slots__ = ("given", "path", "policy")
    path: str
    given: bool
    policy: str

    def __init__(self, path: str, given: bool, policy: str) -> None:
        self._set(path=path, given=given, policy=policy)

    def text(self) -> str:
        return json.dumps({"basetemp": self.path, "given": self.given, "policy": self.policy})

    @classmethod
    def read(cls, text: str, source: str) -> Basetemp:
        data = _json(text, source)
        try:
            return cls(str(data["basetemp"]), bool(data["given"]), str(data["policy"]))
        except (KeyError, TypeError):
            raise DataError(
                f"{source}: expected basetemp, given and policy, found {text[:80]!r}"
            ) from None


def _json(text: str, source: str) -> Any:
    from truegreen.core import jsonfile

    return jsonfile.loads(text, source, "JSON")
