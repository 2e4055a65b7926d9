"""The ``truegreen`` command: argparse verbs over core/ and plugin/ functions.

Nothing below :func:`main` prints an error or exits; errors travel up as
:class:`~truegreen.core.errors.TruegreenError` and become one line here.
"""

from __future__ import annotations

import argparse
import enum
import importlib
import math
import os
import sys
import time
from collections.abc import Sequence
from typing import Any, Callable, Optional

from truegreen import __version__
from truegreen.core.errors import TruegreenError


class Status(enum.IntEnum):
    """Exit statuses shared by every verb."""

    CLEAN = 0
    FINDINGS = 1
    USAGE = 2
    DEADLINE = 124


Verb = Callable[[argparse.Namespace], int]
PROG = "truegreen"


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so main() owns the exit status."""

    def error(self, message: str) -> None:  # type: ignore[override]
        from truegreen.core.errors import UsageError

        raise UsageError(f"{self.prog}: {message}")


class HelpFormatter(argparse.HelpFormatter):
    """Descriptions wrapped to the terminal's width, paragraph by paragraph; the example
    epilog kept line for line, as a command is copied."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(EXAMPLE_HEADING):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        fill = super()._fill_text
        return "\n\n".join(fill(paragraph, width, indent) for paragraph in text.split("\n\n"))


EXAMPLE_HEADING = "example:\n"


def add_verb(
    verbs: Any, name: str, *, summary: str, description: str, example: str
) -> argparse.ArgumentParser:
    """One verb's parser (or one action's, given a verb's subparsers): its one-line summary,
    its description, and an example epilog."""
    parser: argparse.ArgumentParser = verbs.add_parser(
        name,
        help=summary,
        description=description,
        epilog=EXAMPLE_HEADING + example,
        formatter_class=HelpFormatter,
    )
    return parser


# The longest timeout or deadline, in seconds: a week. Every platform's waits take it
# (Windows' longest is 49 days; a billion seconds overflows them), and no run needs longer.
MAX_SECONDS = 7 * 24 * 3600


def seconds(text: str) -> float:
    """argparse type: a number of seconds above 0 and at most a week (a deadline, a timeout)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= MAX_SECONDS:  # NaN fails every comparison
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds above 0 and at most {MAX_SECONDS} (a week), "
            f"found {text!r}"
        )
    return value


def unix_time(text: str) -> float:
    """argparse type: a Unix time at most a week from now (a deadline; one already past ends
    the run at once)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= time.time() + MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"expected a Unix time in seconds, above 0 and at most a week from now, found {text!r}"
        )
    return value


def count(low: int, high: Optional[int] = None) -> Callable[[str], int]:
    """argparse type: a whole number of at least ``low`` (and at most ``high``)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low or (high is not None and value > high):
            within = f"from {low} to {high}" if high is not None else f"of at least {low}"
            raise argparse.ArgumentTypeError(f"expected a whole number {within}, found {text!r}")
        return value

    parse.__name__ = "count"  # argparse names the type in its messages
    return parse


def cpus() -> int:
    return os.cpu_count() or 1


def add_jobs(
    parser: argparse.ArgumentParser, what: str, default: Optional[int], shown: str
) -> None:
    """``-j N``, the same in every verb: at most N of ``what`` at a time."""
    parser.add_argument("-j", "--jobs", type=count(1), default=default, metavar="N",
                        help=f"at most N {what} at a time (default: {shown})")  # fmt: skip


def add_set(parser: argparse.ArgumentParser) -> None:
    """``--set KEY=VALUE``, as pytest's ``--truegreen-set``, in the verbs that read the config."""
    parser.add_argument(
        "--set", dest="flags", action="append", default=[], metavar="KEY=VALUE",
        help="as pytest's --truegreen-set: override one key (repeatable)",
    )  # fmt: skip


def add_run_timeout(parser: argparse.ArgumentParser, default: Optional[float]) -> None:
    """``--run-timeout S``, the same in every verb that starts pytest runs."""
    shown = f"{default:g}" if default is not None else "none"
    parser.add_argument("--run-timeout", type=seconds, default=default, metavar="S",
                        help=f"end each pytest run after S seconds, with its whole process "
                        f"tree (default: {shown})")  # fmt: skip


# The verbs, each a module of this package (``collect-gate`` is ``collect_gate``), imported
# only when needed: a verb's start-up then pays for its own imports, not every other verb's.
VERBS = (
    "ablate",
    "audit",
    "collect-gate",
    "demo",
    "diff",
    "docs-check",
    "doctor",
    "env-inventory",
    "flakes",
    "leaks",
    "metrics",
    "platforms",
    "repro",
    "run",
    "shards",
)


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    """The whole command line, or with ``only`` the parser of that one verb."""
    parser = _Parser(
        prog=PROG,
        description="Make a green pytest run mean what it says.",
        epilog="Start with: truegreen demo. Each verb has --help with an example.",
    )
    parser.add_argument("--version", action="version", version=f"truegreen {__version__}")
    # prog named outright: argparse would otherwise format a usage line to learn it, which
    # imports shutil (and bz2, lzma) for the terminal's width: 5% of an audit's start-up.
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser, prog=PROG)
    for name in (only,) if only in VERBS else VERBS:
        importlib.import_module(f"truegreen.cli.{name.replace('-', '_')}").add_parser(verbs)
    return parser


def main(argv: Optional[Sequence[str]] = None, *, quick: bool = True) -> int:
    """Run one verb; return its exit status. ``quick=False``: the audit's quick answer was
    already looked for (``python -m truegreen``, the ``truegreen`` command)."""
    words = list(sys.argv[1:] if argv is None else argv)
    if quick and words[:1] == ["audit"]:  # an unchanged tree's audit, before any parsing
        from truegreen.audit.quick import answer

        status = answer(words[1:])
        if status is not None:
            return status
    parser = build_parser(words[0] if words else None)
    try:
        args = parser.parse_args(argv)
        args.words = words[1:]  # the verb's command line as typed
        verb: Optional[Verb] = getattr(args, "run", None)
        if verb is None:
            parser.print_help()
            return Status.USAGE
        status = int(verb(args))
        sys.stdout.flush()  # a reader gone away shows here, not in the interpreter's last flush
        return status
    except BrokenPipeError:
        # `truegreen audit | head`: the reader has what it wanted. The null device takes what
        # is still buffered, so nothing more is printed; the status is a shell's for SIGPIPE.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13
    except TruegreenError as exc:
        sys.stderr.write(f"truegreen: error: {exc}\n")
        return exc.exit_status
    except SystemExit as exc:  # --help and --version end here
        return exc.code if isinstance(exc.code, int) else Status.CLEAN
    except KeyboardInterrupt:
        sys.stderr.write("truegreen: interrupted\n")
        return 130
