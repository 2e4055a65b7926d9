"""``truegreen demo``: every feature of truegreen, shown on one small sample project."""

from __future__ import annotations

import argparse
import shutil
import tempfile
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from truegreen.cli import Status, add_jobs, add_verb
from truegreen.core.errors import UsageError
from truegreen.demo.model import Shown
from truegreen.demo.sections import NAMES, SECTIONS, Section

EXAMPLE = """\
  truegreen demo                  # every section
  truegreen demo guards leaks     # only these sections
  truegreen demo --list           # the sections and what each shows
  # leave the sample's copies and homes for a look
  truegreen demo --keep
"""

INTRO = """\
truegreen demo: one small project, greeter, through every feature of truegreen.
greeter.py greets by name, reads GREETER_STYLE and keeps a history in ~/.cache/greeter;
tests/ holds its 8 tests (green on a clean machine), caught/ the tests truegreen catches,
changed/ a test that a dependency's upgrade changes without failing it, unrecorded/ two
negative tests nobody wrote an ablation record for.
Each section runs in a copy of the project of its own, with a temporary home, and prints
the commands it ran: run them yourself in the copies truegreen demo --keep leaves."""

OUTRO = """\
On your own project, in the virtual environment its tests run in: {install}
then run pytest as usual. truegreen doctor shows what is sealed; declare your app's variables
in [tool.truegreen]. The first hour: docs/getting-started.md."""


def install_command(distribution: Any = None) -> str:
    """How to install truegreen from where this one came from: the checkout or wheel it was
    installed from (PEP 610's direct_url.json), or the package index when it came from one."""
    import json
    from importlib import metadata
    from urllib.parse import unquote, urlparse

    try:
        dist = distribution or metadata.distribution("truegreen")
        origin = json.loads(dist.read_text("direct_url.json") or "null")
    except (metadata.PackageNotFoundError, ValueError):
        origin = None
    if not isinstance(origin, dict) or not isinstance(origin.get("url"), str):
        return "pip install truegreen"
    vcs = origin.get("vcs_info")
    if isinstance(vcs, dict) and isinstance(vcs.get("vcs"), str):
        return f"pip install {vcs['vcs']}+{origin['url']}"
    url = urlparse(origin["url"])
    return f"pip install {unquote(url.path) if url.scheme == 'file' else origin['url']}"


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "demo",
        summary="show every feature on an embedded sample project",
        description="Copy a small sample project into a temporary directory and show, section "
        "by section, what truegreen does to it: the hermetic environment, the guards, failure "
        "hints, the audit, ablation (by records and by discovery), leaks, flakes, the sealed "
        "runner with metrics, verified shards and a diff of two runs. Each section prints the "
        "commands it ran, the lines that matter and what it proved. Nothing outside the "
        "temporary directory is read or written, and the only connection is to the demo's own "
        "listener on 127.0.0.1. Exit 0 when every section behaved as promised, 1 when one did "
        "not.",
        example=EXAMPLE,
    )
    parser.add_argument("sections", nargs="*", metavar="SECTION",
                        help="play only these sections (default: all; see --list)")  # fmt: skip
    parser.add_argument("--list", action="store_true", help="name the sections and stop")
    add_jobs(parser, "sections", None, "all of them")
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary directory and print its path"
    )
    parser.set_defaults(run=run)


def chosen(names: list[str]) -> list[Section]:
    """The sections named, in the demo's order; all of them when none is named."""
    unknown = [name for name in names if name not in NAMES]
    if unknown:
        raise UsageError(
            f"truegreen demo: expected sections among {', '.join(NAMES)} "
            f"(got {unknown[0]!r}); truegreen demo --list describes them"
        )
    return [s for s in SECTIONS if not names or s.name in names]


def render(index: int, total: int, section: Section, shown: Shown) -> list[str]:
    """A section as printed: heading, commands and output, and the line saying what it
    proved, or what it did not show."""
    mark = "-> proved: " if shown.ok else "!! NOT AS PROMISED: "
    verdict = textwrap.wrap(shown.verdict, 96, initial_indent="   " + mark,
                            subsequent_indent=" " * (3 + len(mark)))  # fmt: skip
    return ["", f"[{index}/{total}] {section.name}: {section.title}", *shown.lines, *verdict]


def listing() -> list[str]:
    width = max(map(len, NAMES))
    return [f"{s.name:<{width}}  {s.title}" for s in SECTIONS]


def run(args: argparse.Namespace) -> int:
    if args.list:
        if args.sections:
            raise UsageError(f"truegreen demo --list takes no SECTION (got {args.sections[0]!r})")
        print("\n".join(listing()))
        return Status.CLEAN
    from truegreen.demo.stage import play

    sections = chosen(args.sections)
    start = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix="truegreen-demo-"))
    failed = []
    try:
        print(INTRO, flush=True)
        with ThreadPoolExecutor(args.jobs or len(sections)) as pool:
            played = [pool.submit(play, s, workdir / s.name) for s in sections]
            for index, (section, future) in enumerate(zip(sections, played), 1):
                shown = future.result()
                print("\n".join(render(index, len(sections), section, shown)), flush=True)
                if not shown.ok:
                    failed.append(section.name)
        seconds = time.monotonic() - start
        if failed:
            print(f"\ntruegreen demo: {len(failed)} of {len(sections)} sections did NOT behave "
                  f"as promised: {', '.join(failed)}. Please report it.")  # fmt: skip
        else:
            print(f"\ntruegreen demo: all {len(sections)} sections behaved as promised "
                  f"({seconds:.1f}s).\n\n{OUTRO.format(install=install_command())}")  # fmt: skip
        if args.keep:
            print(f"\nkept: {workdir} (each section's project in {workdir}/SECTION/greeter)")
        return Status.FINDINGS if failed else Status.CLEAN
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
