"""``truegreen ablate --discover [PATHS]``: which negative tests can fail, with no records.

One tracing pytest run over the selected tests records which exceptions each passing test
caught and which ``raise`` of the project's source produced each
(:mod:`truegreen.runner.discovery`); each becomes a claim, or the reason it cannot
(:mod:`truegreen.core.discovery`); the claims run as any claim does, warm and side by side
(:mod:`truegreen.runner.ablation`). Nothing is written, but by ``--write-records``: each
killed claim as an ``Ablation:`` record in its test's docstring, a file at a time, through
a temporary file renamed over it.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
import tempfile
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Union

from truegreen.core import formats
from truegreen.core.ablation import KILLED, PASSING, SURVIVED, Verdict
from truegreen.core.claims import Claim, Unreadable, python_source, read_records
from truegreen.core.discovery import Derived, NotWritten, add_records, derive, switched
from truegreen.runner import forkserver
from truegreen.runner.ablation import Ablator, Outcome, Runner
from truegreen.runner.discovery import Trace, run_batches, trace


def _say(line: str) -> None:
    sys.stderr.write(f"truegreen ablate --discover: {line}\n")


def _reader() -> Callable[[str], Optional[str]]:
    cache: dict[str, Optional[str]] = {}

    def read(path: str) -> Optional[str]:
        if path not in cache:
            try:
                cache[path] = python_source(Path(path).read_bytes())
            except (OSError, Unreadable):
                cache[path] = None
        return cache[path]

    return read


@dataclass
class Discovery:
    trace: Trace
    derived: list[Derived]
    outcomes: list[Outcome] = field(default_factory=list)
    written: list[tuple[str, int]] = field(default_factory=list)  # (file, records added)
    unwritten: list[str] = field(default_factory=list)  # why a record was not written

    @property
    def negative(self) -> list[str]:
        return sorted({c.test for c in self.trace.caught})

    def where(self, claim: Claim) -> Derived:
        return next(d for d in self.derived if d.claim == claim)


def run(args: argparse.Namespace, prepare: Callable[[Claim], Union[str, Verdict]]) -> int:
    """The verb with ``--discover``; ``prepare`` is the ablated source of a claim, or its
    verdict (as ``truegreen ablate`` prepares any claim)."""
    paths = list(args.discover) or ["."]
    _say(f"tracing one run of {' '.join(paths)}")
    traced = trace(paths, args.run_timeout)
    _say(f"{traced.passed} tests passed, {len({c.test for c in traced.caught})} caught an "
         f"exception or took an early-out ({traced.method}, {traced.seconds:.1f}s)")  # fmt: skip
    root = os.getcwd()
    read = _reader()
    derived = [derive(caught, read, root) for caught in traced.caught]
    found = Discovery(traced, derived)
    claims = list(dict.fromkeys(d.claim for d in derived if d.claim is not None))
    _say(f"{len(claims)} claims derived")
    # one ablated source an anchor, however many tests claim it
    prepared: dict[tuple[str, str, Optional[str]], Union[str, Verdict]] = {}
    for claim in claims:
        anchor = (claim.path, claim.snippet, claim.new)
        if anchor not in prepared:
            prepared[anchor] = prepare(claim)
    items: list[tuple[Claim, tuple[str, ...], Union[str, Verdict]]]
    items = [(c, (c.test,), prepared[(c.path, c.snippet, c.new)]) for c in claims]
    targets = sorted({c.path for c, _, ablated in items if isinstance(ablated, str)})
    numbered = {n: c for n, (c, _, ablated) in enumerate(items, 1) if isinstance(ablated, str)}
    files, batched = _switched(numbered, read) if args.batch else ({}, [])
    warm = forkserver.available() if args.warm is None else args.warm
    runner = Runner.start(args.run_timeout, warm and bool(targets), targets)
    try:
        if batched:
            _say(f"{len(batched)} claims batched, {len(numbered) - len(batched)} alone")
        verdicts = run_batches(runner, batched, files, args.jobs) if batched else {}
        alone = [item for n, item in enumerate(items, 1) if n not in verdicts]
        outcomes = {id(o.claim): o for o in Ablator(runner, args.jobs).run(alone)}
    finally:
        runner.close()
    for number, (claim, _, _) in enumerate(items, 1):
        if number in verdicts:
            verdict, seconds = verdicts[number]
            found.outcomes.append(Outcome(claim, verdict, seconds))
        else:
            found.outcomes.append(outcomes[id(claim)])
    if args.write_records:
        _write(found)
    if args.format == "json":
        print(json.dumps(_document(found), indent=2))
    else:
        _table(found)
    failing = [o for o in found.outcomes if o.verdict.verdict not in PASSING]
    return 1 if failing or found.unwritten else 0


def _switched(
    numbered: dict[int, Claim], read: Callable[[str], Optional[str]]
) -> tuple[dict[str, str], list[tuple[int, int, Claim]]]:
    """Each target with its claims' anchors behind their switches (one switch an anchor,
    however many tests claim it), and the claims placed: (number, switch, claim)."""
    anchors: dict[tuple[str, str, Optional[str]], int] = {}
    for claim in numbered.values():
        anchors.setdefault((claim.path, claim.snippet, claim.new), len(anchors) + 1)
    files: dict[str, str] = {}
    placed: set[int] = set()
    for path in sorted({c.path for c in numbered.values()}):
        source = read(os.path.abspath(path))
        mine = [(n, Claim("", p, snippet, new, 0)) for (p, snippet, new), n in anchors.items()
                if p == path]  # fmt: skip
        if source is not None:
            files[path], done = switched(source, mine)
            placed.update(done)
    batched = []
    for number, claim in numbered.items():
        switch = anchors[(claim.path, claim.snippet, claim.new)]
        if switch in placed:
            batched.append((number, switch, claim))
    return files, batched


# -- --write-records --------------------------------------------------------------------


def _split(nodeid: str) -> tuple[str, str]:
    """(test file, function within it) of a node id, without its parameters."""
    path, _, rest = nodeid.partition("::")
    return path, re.sub(r"\[.*\]$", "", rest)


def _write(found: Discovery) -> None:
    """Each killed claim as a record in its test's docstring, a file at a time."""
    by_file: dict[str, dict[str, list[Claim]]] = {}
    for outcome in found.outcomes:
        if outcome.verdict.verdict == KILLED:
            path, function = _split(outcome.claim.test)
            by_file.setdefault(path, {}).setdefault(function, []).append(outcome.claim)
    for path, functions in sorted(by_file.items()):
        target = Path(path)
        try:
            data = target.read_bytes()
            source = python_source(data)
        except (OSError, Unreadable) as exc:
            found.unwritten.append(f"{path}: cannot be read ({exc})")
            continue
        new = source
        for function, claims in functions.items():
            try:
                new = add_records(new, path, function, claims)
            except NotWritten as exc:
                found.unwritten.append(str(exc))
            except SyntaxError as exc:
                found.unwritten.append(f"{path}: does not parse ({exc.msg})")
                break
        if new == source:
            continue
        added = len(read_records(new, path)[0]) - len(read_records(source, path)[0])
        _replace(target, new.encode(_encoding(data)))
        found.written.append((path, added))
        _say(f"wrote {added} records to {path}")


def _encoding(data: bytes) -> str:
    try:
        return tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError:
        return "utf-8"


def _replace(target: Path, data: bytes) -> None:
    """Write ``target`` whole or not at all: a temporary file beside it, renamed over it."""
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, target.stat().st_mode & 0o7777)
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


# -- reports ----------------------------------------------------------------------------


def _claim_text(claim: Claim) -> str:
    if claim.new is None:
        return f"delete `{claim.snippet}`"
    return f"replace `{claim.snippet}` with `{claim.new}`"


def _document(found: Discovery) -> dict[str, Any]:
    return {
        "format": formats.ABLATE_DISCOVER,
        "passed": found.trace.passed,
        "tracing": {"method": found.trace.method, "seconds": round(found.trace.seconds, 3)},
        "negative_tests": found.negative,
        "claims": [
            {
                "test": o.claim.test,
                "path": o.claim.path,
                "snippet": o.claim.snippet,
                "new": o.claim.new,
                "line": found.where(o.claim).where,
                "raise": found.where(o.claim).raise_text,
                "verdict": o.verdict.verdict,
                "detail": o.verdict.detail,
                "seconds": round(o.seconds, 3),
            }
            for o in found.outcomes
        ],
        "not_derivable": [
            {"test": d.caught.test, "exception": d.caught.type, "why": d.why}
            for d in found.derived
            if d.claim is None
        ],
        "written": [{"path": path, "records": n} for path, n in found.written],
        "not_written": found.unwritten,
    }


def _counts(outcomes: Sequence[Outcome]) -> str:
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.verdict.verdict] = counts.get(o.verdict.verdict, 0) + 1
    return ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))


def _table(found: Discovery) -> None:
    outcomes = found.outcomes
    if outcomes:
        width = min(max(len(o.claim.test) for o in outcomes), 70)
        print(f"{'test':<{width}}  {'verdict':<14}  {'seconds':>7}  claim")
        for o in outcomes:
            print(f"{o.claim.test[:width]:<{width}}  {o.verdict.verdict:<14}  "
                  f"{o.seconds:>7.1f}  {_claim_text(o.claim)} in {o.claim.path}")  # fmt: skip
    survived = [o for o in outcomes if o.verdict.verdict == SURVIVED]
    if survived:
        print(f"{len(survived)} negative tests stay green without the raise they caught "
              "or the early-out they took (they check nothing specific):")  # fmt: skip
        for o in survived:
            where = found.where(o.claim)
            print(f"  {o.claim.test}: should fail without {where.where} `{where.raise_text}` "
                  f"({_claim_text(o.claim)})")  # fmt: skip
    other = [o for o in outcomes if o.verdict.verdict not in (KILLED, SURVIVED)]
    for o in other:
        print(f"  {o.verdict.verdict}: {o.claim.test}: {o.verdict.detail}")
    missing = [d for d in found.derived if d.claim is None]
    if missing:
        print(f"{len(missing)} caught exceptions with no derivable claim:")
        for d in missing:
            print(f"  {d.caught.test}: {d.why}")
    for path, n in found.written:
        print(f"wrote {n} records to {path}")
    if found.unwritten:
        print(f"{len(found.unwritten)} records not written:")
        for why in found.unwritten:
            print(f"  {why}")
    print(
        f"{len(found.negative)} negative tests (of {found.trace.passed} passing), "
        f"{len(outcomes)} claims derived"
        + (f": {_counts(outcomes)}" if outcomes else "")
        + f", {len(missing)} caught exceptions with no claim"
    )
