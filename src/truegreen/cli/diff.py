"""``truegreen diff BASE HEAD``: what a change did to the suite's behaviour, from two runs'
event streams."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any, Optional

from truegreen.cli import Status, add_verb, seconds
from truegreen.cli.metrics import plural
from truegreen.core import formats
from truegreen.core.diff import CATEGORIES, GATES, MIN_SAMPLES, Side, compare, gated, side
from truegreen.core.errors import DataError
from truegreen.core.metrics import pick, read_dir, runs

EXAMPLE = """\
  # the base branch's run and the change's, each with --truegreen-metrics
  pytest --truegreen-metrics=.metrics-base   # on main
  pytest --truegreen-metrics=.metrics-head   # on the branch
  truegreen diff .metrics-base .metrics-head
  # in CI: the step summary, failing on a new program or network target
  truegreen diff base/ head/ --format markdown \\
      --fail-on new-programs,new-network >> "$GITHUB_STEP_SUMMARY"
  # slower tests need 3 runs a side: run the suite 3 times into each directory
  truegreen diff base/ head/ --slower-ratio 2 --fail-on slower
"""


def _gates(text: str) -> list[str]:
    """argparse type: a comma-separated list of the gates GATES names."""
    words = [w.strip() for w in text.split(",") if w.strip()]
    unknown = [w for w in words if w not in GATES]
    if unknown or not words:
        found = ", ".join(repr(w) for w in unknown) if unknown else "nothing"
        raise argparse.ArgumentTypeError(
            f"expected a comma-separated list of {', '.join(GATES)}; found {found}"
        )
    return list(dict.fromkeys(words))


def _ratio(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 1 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a number above 1, found {text!r}")
    return value


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "diff",
        summary="what a change did to the suite's behaviour: two runs' event streams compared",
        description="Compare two runs recorded with --truegreen-metrics=DIR (the base "
        "branch's and the change's, or two local runs), per test and in total: programs a test "
        "newly starts or no longer starts (with git's verb), network targets, writes and reads "
        "the guards reported, tests added and removed, outcomes changed, and tests slower "
        "beyond noise. BASE and HEAD are metrics directories or one run's directory in each.\n\n"
        "Behaviour is read from the latest run of each directory (--base-run, --head-run pick "
        "one; --all-runs takes every run of a directory as one, as the shards of one CI "
        "run). Timing is read from every run of each directory: a test is slower when both "
        f"sides hold at least {MIN_SAMPLES} runs of it, its median grew by --slower-ratio "
        "and by --slower-floor seconds, and the head's samples stand above the base's (in 90% "
        "of the pairs); with fewer runs the report says there are not enough samples.\n\n"
        "Exit status 1 when a difference named in --fail-on is found, else 0; 2 for bad input.",
        example=EXAMPLE,
    )
    parser.add_argument("base", type=Path, metavar="BASE")
    parser.add_argument("head", type=Path, metavar="HEAD")
    parser.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    parser.add_argument("--base-run", metavar="ID",
                        help="the run of BASE to compare (its id or a prefix naming only it; "
                        "none for streams written without an id); default the latest")  # fmt: skip
    parser.add_argument("--head-run", metavar="ID", help="the run of HEAD, as --base-run")
    parser.add_argument("--all-runs", action="store_true",
                        help="compare the behaviour of every run of each directory, taken as one "
                        "(the shards of a CI run); timing always reads every run")  # fmt: skip
    parser.add_argument("--slower-ratio", type=_ratio, default=1.5, metavar="R",
                        help="a test is slower when its median grew R times "
                        "(default 1.5)")  # fmt: skip
    parser.add_argument("--slower-floor", type=seconds, default=0.05, metavar="S",
                        help="... and by at least S seconds, so a test of microseconds does "
                        "not flap (default 0.05)")  # fmt: skip
    parser.add_argument("--fail-on", type=_gates, default=[], metavar="LIST",
                        help="exit 1 on these differences, comma-separated: "
                        + ", ".join(GATES))  # fmt: skip
    parser.set_defaults(run=run)


def _side(directory: Path, wanted: Optional[str], every: bool, option: str) -> tuple[Side, Any]:
    found = runs(read_dir(directory))
    if every:
        chosen = found
    else:
        try:
            chosen = [pick(found, wanted)]
        except DataError as exc:
            raise DataError(f"{directory}: {str(exc).replace('--run', option, 1)}") from None
    return side(chosen, found), [r.id for r in found]


def document(args: argparse.Namespace) -> dict[str, Any]:
    base, base_runs = _side(args.base, args.base_run, args.all_runs, "--base-run")
    head, head_runs = _side(args.head, args.head_run, args.all_runs, "--head-run")
    data: dict[str, Any] = {"format": formats.DIFF}
    for name, directory, one, found in (("base", args.base, base, base_runs),
                                        ("head", args.head, head, head_runs)):  # fmt: skip
        data[name] = {"directory": str(directory), "runs": one.runs, "runs_in_directory": found,
                      "tests": len(one.tests), "skipped_records": one.skipped}  # fmt: skip
    data.update(compare(base, head, args.slower_ratio, args.slower_floor))
    data["fail_on"] = args.fail_on
    data["failed_on"] = gated(data, args.fail_on)
    return data


def run(args: argparse.Namespace) -> int:
    data = document(args)
    if args.format == "json":
        print(json.dumps(data, indent=2))
    else:
        print("\n".join(report(data, markdown=args.format == "markdown")))
    return Status.FINDINGS if data["failed_on"] else Status.CLEAN


def _runs(one: dict[str, Any]) -> str:
    named = ", ".join(r or "none" for r in one["runs"])
    return f"{one['directory']} ({plural(len(one['runs']), 'run')} {named}, " + (
        f"{plural(one['tests'], 'test')})"
    )


def report(data: dict[str, Any], markdown: bool) -> list[str]:
    """The differences in words, as text or as GitHub-flavoured Markdown."""
    heading = "### " if markdown else ""
    item = "- " if markdown else "  "

    def code(text: str) -> str:
        return f"`{text}`" if markdown else text

    lines = [f"{heading}truegreen diff: {_runs(data['base'])} -> {_runs(data['head'])}"]
    found = False

    def section(title: str, rows: list[str]) -> None:
        nonlocal found
        if rows:
            found = True
            lines.extend(["", f"{heading}{title}", *rows])

    tests = data["tests"]
    section(f"tests added ({len(tests['added'])})", [f"{item}+ {code(t)}" for t in tests["added"]])
    section(f"tests removed ({len(tests['removed'])})",
            [f"{item}- {code(t)}" for t in tests["removed"]])  # fmt: skip
    section(f"outcomes changed ({len(data['outcomes'])})",
            [f"{item}{code(o['test'])}: {o['base']} -> {o['head']}"
             for o in data["outcomes"]])  # fmt: skip
    for key, words in CATEGORIES:
        part = data[key]
        rows = []
        for test in sorted(set(part["new"]) | set(part["gone"])):
            changes = [f"+ {code(x)}" for x in part["new"].get(test, [])]
            changes += [f"- {code(x)}" for x in part["gone"].get(test, [])]
            rows.append(f"{item}{code(test)}: {', '.join(changes)}")
        tests_changed = len(rows)
        total = part["total"]
        if total["new"] or total["gone"]:
            changes = [f"+ {code(x)}" for x in total["new"]] + [
                f"- {code(x)}" for x in total["gone"]
            ]
            rows.append(f"{item}in total: {', '.join(changes)}")
        section(f"{words}: {plural(tests_changed, 'test')} (+ new, - no longer)", rows)
    listeners = data["listeners"]
    if listeners["base"] != listeners["head"]:
        section("listening sockets opened",
                [f"{item}{listeners['base']} -> {listeners['head']}"])  # fmt: skip
    slower = data["slower"]
    rows = [
        f"{item}{code(s['test'])}: {s['base_median_seconds']:.3f}s -> "
        f"{s['head_median_seconds']:.3f}s (x{s['ratio']}, medians of {s['samples']['base']} "
        f"and {s['samples']['head']} runs)"
        for s in slower["tests"] + ([slower["suite"]] if slower["suite"] else [])
    ]
    section(f"slower (x{slower['ratio']:g} and +{slower['floor_seconds']:g}s or more)", rows)
    if not slower["enough_samples"]:
        need = slower["min_samples"]
        lines += ["", f"slower: not enough samples: {slower['runs']['base']} base and "
                  f"{slower['runs']['head']} head runs, {need} a side needed (run the suite "
                  f"{need} times into each directory)"]  # fmt: skip
    elif slower["tests_without_enough_samples"]:
        lines += ["", f"slower: not enough samples for "
                  f"{plural(slower['tests_without_enough_samples'], 'test')} "
                  f"(fewer than {slower['min_samples']} runs a side)"]  # fmt: skip
    if not found:
        lines += ["", "no differences in behaviour"]
    for name in ("base", "head"):
        if data[name]["skipped_records"]:
            skipped = plural(data[name]["skipped_records"], "record")
            lines += ["", f"note: {skipped} of {name} skipped, not of the stream's schema "
                      "(truegreen metrics names them)"]  # fmt: skip
    if data["failed_on"]:
        named = ", ".join(f"{g} ({n})" for g, n in data["failed_on"].items())
        lines += ["", f"{'**failed**' if markdown else 'failed'} on: {named}"]
    return lines
