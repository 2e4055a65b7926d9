"""``truegreen repro``'s pure part: the CI's pytest command read from a workflow file, how a
clean room installs a project's test dependencies, and the two runs' outcomes compared."""

from __future__ import annotations

import re
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from truegreen.core.errors import UsageError
from truegreen.core.outcomes import MISSING

# -- the CI's test command ----------------------------------------------------------------

_RUN_KEY = re.compile(r"^(\s*)(?:-\s+)?run:\s*(.*?)\s*$")
_BLOCK = re.compile(r"^[|>][+-]?\d*$")
_SHELL_ENDS = ("&&", "||", ";", "|", "&")


@dataclass(frozen=True)
class Step:
    """The command of a workflow step that runs pytest: its line, as written, and pytest's
    arguments in it."""

    line: int
    command: str
    args: tuple[str, ...]


def _commands(text: str) -> list[tuple[int, str]]:
    """(line number, shell command) of every ``run:`` of a GitHub workflow, a block scalar's
    lines each one command, a line ending in a backslash joined with the next."""
    lines = text.splitlines()
    found: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        match = _RUN_KEY.match(lines[i])
        i += 1
        if match is None:
            continue
        value = match.group(2)
        if not _BLOCK.match(value):
            if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            found.append((i, value))
            continue
        column = lines[i - 1].index("run:")  # the block's lines sit deeper than its key
        while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > column):
            found.append((i + 1, lines[i].strip()))
            i += 1
    joined: list[tuple[int, str]] = []
    for number, command in found:
        if joined and joined[-1][1].endswith("\\"):
            joined[-1] = (joined[-1][0], joined[-1][1][:-1] + " " + command)
        elif command and not command.startswith("#"):
            joined.append((number, command))
    return joined


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _pytest_args(words: list[str]) -> Optional[list[str]]:
    """pytest's arguments in one shell command (``pytest``, ``py.test``, ``python -m pytest``,
    ``truegreen run ... -- ARGS``), up to the first shell operator; None when it runs none."""
    for end, word in enumerate(words):
        if word in _SHELL_ENDS:
            words = words[:end]
            break
    for i, word in enumerate(words):
        name = word.rsplit("/", 1)[-1]
        if name in ("pytest", "py.test") and (i == 0 or words[i - 1] not in ("-m", "install")):
            return words[i + 1 :]
        if word == "-m" and i + 1 < len(words) and words[i + 1] == "pytest":
            return words[i + 2 :]
        if name == "truegreen" and words[i + 1 : i + 2] == ["run"]:
            rest = words[i + 2 :]
            return rest[rest.index("--") + 1 :] if "--" in rest else []
    return None


def pytest_step(text: str, where: str) -> Step:
    """The first step of a GitHub workflow that runs pytest. A :class:`UsageError` naming
    ``where`` (the file) when there is none, or when its arguments hold an expression
    (``${{ ... }}``) only the CI can expand."""
    for number, command in _commands(text):
        try:
            words = shlex.split(command, comments=True)
        except ValueError:
            continue
        args = _pytest_args(words)
        if args is None:
            continue
        if "${{" in command:
            raise UsageError(
                f"{where}:{number}: expected a pytest command truegreen can run as written, "
                f"found an expression only the CI expands: {command!r}; give the arguments "
                "after -- instead"
            )
        return Step(number, command, tuple(args))
    raise UsageError(
        f"{where}: expected a step whose run: starts pytest (pytest, python -m pytest, "
        "truegreen run -- ...), found none; give the arguments after -- instead"
    )


# -- what the clean room installs ---------------------------------------------------------

# Requirements files that name test dependencies, the first found wins; requirements.txt
# (the runtime's) is installed before it.
TEST_REQUIREMENTS = (
    "requirements-test.txt", "requirements-tests.txt", "requirements-testing.txt",
    "test-requirements.txt", "tests-requirements.txt", "requirements-dev.txt",
    "dev-requirements.txt", "requirements/test.txt", "requirements/tests.txt",
    "requirements/testing.txt", "requirements/dev.txt",
)  # fmt: skip
# The extras and dependency groups that name test dependencies, the first found wins.
TEST_NAMES = ("test", "tests", "testing", "dev")
PYTHON = "{python}"  # in a plan's commands: the clean room's interpreter


@dataclass(frozen=True)
class Plan:
    """How the clean room installs: what it chose, in words, and the commands (argv lists,
    :data:`PYTHON` standing for the clean room's interpreter)."""

    chose: str
    commands: tuple[tuple[str, ...], ...]


def _group(groups: Mapping[str, Any], name: str, seen: tuple[str, ...] = ()) -> list[str]:
    """A dependency group's requirements (PEP 735), its ``include-group`` entries resolved."""
    found: list[str] = []
    for entry in groups.get(name, []):
        if isinstance(entry, str):
            found.append(entry)
        elif isinstance(entry, dict) and isinstance(entry.get("include-group"), str):
            included = entry["include-group"]
            if included not in seen:
                found += _group(groups, included, (*seen, name))
    return found


def plan(
    files: Sequence[str],
    pyproject: Optional[Mapping[str, Any]],
    *,
    extras: Sequence[str] = (),
    install: Sequence[str] = (),
) -> Plan:
    """The install plan for a checkout holding ``files`` (paths relative to its top, ``/``
    separated) and ``pyproject`` (its parsed ``pyproject.toml``, if any): the ``install``
    commands when given; else ``uv sync --frozen`` for a ``uv.lock``; else pip, from a
    requirements file and the project itself with its test extras and dependency group."""
    if install:
        return Plan(
            "the commands given with --install",
            tuple(tuple(shlex.split(command)) for command in install),
        )
    present = set(files)
    if "uv.lock" in present:
        sync = ["uv", "sync", "--frozen", "--python", PYTHON]
        sync += [f"--extra={name}" for name in extras]
        return Plan("the lock file uv.lock (uv sync --frozen: the project, its locked "
                    "dependencies and its dev group)", (tuple(sync),))  # fmt: skip
    pip = (PYTHON, "-m", "pip", "install")
    commands: list[tuple[str, ...]] = []
    chose: list[str] = []
    requirements = [n for n in ("requirements.txt",) if n in present]
    requirements += [n for n in TEST_REQUIREMENTS if n in present][:1]
    for name in requirements:
        commands.append((*pip, "-r", name))
        chose.append(f"the requirements file {name}")
    project = (pyproject or {}).get("project")
    buildable = "pyproject.toml" in present or "setup.py" in present or "setup.cfg" in present
    if not buildable:
        if not chose:
            return Plan("nothing: no lock file, requirements file or pyproject.toml", ())
        return Plan(" and ".join(chose), tuple(commands))
    declared = project.get("optional-dependencies", {}) if isinstance(project, dict) else {}
    chosen = list(extras) or [n for n in TEST_NAMES if n in declared][:1]
    groups = (pyproject or {}).get("dependency-groups", {})
    group = [n for n in TEST_NAMES if isinstance(groups, dict) and n in groups][:1]
    target = "." + (f"[{','.join(chosen)}]" if chosen else "")
    commands.append((*pip, target, *(_group(groups, group[0]) if group else [])))
    words = "the project (pip install .)"
    if chosen:
        words += f" with its extra{'s' if len(chosen) > 1 else ''} {', '.join(chosen)}"
        words += "" if extras else " (found in pyproject.toml; --extra picks others)"
    if group:
        words += f", and its dependency group {group[0]}"
    chose.append(words)
    return Plan(" and ".join(chose), tuple(commands))


# -- the outcomes compared ----------------------------------------------------------------


def junit_key(nodeid: str) -> tuple[str, str]:
    """The (classname, name) pytest's JUnit XML report gives the test (or collector) of
    ``nodeid``: its ``mangle_test_address``."""
    path, bracket, params = nodeid.partition("[")
    names = path.split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    names[-1] += bracket + params
    return ".".join(names[:-1]), names[-1]


def _first_line(element: ET.Element) -> str:
    """What went wrong, in one line: the message pytest gives (its crash line), unless it
    says no more than that collection failed; then the first ``E`` line of its text."""
    message = (element.get("message") or "").strip()
    text = element.text or ""
    if not message or message in ("collection failure", "failed"):
        said = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
        message = said[0] if said else (text.strip() or message)
    lines = message.splitlines()
    return lines[0].strip() if lines else ""


def junit_messages(text: str) -> dict[tuple[str, str], str]:
    """(classname, name) -> the first line of why, for every test case of a JUnit XML report
    that failed, erred or was skipped."""
    found: dict[tuple[str, str], str] = {}
    for case in ET.fromstring(text).iter("testcase"):
        for kind in ("failure", "error", "skipped"):
            element = case.find(kind)
            if element is not None:
                key = (case.get("classname") or "", case.get("name") or "")
                found.setdefault(key, _first_line(element))
                break
    return found


def why(nodeid: str, messages: Mapping[tuple[str, str], str]) -> Optional[str]:
    """The first line of why ``nodeid`` did not pass in a report, or of why its file did not
    collect."""
    said = messages.get(junit_key(nodeid))
    if said is None and "::" in nodeid:
        said = messages.get(junit_key(nodeid.split("::", 1)[0]))
    return said


_VERB = {"passed": "passes", "failed": "fails", "skipped": "is skipped", "xfailed": "xfails",
         MISSING: "does not run"}  # fmt: skip


def sentence(here: str, clean: str) -> str:
    """``passes here, fails on a clean machine``."""
    return f"{_VERB.get(here, here)} here, {_VERB.get(clean, clean)} on a clean machine"


def compare(
    here: Mapping[str, str],
    clean: Mapping[str, str],
    here_why: Mapping[tuple[str, str], str],
    clean_why: Mapping[tuple[str, str], str],
) -> list[dict[str, Any]]:
    """The tests whose outcome differs, each with the first line of why it did not pass on
    the side where it did worse (the clean machine's when both did not), grouped by the
    pair of outcomes, ``passes here, fails on a clean machine`` first."""
    rank = {"failed": 0, MISSING: 1, "skipped": 2, "xfailed": 3, "passed": 4}
    found: list[dict[str, Any]] = []
    for test in sorted({*here, *clean}):
        a: str = here.get(test, MISSING)
        b: str = clean.get(test, MISSING)
        if a == b:
            continue
        said = why(test, clean_why) if b != "passed" else why(test, here_why)
        found.append({"test": test, "here": a, "clean": b, "why": said})
    found.sort(key=lambda d: (d["here"] != "passed", -rank.get(d["here"], 5),
                              rank.get(d["clean"], 5), d["test"]))  # fmt: skip
    return found
