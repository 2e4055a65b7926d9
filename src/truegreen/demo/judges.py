"""What each of the demo's sections must show, read from the output of the commands it ran."""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib import resources

from truegreen.demo.model import Ran, Shown

# -- reading the tools' output ----------------------------------------------------------

_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|deselected)\b")


def counts(line: str) -> dict[str, int]:
    """pytest's closing line as numbers: ``{"passed": 2, "failed": 1}``."""
    return {
        word.rstrip("s") if word == "errors" else word: int(n) for n, word in _COUNT.findall(line)
    }


def closing_line(ran: Ran) -> str:
    """The last line that counts tests (pytest's summary, or the runner's)."""
    found = [line.strip("= ") for line in ran.lines() if _COUNT.search(line)]
    return found[-1] if found else ""


def _out(lines: Sequence[str]) -> list[str]:
    return [f"    {line.rstrip()}" for line in lines]


def _missing(ran: Ran, what: str) -> Shown:
    tail = [line for line in ran.lines() if line.strip()][-3:]
    return Shown(
        (ran.shown, *_out(tail)),
        f"expected {what}; `{ran.shown[2:]}` exited {ran.status} without it",
        False,
    )


def _block(lines: Sequence[str], start: str) -> list[str]:
    """The lines after the one equal to ``start`` up to the next blank line or rule."""
    stripped = [line.strip() for line in lines]
    if start not in stripped:
        return []
    block = []
    for line in lines[stripped.index(start) + 1 :]:
        if not line.strip() or line.startswith(("---", "===")):
            break
        block.append(line)
    return block


# -- hermetic ---------------------------------------------------------------------------


def _tests(ran: Ran) -> str:
    numbers = counts(closing_line(ran))
    text = f"{numbers.get('passed', 0)} passed"
    return text + (f", {numbers['failed']} failed" if numbers.get("failed") else "")


_HEADER = re.compile(r"^_{3,} (\S+) _{3,}$")


def _failures(ran: Ran) -> list[str]:
    """Each failed test's name and the first ``E`` line of its traceback."""
    found: dict[str, str] = {}
    test = ""
    for line in ran.lines():
        header = _HEADER.match(line)
        if header:
            test = header.group(1)
        elif test and line.startswith("E ") and test not in found:
            found[test] = line[1:].strip()
    return [f"failed: {test}  ({why})" for test, why in found.items()]


def hermetic(runs: Sequence[Ran]) -> Shown:
    plain_shell, plain_clean, sealed_shell, sealed_clean = runs
    lines: list[str] = []
    for ran in runs:
        wrote = f"wrote into HOME: {', '.join(ran.written)}" if ran.written else "HOME untouched"
        lines += [ran.shown, f"    {ran.command.label + ':':<44} {_tests(ran):<20} {wrote}"]
        lines += [f"        {failure}" for failure in _failures(ran)]
    plain_differ = _tests(plain_shell) != _tests(plain_clean)
    sealed_ok = (
        sealed_shell.status == 0
        and sealed_clean.status == 0
        and _tests(sealed_shell) == _tests(sealed_clean)
        and not sealed_shell.written
        and not sealed_clean.written
    )
    if not sealed_ok:
        return Shown(tuple(lines), "the sealed runs differ, fail or wrote into HOME", False)
    before = (
        "plain pytest gives two verdicts (an ambient variable decided) and writes into HOME"
        if plain_differ
        else "plain pytest writes into HOME"
    )
    return Shown(
        tuple(lines),
        f"{before}; under truegreen one verdict and nothing written: each test gets a fresh "
        "empty HOME, TZ=UTC, no git identity, no credentials, no GREETER_* variable",
        True,
    )


# -- guards -----------------------------------------------------------------------------


def guards(runs: Sequence[Ran]) -> Shown:
    (ran,) = runs
    block = _block(ran.lines(), "violations by test:")
    wanted = {
        "a write into the project": r"did open for writing caught/report\.txt \(under the project",
        "a write into the home": r"blocked open for writing ~/\.greeter-cache \(under the real "
        r"home\)",
        "a dial to the daemon": r"blocked connect to 127\.0\.0\.1:\d+ \(no listener started by",
    }
    missing = [w for w, pattern in wanted.items() if not any(re.search(pattern, x) for x in block)]
    if ran.status != 1 or counts(closing_line(ran)).get("failed") != 3 or missing:
        return _missing(ran, "3 failed tests, with " + ", ".join(missing or wanted))
    return Shown(
        (ran.shown, *_out(block), *_out([closing_line(ran)])),
        "a write into the repository, a write into the home (refused on the spot) and a "
        "connection to a loopback daemon this test session did not start each fail their "
        "test, naming the path or address and the line that did it",
        True,
    )


# -- hints ------------------------------------------------------------------------------


def hints(runs: Sequence[Ran]) -> Shown:
    plain, sealed = runs
    hints = [
        line for line in sealed.lines() if line.startswith("truegreen hint: it read ~/.greeterrc")
    ]
    if counts(closing_line(plain)) != {"passed": 1}:
        return _missing(plain, "the test to pass on a machine that has ~/.greeterrc")
    if sealed.status != 1 or not hints:
        return _missing(sealed, "a failure with the hint line for ~/.greeterrc")
    return Shown(
        (plain.shown, *_out([closing_line(plain)]),
         sealed.shown, *_out([*hints, closing_line(sealed)])),
        "a test that leaned on a dotfile of your home fails sealed, and its report names "
        "the file it missed and how to establish it in the test",
        True,
    )  # fmt: skip


# -- audit ------------------------------------------------------------------------------

_FINDING = re.compile(r"^\S+:\d+:\d+: (TG\d+) ")


def audit(runs: Sequence[Ran]) -> Shown:
    (ran,) = runs
    findings = [line for line in ran.lines() if _FINDING.match(line)]
    codes = {m.group(1) for m in map(_FINDING.match, findings) if m}
    if ran.status != 1 or not {"TG402", "TG105"} <= codes:
        return _missing(ran, "findings TG402 sleep-in-test and TG105 no-assertion")
    total = [line for line in ran.lines() if re.match(r"\d+ findings? in ", line)]
    return Shown(
        (ran.shown, *_out(findings + total)),
        "without running a test, the audit finds a test that sleeps and one that asserts "
        "nothing, each with the place and what to do instead",
        True,
    )


# -- ablate -----------------------------------------------------------------------------


def ablate(runs: Sequence[Ran]) -> Shown:
    (ran,) = runs
    killed = [line for line in ran.lines() if line.startswith("  killed: ")]
    survived = [line for line in ran.lines() if line.startswith("  survived: ")]
    ok = (
        ran.status == 1
        and len(killed) == 1
        and "test_a_name_on_two_lines_is_refused" in killed[0]
        and len(survived) == 1
        and "test_an_empty_name_is_refused" in survived[0]
    )
    if not ok:
        return _missing(ran, "test_a_name_on_two_lines_is_refused killed and "
                             "test_an_empty_name_is_refused survived")  # fmt: skip
    return Shown(
        (ran.shown, *_out([*killed, *survived, ran.lines()[-1]])),
        "each negative test's claim was checked by cutting its gate out: one test fails "
        "without it; the other stays green, because pytest.raises(Exception) also catches the "
        "IndexError greet('') raises with the gate gone",
        True,
    )


# -- discover ---------------------------------------------------------------------------

_WEAK = "unrecorded/test_refusals.py::test_a_missing_name_is_refused"
_GATE = 'raise ValueError("no name")'


def sample_line(path: str, text: str) -> int:
    """The number of the sample's line of ``path`` that reads ``text`` (0 when none does)."""
    source = resources.files("truegreen.demo").joinpath("sample", path).read_text("utf-8")
    lines = [line.strip() for line in source.splitlines()]
    return lines.index(text) + 1 if text in lines else 0


def discover(runs: Sequence[Ran]) -> Shown:
    (ran,) = runs
    lines = ran.lines()
    rows = [line for line in lines if line.startswith("unrecorded/")]
    verdicts = {row.split()[0].split("::")[1]: row.split()[1] for row in rows}
    weak = re.compile(rf"^  {re.escape(_WEAK)}: should fail without greeter\.py:(\d+) "
                      rf"`{re.escape(_GATE)}`")  # fmt: skip
    named = [m for m in map(weak.match, lines) if m]
    closing = "2 negative tests (of 2 passing), 2 claims derived: 1 killed, 1 survived"
    wanted = {"test_a_tab_is_refused": "killed", "test_a_missing_name_is_refused": "survived"}
    ok = (
        ran.status == 1
        and verdicts == wanted
        and len(named) == 1
        and int(named[0].group(1)) == sample_line("greeter.py", _GATE)
        and bool(lines)
        and lines[-1].startswith(closing)
    )
    if not ok:
        return _missing(ran, "test_a_tab_is_refused killed and test_a_missing_name_is_refused "
                             f"survived, named with the line of `{_GATE}`")  # fmt: skip
    header = [line for line in lines if line.startswith("test ")]
    stayed = [line for line in lines if line.startswith("1 negative tests stay green")]
    return Shown(
        (ran.shown, *_out([*header, *rows, *stayed, named[0].string, lines[-1]])),
        "with no record written, one traced run found both negative tests and the raise each "
        "caught, and cut each raise out: test_a_tab_is_refused fails without its gate; "
        "test_a_missing_name_is_refused stays green, because its `except Exception` also "
        "catches the AttributeError greet(None) raises with the gate gone, and the line it "
        "should have been sensitive to is named",
        True,
    )


# -- leaks ------------------------------------------------------------------------------


def leaks(runs: Sequence[Ran]) -> Shown:
    (ran,) = runs
    lines = ran.lines()
    test = "tests/test_farewell.py::test_says_goodbye"
    at = lines.index(test) if test in lines else -1
    block = lines[at : at + 4] if at >= 0 else []
    if ran.status != 1 or "  culprit: variable FAREWELL_WORD" not in block:
        return _missing(ran, f"{test} with the culprit variable FAREWELL_WORD")
    return Shown(
        (ran.shown, *_out([lines[0], *block])),
        "the one test whose verdict hangs on your shell is found, and the variable it hangs "
        "on is named (never its value), with the fix",
        True,
    )


# -- flakes -----------------------------------------------------------------------------


def flakes(runs: Sequence[Ran]) -> Shown:
    (ran,) = runs
    lines = ran.lines()
    victim = "victim     tests/test_nicknames.py::test_greets_linus_by_his_name"
    polluter = "  polluter: tests/test_nicknames.py::test_a_nickname_can_be_given"
    found = [line for line in lines if line.startswith(victim)]
    if ran.status != 1 or not found or polluter not in lines:
        return _missing(ran, "the victim test_greets_linus_by_his_name and its polluter")
    at = lines.index(found[0])
    return Shown(
        (ran.shown, *_out([lines[0], *lines[at : at + 3], lines[-1]])),
        "a test that passes in file order and fails after another is found, its polluter "
        "named, and the two-test command that shows it again printed",
        True,
    )


# -- run and metrics ----------------------------------------------------------------------


def run(runs: Sequence[Ran]) -> Shown:
    run, metrics = runs
    closing = closing_line(run)
    if run.status != 0 or not closing.endswith("(4 files, one process each)"):
        return _missing(run, "a green run of 4 files, one process each")
    first = metrics.lines()[0] if metrics.lines() else ""
    figures = ("wall clock of", "test time:", "parallel efficiency:")
    wall = [
        line for line in metrics.lines() if line.lstrip().split("  ", 1)[-1].startswith(figures)
    ]
    passed = counts(closing).get("passed")
    summary = rf"truegreen metrics: {passed} tests \({passed} passed\), run \S+"
    if metrics.status != 0 or not re.fullmatch(summary, first):
        return _missing(metrics, f"the summary of the same {passed} passed tests")
    return Shown(
        (run.shown, *_out([closing]), metrics.shown, *_out([first, *wall])),
        "each test file ran sealed in a process of its own, and the run's event stream "
        "says where the time went",
        True,
    )


# -- shards -----------------------------------------------------------------------------


def shards(runs: Sequence[Ran]) -> Shown:
    *shards, verify = runs
    checks = [line for line in verify.lines() if line.startswith(("ok ", "FAIL"))]
    if any(ran.status != 0 for ran in shards):
        return _missing(next(ran for ran in shards if ran.status != 0), "a green shard")
    if verify.status != 0 or not checks or not all(line.startswith("ok ") for line in checks):
        return _missing(verify, "every check ok")
    shown = [line for ran in shards for line in (ran.shown, f"    {closing_line(ran)}")]
    return Shown(
        (*shown, verify.shown, *_out(checks)),
        "two shards, and proof that together they ran every test exactly once, all green",
        True,
    )


# -- diff -------------------------------------------------------------------------------


def diff(runs: Sequence[Ran]) -> Shown:
    base, head, compared = runs
    for ran in (base, head):
        if ran.status != 0 or counts(closing_line(ran)) != {"passed": 1}:
            return _missing(ran, "a green run of the archive's test")
    new = "changed/test_archive.py::test_a_greeting_is_archived: + git init"
    lines = [line.strip() for line in compared.lines()]
    failed = "failed on: new-programs (1)"
    if compared.status != 1 or new not in lines or failed not in lines:
        return _missing(compared, f"`{new}` and `{failed}`, exit status 1")
    block = _block(compared.lines(), "programs: 1 test (+ new, - no longer)")
    shown = [line for ran in (base, head) for line in (ran.shown, f"    {closing_line(ran)}")]
    return Shown(
        (*shown, compared.shown, *_out(["programs: 1 test (+ new, - no longer)", *block, failed])),
        "both runs are green; the diff names the program the new default starts in the test, "
        "and fails the change on it",
        True,
    )
