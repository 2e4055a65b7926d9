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

# The JSON types a field may hold; "number" is an int or a float, never a bool.
STR, INT, NUMBER, BOOL = "string", "int", "number", "bool"
STRS = "list of strings"


class Field:
    """One field of a kind of record: its name, its JSON type, whether it may be null and
    whether a reader may rely on it being there."""

    __slots__ = ("meaning", "name", "null", "required", "type")

    def __init__(
        self, name: str, type: str, meaning: str = "", null: bool = False, required: bool = True
    ) -> None:
        self.name, self.type, self.meaning, self.null, self.required = (
            name, type, meaning, null, required,
        )  # fmt: skip

    def accepts(self, value: object) -> bool:
        if value is None:
            return self.null
        kind = type(value)
        if self.type == NUMBER:
            return kind is float or kind is int
        if self.type == STRS:
            return kind is list and all(type(item) is str for item in value)  # type: ignore[attr-defined]
        return kind is {STR: str, INT: int, BOOL: bool}[self.type]

    def expected(self) -> str:
        return f"{self.type} or null" if self.null else self.type


class Kind:
    """One kind of record: its ``event`` name, its fields in the order written, its meaning."""

    __slots__ = ("fields", "meaning", "name")

    def __init__(self, name: str, meaning: str, *fields: Field) -> None:
        self.name, self.meaning, self.fields = name, meaning, fields


def _t() -> Field:
    return Field("t", NUMBER, "seconds since the epoch")


def _test(null: bool = False) -> Field:
    return Field("test", STR, "the node id" + (", null outside any test" if null else ""), null)


def _duration(meaning: str, null: bool = False) -> Field:
    return Field("duration", NUMBER, meaning + ", to the microsecond", null)


_WORKER = Field("worker", STR, "the xdist worker id", null=True)

KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        Kind(PROCESS, "the first record of a file",
             Field(VERSION_KEY, INT, "the stream's version"), _t(), Field("pid", INT),
             Field("ppid", INT), Field("role", STR, "`session`, `worker` or `child`"),
             Field("run", STR, "the run's id, shared by an xdist controller and its workers "
                   "and by every session of one `truegreen run`; missing in a child's file and "
                   "in streams written before run ids (the run's directory names it, if any)",
                   required=False)),
        Kind(SESSION_START, "the pytest session of this process began", _t(), _WORKER),
        Kind(SESSION_END, "the pytest session of this process ended", _t(),
             Field("exitstatus", INT, "pytest's exit status"), _WORKER),
        Kind(TEST_START, "one test's whole protocol began (under xdist, in the worker that "
             "ran it)", _t(), _test()),
        Kind(TEST_END, "one test's whole protocol ended", _t(), _test(),
             _duration("seconds, wall, since its start", null=True)),
        Kind(PHASE, "one phase of a test ended", _t(), _test(),
             Field("phase", STR, "`setup`, `call` or `teardown`"),
             Field("outcome", STR, "`passed`, `failed`, `skipped` or `xfailed`"),
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
             Field("blocked", BOOL), Field("pid", INT),
             Field("mode", STR, "the guard's mode for it (`warn` does not fail the test); "
                   "missing means it fails", required=False)),
        Kind(SPAWN, "a program was started", _t(), _test(null=True),
             Field("program", STR, "its basename"),
             Field("verb", STR, "git's verb", null=True),
             Field("site", STR, "`file:line` of the code that started it"), Field("pid", INT),
             Field("anonymous", BOOL, "true when a git command that writes a commit or tag "
                   "object started with no identity configured; missing means false",
                   required=False)),
        Kind(UNGUARDED, "a child process runs without the guards: the process that started it "
             "saw why (`python -I`, not a Python program), or the child found it cannot load "
             "them", _t(), _test(null=True),
             Field("program", STR, "its basename"),
             Field("reason", STR, "why, in words"),
             Field("pid", INT, "the process that reported it")),
        Kind(LISTEN, "a Python process of the run started listening (for "
             '`network = "owned"`)',
             Field("protocol", STR, "`tcp` or `udp`"), Field("port", INT), Field("pid", INT)),
        Kind(ENV_READS, "the environment variables a test read (with the guards and the "
             "metrics on; in the pytest process, not its children)", _t(), _test(),
             Field("names", STRS, "their names, set or not, sorted, never a value; the "
                   "variables every process reads (`PATH`, `HOME`, `TMPDIR`, `PYTHON*`, ...) "
                   "and pytest's own left out")),
    )
}  # fmt: skip


def problem(record: dict[str, Any]) -> Optional[str]:
    """What makes a parsed record unusable, or None when a reader may trust it.

    A record of a kind this version does not define is not a problem: readers skip kinds they
    do not know, so a newer writer's records pass through an older reader.
    """
    name = record.get(EVENT)
    if type(name) is not str:
        return f"expected an {EVENT!r} naming the kind of record, found {name!r}"
    kind = KINDS.get(name)
    if kind is None:
        return None
    for field in kind.fields:
        if field.name not in record:
            if field.required:
                return f"{name}: field {field.name!r}: expected {field.expected()}, found nothing"
        elif not field.accepts(record[field.name]):
            value = record[field.name]
            found = f"{type(value).__name__} {value!r}"
            return f"{name}: field {field.name!r}: expected {field.expected()}, found {found}"
    return None


def header(t: float, pid: int, ppid: int, role: str, run: Optional[str] = None) -> dict[str, Any]:
    """The first record of every process's file, the one that carries the version."""
    record = {VERSION_KEY: VERSION, EVENT: PROCESS, "t": t, "pid": pid, "ppid": ppid, "role": role}
    if run is not None:
        record["run"] = run
    return record
