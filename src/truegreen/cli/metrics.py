"""``truegreen metrics``: where a run's time went, from its event stream."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Optional

from truegreen.cli import add_verb, count
from truegreen.core import formats
from truegreen.core.errors import UsageError
from truegreen.core.metrics import Run, Summary, durations, pick, read_dir, runs, summarize

EXAMPLE = """\
  pytest -n 2 --truegreen-metrics=.metrics
  truegreen metrics .metrics
  truegreen metrics .metrics --format markdown >> "$GITHUB_STEP_SUMMARY"
  # for duration sharding
  truegreen metrics .metrics --durations-out .test_durations
  truegreen metrics .metrics --html timeline.html --trace trace.json
  # several runs in one directory: the latest is summarised; or one, or all
  truegreen metrics .metrics --run 20261202T010809Z-1d341d
  truegreen metrics .metrics --all
"""


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "metrics",
        summary="summarise a run's event stream: time, files, fixtures, programs",
        description="Read the event stream a run recorded with --truegreen-metrics=DIR: "
        "the session's and the tests' wall-clock time against the test time summed over the "
        "processes, and the parallel efficiency under xdist; cost per "
        "file; the slowest tests; fixture setup totals; each worker's cleanup tail; tests that "
        "started and never finished; programs started, per test, per program and per call "
        "site. A truncated last line (a killed process) is reported, not fatal.\n\n"
        "Each run writes under its own id in DIR; when DIR holds several (a reused directory, "
        "several CI jobs' artifacts), the latest is summarised and the others are listed: "
        "--run ID picks one, --all sums them together.",
        example=EXAMPLE,
    )
    parser.add_argument("directory", type=Path, metavar="DIR")
    parser.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    parser.add_argument("--top", type=count(1), default=10, metavar="N",
                        help="rows per table (default 10)")  # fmt: skip
    parser.add_argument(
        "--html", type=Path, metavar="FILE", help="write a self-contained timeline page"
    )
    parser.add_argument(
        "--trace",
        type=Path,
        metavar="FILE",
        help="write Chrome trace-event JSON (open it in ui.perfetto.dev or chrome://tracing)",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--run",
        metavar="ID",
        dest="run_id",
        help="the run to summarise (its id or a prefix naming only it; none "
        "for streams written without an id); default the latest",
    )
    which.add_argument("--all", action="store_true",
                       help="sum every run in DIR together")  # fmt: skip
    parser.add_argument("--durations-out", type=Path, metavar="FILE",
                        help="write {nodeid: seconds} for --truegreen-durations")  # fmt: skip
    parser.set_defaults(run=run)


def document(summary: Summary, top: int, chosen: Optional[Run], found: list[Run]) -> dict[str, Any]:
    def ranked(values: dict[str, float]) -> list[list[Any]]:
        return [[k, round(v, 3)] for k, v in sorted(values.items(), key=lambda i: -i[1])[:top]]

    efficiency = summary.efficiency
    return {
        "format": formats.METRICS,
        "run": chosen.id if chosen is not None else None,
        "runs": [{"id": r.id, "started": round(r.start, 3), "processes": r.processes,
                  "tests": r.tests} for r in found],
        "wall_seconds": round(summary.wall, 3),
        "tests_wall_seconds": round(summary.span, 3),
        "worker_seconds": round(summary.busy, 3),
        "workers": summary.workers,
        "parallel": summary.parallel,
        "parallel_efficiency": None if efficiency is None else round(efficiency, 3),
        "tests": len(summary.tests),
        "outcomes": dict(sorted(_count(summary.outcomes).items())),
        "slowest_tests": ranked(summary.tests),
        "files": ranked(summary.files),
        "fixtures": [[name, n, round(s, 3)] for name, (n, s) in
                     sorted(summary.fixtures.items(), key=lambda i: -i[1][1])[:top]],
        "fixture_teardowns": [[name, n, round(s, 3)] for name, (n, s) in
                              sorted(summary.teardowns.items(), key=lambda i: -i[1][1])[:top]],
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


def plural(n: int, word: str, many: str = "") -> str:
    """``1 test``, ``2 tests``; ``1 process``, ``3 processes``."""
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"


def _processes(n: int) -> str:
    return plural(n, "process", "processes")


def _when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(epoch))


def _figures(data: dict[str, Any]) -> list[tuple[str, str]]:
    """Each figure with what it measures, in words."""
    workers = data["workers"]
    figures = [
        (f"{data['wall_seconds']:.2f}s", "wall clock of the session: first process start to "
         "last process end"),
        (f"{data['tests_wall_seconds']:.2f}s", "wall clock of the tests: first test start to "
         "last test end"),
        (f"{data['worker_seconds']:.2f}s", "test time: setup + call + teardown of every test"
         + (f", summed over {_processes(workers)}" if workers > 1 else "")),
    ]  # fmt: skip
    if data["parallel_efficiency"] is not None:
        at_once = data["parallel"]
        figures.append((f"{data['parallel_efficiency']:.0%}",
                        f"parallel efficiency: test time / ({at_once} processes at once x the "
                        "tests' wall clock)"))  # fmt: skip
    return figures


def _runs_note(directory: Path, data: dict[str, Any], every: bool) -> list[str]:
    found = data["runs"]
    if len(found) < 2:
        return []
    which = (
        "all of them summed together (--all)" if every
        else "the latest is summarised" if data["run"] == found[-1]["id"]
        else f"{data['run'] or 'none'} is summarised"
    )  # fmt: skip
    lines = [f"note: {directory} holds {len(found)} runs; {which}; --run ID picks one, "
             "--all sums them all:"]  # fmt: skip
    for run in found:
        mark = "  <- this report" if not every and run["id"] == data["run"] else ""
        counted = f"{_processes(run['processes'])}, {plural(run['tests'], 'test')}"
        lines.append(f"  {run['id'] or 'none':<24}  {_when(run['started'])}  {counted}{mark}")
    return lines


def _write(flag: str, path: Path, text: str) -> None:
    """``text`` into ``path``, or one line naming the flag and the file: a directory that does
    not exist, a file without permission, a full disk."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        found = exc.strerror
        raise UsageError(f"{flag} {path}: expected a file it can write, found {found}") from None


def run(args: argparse.Namespace) -> int:
    streams = read_dir(args.directory)
    found = runs(streams)
    chosen = None if args.all else pick(found, args.run_id)
    if chosen is not None:
        streams = chosen.streams
    summary = summarize(streams)
    written: list[str] = []
    if args.html:
        from truegreen.core.timeline_html import render

        _write("--html", args.html, render(streams, run=chosen.id if chosen else ""))
        written.append(f"wrote the timeline to {args.html} (open it in a browser)")
    if args.trace:
        from truegreen.core.trace import trace

        document_ = trace(streams, run=chosen.id if chosen else "")
        _write("--trace", args.trace, json.dumps(document_, separators=(",", ":")))
        written.append(f"wrote the trace to {args.trace} (open it in ui.perfetto.dev or "
                       "chrome://tracing)")  # fmt: skip
    if args.durations_out:
        _write("--durations-out", args.durations_out, json.dumps(durations(summary), indent=1))
        written.append(f"wrote the durations to {args.durations_out}")
    data = document(summary, args.top, chosen, found)
    if args.format == "json":
        print(json.dumps(data, indent=2))
    else:
        print("\n".join(_report(args, data)))
    sys.stdout.flush()
    for line in written:  # beside the report, never inside a JSON or Markdown one
        sys.stderr.write(f"truegreen metrics: {line}\n")
    return 0


def _report(args: argparse.Namespace, data: dict[str, Any]) -> list[str]:
    markdown = args.format == "markdown"
    heading = "### " if markdown else ""
    outcomes = ", ".join(f"{n} {k}" for k, n in data["outcomes"].items())
    title = f"{heading}truegreen metrics: {plural(data['tests'], 'test')}"
    title += f" ({outcomes})" if outcomes else ""
    if data["run"]:
        title += f", run {data['run']}"
    lines = [title, ""]
    lines += [f"- **{value}** {what}" if markdown else f"  {value:>8}  {what}"
              for value, what in _figures(data)]  # fmt: skip
    note = _runs_note(args.directory, data, args.all)
    if note:
        lines += ["", *note]
    for title, rows in (("slowest tests", data["slowest_tests"]), ("cost per file", data["files"])):
        lines += ["", f"{heading}{title}"]
        lines += [
            f"- {s:.3f}s `{name}`" if markdown else f"  {s:>8.3f}s  {name}" for name, s in rows
        ]
    for key, title in (("fixtures", "fixture setup"), ("fixture_teardowns", "fixture teardown")):
        if data[key]:
            lines += ["", f"{heading}{title}"]
            lines += [f"  {s:>8.3f}s  {name} (x{n})" for name, n, s in data[key]]
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
        skipped = plural(len(data["skipped"]), "record")
        lines += ["", f"note: {skipped} skipped, not of the stream's schema:"]
        lines += [f"  {skipped}" for skipped in data["skipped"][: args.top]]
    return lines
