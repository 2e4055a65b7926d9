"""``truegreen audit``: the static rules over a project's tests."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Optional

from truegreen.cli import Status, add_verb

EXAMPLE = """\
  # the project's tests, every default rule
  truegreen audit
  truegreen audit tests --select TG1,xfail-not-strict --ignore TG103
  truegreen audit --format sarif > truegreen.sarif   # for code scanning
  truegreen audit --format github       # annotations in a GitHub Actions log
  truegreen audit --list-rules
  truegreen audit --explain TG101
"""
FORMATS = ("text", "json", "sarif", "github")


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "audit",
        summary="find tests that can pass for the wrong reason, statically",
        description="Parse every .py file under PATHS (default: what a bare pytest collects) "
        "that pytest would collect or import, as its own configuration says (python_files, "
        "testpaths, norecursedirs, ...), once, and run the audit's rules over it: tests that "
        "read source code, sleep, parse the first line of "
        "output, leave xfail lenient, and more (--list-rules). Configured under "
        "[tool.truegreen.audit] (select, ignore, per-file-ignores, exclude); --select and "
        "--ignore replace the table's. Silence one finding on its line with "
        "'# truegreen: ignore[CODE] reason'. Exit 1 on findings.",
        example=EXAMPLE,
    )
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATHS")
    parser.add_argument(
        "--select", metavar="CODES", help="comma-separated codes, prefixes (TG4), names or ALL"
    )
    parser.add_argument("--extend-select", metavar="CODES",
                        help="comma-separated codes or names added to the selected rules "
                        "(opt-in ones among them)")  # fmt: skip
    parser.add_argument("--ignore", metavar="CODES", help="comma-separated codes to leave out")
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--no-cache", action="store_true",
                        help="audit afresh: neither read nor write .truegreen_cache/")  # fmt: skip
    parser.add_argument("--list-rules", action="store_true",
                        help="list every rule: code, name, default or opt-in, summary")  # fmt: skip
    parser.add_argument("--explain", metavar="CODE", help="print one rule's page")
    parser.set_defaults(run=run)


def _codes(flag: str, text: Optional[str]) -> Optional[list[str]]:
    if text is None:
        return None
    from truegreen.audit import registry, settings

    codes = [part.strip() for part in text.split(",") if part.strip()]
    for code in codes:
        if not settings.known_selector(code, registry.all_rules()):
            from truegreen.core.errors import UsageError

            raise UsageError(
                f"{flag} expects comma-separated rule codes, code prefixes (TG4), rule names "
                f"or ALL, found {code!r}; truegreen audit --list-rules shows them"
            )
    return codes


def run(args: argparse.Namespace) -> int:
    from truegreen.audit import pages, registry, report
    from truegreen.audit.project import common_ancestor, discover_project
    from truegreen.audit.run import audit

    if args.explain:
        print(pages.page(registry.rule(args.explain)), end="")
        return Status.CLEAN
    if args.list_rules:
        print(report.rule_list(registry.all_rules(), args.format))
        return Status.CLEAN
    select, ignore = _codes("--select", args.select), _codes("--ignore", args.ignore)
    # pytest's configuration is looked for from the paths' common ancestor, as pytest does
    start = common_ancestor(args.paths, Path.cwd())
    # the command line as typed, for the quick answer of the next run (truegreen.audit.quick)
    words: Optional[list[str]] = getattr(args, "words", None)
    watch = None
    if words is not None and not args.no_cache:
        from truegreen.audit import cache, quick

        watch = quick.Watch(str(start))
    project = discover_project(start)
    extend = _codes("--extend-select", args.extend_select) or []
    if watch is not None:
        watch.project(
            cache.watched(project, args.paths), lambda: cache.prepare(project), str(project.root)
        )
    result = audit(project, args.paths, select, ignore, extend, cache=not args.no_cache)
    writers = {"text": report.text, "json": report.as_json, "sarif": report.sarif,
               "github": report.github}  # fmt: skip
    output = writers[args.format](result)
    if output:
        print(output)
    status = Status.FINDINGS if result.findings else Status.CLEAN
    if watch is not None and words is not None:
        quick.record(str(cache.directory(project)), watch, words, output, status)
    return status
