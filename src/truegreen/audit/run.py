"""One audit run: the files under the given paths, the chosen rules, suppressions applied."""

from __future__ import annotations

import ast
import gc
import io
import os
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from truegreen.audit import registry, scope, settings, suppressions
from truegreen.audit.base import Finding, Project, Rule
from truegreen.audit.engine import check_source
from truegreen.core.errors import UsageError
from truegreen.core.files import unreadable, walked

# Directories never audited, wherever they sit (hidden ones, .git and .tox among them, too).
SKIPPED = frozenset({"__pycache__", "node_modules", "build", "dist", "site-packages",
                     "venv", "env", "__pypackages__"})  # fmt: skip
GC_BATCH = 200


@dataclass(frozen=True)
class Report:
    """What a run found, how many files it read, and which rules it ran."""

    findings: tuple[Finding, ...]
    files: int
    rules: tuple[type[Rule], ...]
    root: Optional[Path] = None  # the project root the findings' paths are relative to
    skipped: tuple[str, ...] = ()  # walked files pytest would neither collect nor import
    skipped_line: str = ""  # how many were skipped and why, for the report


def relative(project: Project, path: Path) -> str:
    """``path`` relative to the project root, POSIX style (as given when outside it)."""
    if path.is_absolute():  # the walk hands out resolved paths: no system call needed
        try:
            return path.relative_to(project.root).as_posix()
        except ValueError:
            pass
    try:
        return path.resolve().relative_to(project.root).as_posix()
    except ValueError:
        return Path(os.path.relpath(path.resolve(), project.root)).as_posix()


def _skipped_dir(project: Project, directory: Path, excluded: Sequence[str]) -> bool:
    name = directory.name
    if name.startswith(".") or name in SKIPPED or (directory / "pyvenv.cfg").is_file():
        return True
    relpath = relative(project, directory)
    return any(settings.path_matches(relpath, glob) for glob in excluded)


def python_files(project: Project, paths: Sequence[Path]) -> list[Path]:
    """The ``.py`` files under ``paths`` (a file or directory named outright is audited), without
    hidden directories, virtualenvs, build output, caches and the ``exclude`` globs."""
    excluded = tuple(project.settings.get("exclude", ()))
    found: set[Path] = set()
    for path in paths:
        why = unreadable(path)
        if why is not None:
            raise UsageError(
                f"expected PATHS to be readable files or directories, found {str(path)!r} ({why})"
            )
        if path.is_file():
            found.add(path.resolve())
            continue
        named = relative(project, path)
        # A directory named outright is audited even if excluded, like a file named outright.
        within = () if any(settings.path_matches(named, g) for g in excluded) else excluded
        for directory, dirnames, filenames in os.walk(path.resolve()):
            here = Path(directory)
            dirnames[:] = sorted(d for d in dirnames if not _skipped_dir(project, here / d, within))
            for name in filenames:
                if name.endswith(".py") and walked(here / name):
                    file = here / name
                    relpath = relative(project, file)
                    if not any(settings.path_matches(relpath, glob) for glob in within):
                        found.add(file)
    return sorted(found)


def read_source(data: bytes) -> str:
    """A Python file's text, honouring a coding cookie the way the interpreter does."""
    head = data.split(b"\n", 2)[:2]
    if any(b"coding" in line for line in head):
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    return data.decode("utf-8-sig")


def _syntax_error(relpath: str, line: int, col: int, why: str) -> Finding:
    rule = registry.rule("TG000")
    message = f"{why}: the audit checked nothing else in this file; fix it or exclude it"
    return Finding(rule.code, rule.name, relpath, max(line, 1), max(col, 1), message)


def check_file(project: Project, path: Path, rules: Sequence[type[Rule]]) -> list[Finding]:
    """One file's findings, suppressions applied; a file that cannot be read as Python is
    one syntax-error finding (when that rule runs), not a crash."""
    relpath = relative(project, path)
    wanted = [rule for rule in rules if rule.code != "TG000"]
    try:
        source = read_source(path.read_bytes())
        tree = ast.parse(source, filename=str(path))
        findings = check_source(project, path, relpath, source, wanted, tree)
    except SyntaxError as exc:  # a bad coding cookie is one too
        where = (exc.lineno or 1, exc.offset or 1)
        failure = _syntax_error(relpath, *where, exc.msg)
    except (UnicodeDecodeError, LookupError) as exc:
        failure = _syntax_error(relpath, 1, 1, f"the file cannot be decoded ({exc})")
    except ValueError as exc:  # a null byte in the source
        failure = _syntax_error(relpath, 1, 1, str(exc))
    except (RecursionError, MemoryError):  # the parser's or a rule's stack, not the machine's
        failure = _syntax_error(relpath, 1, 1, "the file is nested too deeply to parse")
    except OSError as exc:  # a dangling symbolic link, a file the walk found but cannot open
        failure = _syntax_error(relpath, 1, 1, f"the file cannot be read: {unreadable(path, exc)}")
    else:
        return _unsuppressed(source, findings, tree)
    return [failure] if len(wanted) < len(rules) else []


def _unsuppressed(source: str, findings: list[Finding], tree: ast.Module) -> list[Finding]:
    if not findings or not suppressions.may_suppress(source):
        return findings
    marked = suppressions.marked_lines(source)
    if not marked:
        return findings
    ends = suppressions.statement_ends(tree)  # the file's own tree: no second parse
    # where a suppression of each finding may sit: its line, its statement's first and last
    if marked.isdisjoint(n for f in findings for n in (f.line, *ends.get(f.line, ()))):
        return findings  # no comment to read: the tokenizer is the dearest part
    by_line = suppressions.by_line(source)
    kept = []
    for finding in findings:
        lines = {finding.line, *ends.get(finding.line, ())}
        named = [code for line in lines for code in by_line.get(line, ())]
        if finding.code == "TG001" or not any(_names(code, finding) for code in named):
            kept.append(finding)
    return kept


def _names(selector: str, finding: Finding) -> bool:
    upper = selector.upper()
    return upper in ("ALL", finding.code) or selector == finding.name


def _file_ignored(project: Project, finding: Finding) -> bool:
    table = project.settings.get("per-file-ignores", {})
    rule = registry.rule(finding.code)
    return any(
        settings.path_matches(finding.path, glob) and any(settings.names(s, rule) for s in codes)
        for glob, codes in table.items()
    )


def _all_findings(
    project: Project, files: Sequence[Path], rules: Sequence[type[Rule]]
) -> Iterator[Finding]:
    for rule in rules:
        yield from rule.check_project(project)
    # Trees hold no reference cycles, so reference counting frees each file's tree; the
    # cyclic collector would only re-scan the parse's objects (a fifth of the parse's cost).
    # It runs between batches, so a rule that makes cycles cannot hold many trees alive.
    enabled = gc.isenabled()
    gc.disable()
    try:
        for n, path in enumerate(files, 1):
            yield from check_file(project, path, rules)
            if n % GC_BATCH == 0:
                gc.collect()
    finally:
        if enabled:
            gc.enable()


def audit(
    project: Project,
    paths: Sequence[Path] = (),
    select: Optional[Sequence[str]] = None,
    ignore: Optional[Sequence[str]] = None,
    extend_select: Sequence[str] = (),
    cache: bool = False,
) -> Report:
    """Audit ``paths`` (default: the project root). ``select`` and ``ignore``, when given,
    replace the table's (``select`` its ``extend-select`` too); ``extend_select`` adds to
    what is selected, as ruff's ``--extend-select`` does. With ``cache``, an unchanged
    project's report comes from the audit's cache (:mod:`truegreen.audit.cache`)."""
    every = registry.all_rules()
    chosen = settings.choose(
        every,
        project.settings.get("select") if select is None else select,
        project.settings.get("ignore", ()) if ignore is None else ignore,
        [*(project.settings.get("extend-select", ()) if select is None else ()), *extend_select],
    )
    if not cache:
        return _audit(project, paths, chosen)
    from truegreen.audit import cache as stored

    name = stored.key(project, paths, chosen)
    hit = stored.load(project, name, {rule.code: rule for rule in every})
    if hit is not None:
        return Report(root=project.root, **hit)
    report = _audit(project, paths, chosen)
    stored.save(project, name, report)
    return report


def _audit(project: Project, paths: Sequence[Path], chosen: Sequence[type[Rule]]) -> Report:
    walked = python_files(project, list(paths) or [project.root])
    selected = scope.select(project, walked, paths)
    files = selected.files
    skipped = tuple(relative(project, p) for p in selected.skipped)
    if not files:
        raise UsageError(_nothing(project, paths, walked, selected))
    line = scope.skipped_line(selected, skipped) if skipped else ""
    findings = [f for f in _all_findings(project, files, chosen) if not _file_ignored(project, f)]
    findings.sort(key=lambda f: (f.path, f.line, f.col, f.code))
    return Report(tuple(findings), len(files), tuple(chosen), project.root, skipped, line)


def _nothing(
    project: Project, paths: Sequence[Path], walked: Sequence[Path], selected: scope.Scope
) -> str:
    """The one line for an audit of no file: the paths given and why none was taken."""
    shown = " ".join(relative(project, p) for p in paths) or "the project root"
    if not walked:
        return (
            f"expected .py files to audit in {shown}, found none (hidden directories, "
            "virtualenvs, build output and the exclude globs are not walked)"
        )
    count = len(walked)
    return (
        f"expected .py files pytest would collect or import in {shown}, found {count} .py "
        f"file{'s' * (count != 1)}, none of them such ({'; '.join(selected.reasons)})"
    )
