"""``truegreen metrics``: where a run's time went, from its event stream."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from truegreen.cli import add_verb
from truegreen.core import formats
from truegreen.core.metrics import Summary, durations, read_dir, summarize

EXAMPLE = """\
  pytest -n 2 --truegreen-metrics=.metrics
  truegreen metrics .metrics
  truegreen metrics .metrics --format markdown >> "$GITHUB_STEP_SUMMARY"
  # for duration sharding
  truegreen metrics .metrics --durations-out .test_durations
  truegreen metrics .metrics --html timeline.html
"""


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "metrics",
        summary="summarise a run's event stream: time, files, fixtures, programs",
        description="Read the event stream a run recorded with --truegreen-metrics=DIR: "
        "wall-clock time against summed worker seconds and the parallel efficiency; cost per "
        "file; the slowest tests; fixture setup totals; each worker's cleanup tail; tests that "
        "started and never finished; programs started, per test, per program and per call "
        "site. A truncated last line (a killed process) is reported, not fatal.",
        example=EXAMPLE,
    )
    parser.add_argument("directory", type=Path, metavar="DIR")
    parser.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    parser.add_argument("--top", type=int, default=10, help="rows per table (default 10)")
    parser.add_argument("--html", type=Path, metavar="FILE",
                        help="write a self-contained timeline page")  # fmt: skip
    parser.add_argument("--durations-out", type=Path, metavar="FILE",
                        help="write {nodeid: seconds} for --truegreen-durations")  # fmt: skip
    parser.set_defaults(run=run)


def document(summary: Summary, top: int) -> dict[str, Any]:
    def ranked(values: dict[str, float]) -> list[list[Any]]:
        return [[k, round(v, 3)] for k, v in sorted(values.items(), key=lambda i: -i[1])[:top]]

    return {
        "format": formats.METRICS,
        "wall_seconds": round(summary.wall, 3),
        "worker_seconds": round(summary.busy, 3),
        "workers": summary.workers,
        "parallel_efficiency": round(summary.efficiency, 3),
        "tests": len(summary.tests),
        "outcomes": dict(sorted(_count(summary.outcomes).items())),
        "slowest_tests": ranked(summary.tests),
        "files": ranked(summary.files),
        "fixtures": [[name, n, round(s, 3)] for name, (n, s) in
                     sorted(summary.fixtures.items(), key=lambda i: -i[1][1])[:top]],
        "cleanup_tail_seconds": {k: round(v, 3) for k, v in summary.tails.items()},
        "unfinished": summary.unfinished,
        "programs": dict(summary.spawns_by_program.most_common(top)),
        "programs_by_site": dict(summary.spawns_by_site.most_common(top)),
        "programs_by_test": {t: dict(c) for t, c in summary.spawns_by_test.items()},
        "truncated": summary.truncated,
        "skipped": summary.skipped,
    }  # fmt: skip


def _count(outcomes: dict[str, str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for outcome in outcomes.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def run(args: argparse.Namespace) -> int:
    streams = read_dir(args.directory)
    summary = summarize(streams)
    if args.html:
        from truegreen.core.timeline import render

        args.html.write_text(render(streams), encoding="utf-8")
    if args.durations_out:
        args.durations_out.write_text(json.dumps(durations(summary), indent=1), encoding="utf-8")
    data = document(summary, args.top)
    if args.format == "json":
        print(json.dumps(data, indent=2))
        return 0
    markdown = args.format == "markdown"
    heading = "### " if markdown else ""
    lines = [
        f"{heading}truegreen metrics: {data['tests']} tests, "
        + ", ".join(f"{n} {k}" for k, n in data["outcomes"].items()),
        "",
        f"wall {data['wall_seconds']:.2f}s; worker time {data['worker_seconds']:.2f}s over "
        f"{data['workers']} processes; parallel efficiency {data['parallel_efficiency']:.0%}",
    ]
    for title, rows in (("slowest tests", data["slowest_tests"]), ("cost per file", data["files"])):
        lines += ["", f"{heading}{title}"]
        lines += [
            f"- {s:.3f}s `{name}`" if markdown else f"  {s:>8.3f}s  {name}" for name, s in rows
        ]
    if data["fixtures"]:
        lines += ["", f"{heading}fixture setup"]
        lines += [f"  {s:>8.3f}s  {name} (x{n})" for name, n, s in data["fixtures"]]
    if data["cleanup_tail_seconds"]:
        lines += ["", f"{heading}cleanup tail (last test end to process end)"]
        lines += [f"  {s:>8.3f}s  {p}" for p, s in data["cleanup_tail_seconds"].items()]
    if data["unfinished"]:
        lines += ["", f"{heading}started and never finished"]
        lines += [f"  {t}" for t in data["unfinished"]]
    if data["programs"]:
        lines += ["", f"{heading}programs started"]
        lines += [f"  {n:>5}  {name}" for name, n in data["programs"].items()]
        lines += ["  by call site:"] + [
            f"  {n:>5}  {site}" for site, n in data["programs_by_site"].items()
        ]
    for path in data["truncated"]:
        lines += ["", f"note: {path} ends in a truncated line (the process was killed mid-write)"]
    if data["skipped"]:
        lines += ["", f"note: {len(data['skipped'])} records skipped, not of the stream's schema:"]
        lines += [f"  {skipped}" for skipped in data["skipped"][: args.top]]
    print("\n".join(lines))
    return 0
