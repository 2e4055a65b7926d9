"""``truegreen env-inventory``: every environment variable the source reads, and whether the
seal covers it."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from truegreen.cli import Status, add_set, add_verb

EXAMPLE = """\
  # the project's own packages and its tests
  truegreen env-inventory
  truegreen env-inventory src tests
  truegreen env-inventory --format json > env-inventory.json
  truegreen env-inventory --set clear-env=APP_MODE   # try a declaration first
"""


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "env-inventory",
        summary="list the environment variables the source reads, and those the seal misses",
        description="Read, without running anything, every .py file of the project's own "
        "packages and of its tests (or every .py file under PATHS) for the environment "
        "variables it reads: os.environ[...], .get, getenv, 'in os.environ', the fields and "
        "env_prefix of a pydantic-settings class, and a copy of the whole environment handed "
        "to a child process. Each variable is judged by the same seal the pytest plugin "
        "applies, with the project's [tool.truegreen] table: cleared (clear-env, "
        "clear-env-prefixes), set (set-env), kept (keep-env), sealed by default (credentials, "
        "git, HOME, XDG, TZ, LANG, TERM, ...), or not covered. A variable the seal does not "
        "cover reaches every test as the machine that runs it has it: the inventory finds it "
        "before the day a developer exports it. Exit 1 when a variable is not covered.",
        example=EXAMPLE,
    )
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATHS")
    add_set(parser)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import ast

    from truegreen import __version__
    from truegreen.audit import envreads, scope
    from truegreen.audit.project import common_ancestor, discover_project
    from truegreen.audit.run import python_files, read_source, relative
    from truegreen.core import config as tgconfig
    from truegreen.core import envinventory
    from truegreen.core.errors import UsageError

    project = discover_project(common_ancestor(args.paths, Path.cwd()))
    settings = tgconfig.load(project.root, os.environ, args.flags, flag="--set")
    walked = python_files(project, list(args.paths) or [project.root])
    # By default what pytest collects and imports, and the project's own packages; under
    # PATHS given, every file (a script the tests never import still runs somewhere).
    files = walked if args.paths else list(scope.select(project, walked, []).files)
    if not files:
        shown = " ".join(str(p) for p in args.paths) or str(project.root)
        raise UsageError(f"expected .py files of the project or its tests in {shown}, found none")
    sites: list[envinventory.Site] = []
    skipped: list[tuple[str, str]] = []
    for path in files:
        name = relative(project, path)
        try:
            tree = ast.parse(read_source(path.read_bytes()), filename=str(path))
        except SyntaxError as exc:
            why = f"does not parse ({exc.msg}, line {exc.lineno})"
        except (OSError, UnicodeDecodeError, LookupError, ValueError) as exc:
            why = f"cannot be read ({exc})"
        else:
            sites += envreads.reads(tree, name)
            continue
        skipped.append((name, why))
        sys.stderr.write(f"truegreen: env-inventory: skipped {name}: {why}\n")
    verdicts = envinventory.Verdicts(settings, devnull=os.devnull, windows=sys.platform == "win32")
    inventory = envinventory.build(sites, verdicts, len(files) - len(skipped), skipped)
    if args.format == "json":
        source = str(settings.source) if settings.source else None
        print(envinventory.as_json(inventory, version=__version__, config_file=source))
    else:
        print(envinventory.text(inventory))
    return Status.FINDINGS if inventory.uncovered else Status.CLEAN
