"""The event stream's schema, defined once: its version, its kinds of record, their fields.

Every writer (the guards' records, the plugin's metrics, the guards' listeners) and every
reader (metrics, timeline, flakes, the guards reading their children) names kinds from here,
and docs/events.md's table is generated from :data:`KINDS` (``python docs/generate.py``).

Imported by every guarded child process at start-up, so builtins only: the values here are
slotted classes rather than dataclasses (importing ``dataclasses`` costs a child more than
the rest of the guards).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from typing import Any, Optional

VERSION = 1  # the stream's version, in the first record of every file
VERSION_KEY = "v"
EVENT = "event"  # the key that names a record's kind

PROCESS = "process"
SESSION_START = "session_start"
SESSION_END = "session_end"
TEST_START = "test_start"
TEST_END = "test_end"
PHASE = "phase"
FIXTURE = "fixture"
FIXTURE_TEARDOWN = "fixture_teardown"
VIOLATION = "violation"
SPAWN = "spawn"
UNGUARDED = "unguarded"
LISTEN = "listen"
ENV_READS = "env_reads"

# The JSON types a field may hold; "number" is an int or a float, never a bool, and always
# finite (JSON has no NaN, but Python's json reads one). The last four are a shard
# manifest's (core/manifests.py), which shares this definition of a field.
STR, INT, NUMBER, BOOL = "string", "int", "number", "bool"
STRINGS, STRING_MAP, LISTS_MAP, OBJECT = (
    "list of strings", "object of strings", "object of lists of strings", "object",
)  # fmt: skip
_SCALARS = {STR: (str,), INT: (int,), NUMBER: (int, float), BOOL: (bool,)}

# No test, phase or run lasts a week: a duration longer than this, or a record this far from
# its process's first one, is a corrupt value (a time stamp written as a duration), not data.
MAX_SECONDS = 7 * 24 * 3600.0


def _found(value: object) -> str:
    if value is None:
        return "null"
    shown = repr(value)
    return f"{type(value).__name__} {shown if len(shown) <= 60 else shown[:57] + '...'}"


def _finite(value: float) -> bool:
    return value - value == 0  # False for NaN and both infinities; no import for a child


class Field:
    """One field of a kind of record: its name, its JSON type, whether it may be null and
    whether a reader may rely on it being there; for a value, the closed set it comes from or
    the bounds of a number; for an object, the fields it holds."""

    __slots__ = ("choices", "fields", "maximum", "meaning", "minimum", "name", "null",
                 "required", "type")  # fmt: skip

    def __init__(
        self, name: str, type: str, meaning: str = "", null: bool = False, required: bool = True,
        *, choices: tuple[str, ...] = (), minimum: Optional[float] = None,
        maximum: Optional[float] = None, fields: tuple[Field, ...] = (),
    ) -> None:  # fmt: skip
        self.name, self.type, self.meaning, self.null, self.required = (
            name, type, meaning, null, required,
        )  # fmt: skip
        self.choices, self.minimum, self.maximum, self.fields = choices, minimum, maximum, fields

    def accepts(self, value: object) -> bool:
        return self.problem(value) is None

    def expected(self) -> str:
        return f"{self.type} or null" if self.null else self.type

    def problem(self, value: object) -> Optional[tuple[str, str]]:
        """What makes ``value`` wrong for this field, or None: where inside it (``""``, an
        index ``[1]`` or a key ``['a']``) and ``expected ..., found ...``."""
        if value is None:
            return None if self.null else ("", f"expected {self.expected()}, found null")
        scalar = _SCALARS.get(self.type)
        if scalar is not None:
            if type(value) not in scalar:
                return "", f"expected {self.expected()}, found {_found(value)}"
            return self._value(value)
        return self._container(value)

    def _value(self, value: Any) -> Optional[tuple[str, str]]:
        if self.choices and value not in self.choices:
            listed = ", ".join(self.choices)
            return "", f"expected one of {listed}, found {_found(value)}"
        if self.type == NUMBER and not _finite(value):
            return "", f"expected a finite number, found {_found(value)}"
        low, high = self.minimum, self.maximum
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = (f">= {low:g}" if high is None else f"<= {high:g}" if low is None
                      else f"from {low:g} to {high:g}")  # fmt: skip
            return "", f"expected {self.type} {bounds}, found {_found(value)}"
        return None

    def _container(self, value: object) -> Optional[tuple[str, str]]:
        if self.type == STRINGS:
            return _strings(value)
        if type(value) is not dict:
            return "", f"expected {self.expected()}, found {_found(value)}"
        if self.type == OBJECT:
            return _object(value, self.fields)
        for key, item in value.items():
            if self.type == LISTS_MAP:
                wrong = _strings(item)
                if wrong is not None:
                    return f"[{key!r}]{wrong[0]}", wrong[1]
            elif type(item) is not str:
                return f"[{key!r}]", f"expected string, found {_found(item)}"
            elif self.choices and item not in self.choices:
                listed = ", ".join(self.choices)
                return f"[{key!r}]", f"expected one of {listed}, found {_found(item)}"
        return None


def _strings(value: object) -> Optional[tuple[str, str]]:
    if type(value) is not list:
        return "", f"expected {STRINGS}, found {_found(value)}"
    for index, item in enumerate(value):
        if not isinstance(item, str):
            return f"[{index}]", f"expected string, found {_found(item)}"
    return None


def _object(value: dict[str, Any], fields: tuple[Field, ...]) -> Optional[tuple[str, str]]:
    """The first field of ``fields`` missing from ``value`` or wrong in it, as a key path."""
    for field in fields:
        if field.name not in value:
            if field.required:
                return f"[{field.name!r}]", f"expected {field.expected()}, found nothing"
            continue
        wrong = field.problem(value[field.name])
        if wrong is not None:
            return f"[{field.name!r}]{wrong[0]}", wrong[1]
    return None


class Kind:
    """One kind of record: its ``event`` name, its fields in the order written, its meaning."""

    __slots__ = ("fields", "meaning", "name")

    def __init__(self, name: str, meaning: str, *fields: Field) -> None:
        self.name, self.meaning, self.fields = name, meaning, fields


def _t() -> Field:
    return Field("t", NUMBER, "seconds since the epoch", minimum=0)


def _test(null: bool = False) -> Field:
    return Field("test", STR, "the node id" + (", null outside any test" if null else ""), null)


def _duration(meaning: str, null: bool = False) -> Field:
    return Field(
        "duration", NUMBER, meaning + ", to the microsecond", null, minimum=0, maximum=MAX_SECONDS
    )


def _pid(name: str = "pid", meaning: str = "") -> Field:
    return Field(name, INT, meaning, minimum=0)


PHASES = ("setup", "call", "teardown")
OUTCOMES = ("passed", "failed", "skipped", "xfailed")
_WORKER = Field("worker", STR, "the xdist worker id", null=True)

KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        Kind(PROCESS, "the first record of a file",
             Field(VERSION_KEY, INT, "the stream's version"), _t(), _pid(), _pid("ppid"),
             Field("role", STR, "`session`, `worker` or `child`",
                   choices=("session", "worker", "child")),
             Field("run", STR, "the run's id, shared by an xdist controller and its workers "
                   "and by every session of one `truegreen run`; missing in a child's file and "
                   "in streams written before run ids (the run's directory names it, if any)",
                   required=False)),
        Kind(SESSION_START, "the pytest session of this process began", _t(), _WORKER),
        Kind(SESSION_END, "the pytest session of this process ended", _t(),
             Field("exitstatus", INT, "pytest's exit status", minimum=0), _WORKER),
        Kind(TEST_START, "one test's whole protocol began (under xdist, in the worker that "
             "ran it)", _t(), _test()),
        Kind(TEST_END, "one test's whole protocol ended", _t(), _test(),
             _duration("seconds, wall, since its start", null=True)),
        Kind(PHASE, "one phase of a test ended", _t(), _test(),
             Field("phase", STR, "`setup`, `call` or `teardown`", choices=PHASES),
             Field("outcome", STR, "`passed`, `failed`, `skipped` or `xfailed`",
                   choices=OUTCOMES),
             _duration("seconds")),
        Kind(FIXTURE, "one fixture's setup", _t(), _test(), Field("fixture", STR, "its name"),
             Field("scope", STR), _duration("seconds")),
        Kind(FIXTURE_TEARDOWN, "one fixture's teardown: the code after its `yield` and its "
             "finalizers (a wider-scoped fixture's counts in the test that ran when it ended)",
             _t(), _test(), Field("fixture", STR, "its name"), Field("scope", STR),
             _duration("seconds")),
        Kind(VIOLATION, "a guard saw a leak", _t(),
             Field("kind", STR, "`write`, `read`, `network` or `program`"), _test(null=True),
             Field("where", STR, "the test, `collection`, `session fixture 'x'`, "
                   "`outside any test` or `the session` (the real home changed)"),
             Field("operation", STR, "`open for writing`, `open for reading`, `connect to`, "
                   "`start`, `new`, `changed`, `removed`, ..."),
             Field("target", STR, "the path, host:port or program"),
             Field("site", STR, "`file:line` of the code that did it"),
             Field("blocked", BOOL), _pid(),
             Field("mode", STR, "the guard's mode for it (`warn` does not fail the test); "
                   "missing means it fails", required=False)),
        Kind(SPAWN, "a program was started", _t(), _test(null=True),
             Field("program", STR, "its basename"),
             Field("verb", STR, "git's verb", null=True),
             Field("site", STR, "`file:line` of the code that started it"), _pid(),
             Field("anonymous", BOOL, "true when a git command that writes a commit or tag "
                   "object started with no identity configured; missing means false",
                   required=False)),
        Kind(UNGUARDED, "a child process runs without the guards: the process that started it "
             "saw why (`python -I`, not a Python program), or the child found it cannot load "
             "them", _t(), _test(null=True),
             Field("program", STR, "its basename"),
             Field("reason", STR, "why, in words"),
             _pid(meaning="the process that reported it")),
        Kind(LISTEN, "a Python process of the run started listening (for "
             '`network = "owned"`)',
             Field("protocol", STR, "`tcp` or `udp`", choices=("tcp", "udp")),
             Field("port", INT, minimum=0, maximum=65535), _pid()),
        Kind(ENV_READS, "the environment variables a test read (with the guards and the "
             "metrics on; in the pytest process, not its children)", _t(), _test(),
             Field("names", STRINGS, "their names, set or not, sorted, never a value; the "
                   "variables every process reads (`PATH`, `HOME`, `TMPDIR`, `PYTHON*`, ...) "
                   "and pytest's own left out")),
    )
}  # fmt: skip


def problem(record: dict[str, Any], origin: Optional[float] = None) -> Optional[str]:
    """What makes a parsed record unusable, or None when a reader may trust it: a field
    missing, mistyped or out of its range, or (given ``origin``, the time of its file's first
    record) a time more than :data:`MAX_SECONDS` away from it.

    A record of a kind this version does not define is not a problem: readers skip kinds they
    do not know, so a newer writer's records pass through an older reader; its ``t``, which
    every kind shares, is still checked, since readers take the run's span from it.
    """
    name = record.get(EVENT)
    if type(name) is not str:
        return f"expected an {EVENT!r} naming the kind of record, found {name!r}"
    kind = KINDS.get(name)
    fields = kind.fields if kind is not None else (_t(),) if "t" in record else ()
    for field in fields:
        if field.name not in record:
            if field.required:
                return f"{name}: field {field.name!r}: expected {field.expected()}, found nothing"
            continue
        wrong = field.problem(record[field.name])
        if wrong is not None:
            return f"{name}: field {field.name!r}{wrong[0]}: {wrong[1]}"
    t = record.get("t")
    if origin is not None and isinstance(t, (int, float)) and abs(t - origin) > MAX_SECONDS:
        return (
            f"{name}: field 't': expected a time within {MAX_SECONDS:g} s of the file's first "
            f"record ({origin!r}), found {t!r}"
        )
    return None


def header(t: float, pid: int, ppid: int, role: str, run: Optional[str] = None) -> dict[str, Any]:
    """The first record of every process's file, the one that carries the version."""
    record = {VERSION_KEY: VERSION, EVENT: PROCESS, "t": t, "pid": pid, "ppid": ppid, "role": role}
    if run is not None:
        record["run"] = run
    return record
