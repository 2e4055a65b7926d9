"""The ``truegreen`` command: argparse verbs over core/ and plugin/ functions.

Nothing below :func:`main` prints an error or exits; errors travel up as
:class:`~truegreen.core.errors.TruegreenError` and become one line here.
"""

from __future__ import annotations

import argparse
import enum
import importlib
import sys
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


def add_verb(
    verbs: Any, name: str, *, summary: str, description: str, example: str
) -> argparse.ArgumentParser:
    """One verb's parser: its one-line summary, its description, and an example epilog."""
    parser: argparse.ArgumentParser = verbs.add_parser(
        name,
        help=summary,
        description=description,
        epilog="example:\n" + example,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


# The verbs, each a module of this package (``collect-gate`` is ``collect_gate``), imported
# only when needed: a verb's start-up then pays for its own imports, not every other verb's.
VERBS = (
    "ablate",
    "audit",
    "collect-gate",
    "demo",
    "docs-check",
    "doctor",
    "flakes",
    "leaks",
    "metrics",
    "platforms",
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


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run one verb; return its exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words[0] if words else None)
    try:
        args = parser.parse_args(argv)
        verb: Optional[Verb] = getattr(args, "run", None)
        if verb is None:
            parser.print_help()
            return Status.USAGE
        return int(verb(args))
    except TruegreenError as exc:
        sys.stderr.write(f"truegreen: error: {exc}\n")
        return exc.exit_status
    except SystemExit as exc:  # --help and --version end here
        return exc.code if isinstance(exc.code, int) else Status.CLEAN
    except KeyboardInterrupt:
        sys.stderr.write("truegreen: interrupted\n")
        return 130
