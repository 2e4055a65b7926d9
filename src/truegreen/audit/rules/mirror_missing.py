"""TG502 mirror-missing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from truegreen.audit.base import Finding, Project, Rule
from truegreen.audit.iniopts import entries

SKIP_DIRS = frozenset({"__pycache__", ".venv", "venv", "node_modules", "build", "dist"})


def where_tests_live(project: Project) -> list[Path]:
    """Where the tests live: ``testpaths``, else ``tests`` or ``test`` at the root."""
    configured = [project.root / p for p in entries(project.pytest_options.get("testpaths"))]
    found = [p for p in configured if p.is_dir()]
    return found or [p for p in (project.root / "tests", project.root / "test") if p.is_dir()]


def module_names(roots: list[Path]) -> frozenset[str]:
    """The file name of every test module under ``roots``."""
    names: set[str] = set()
    for root in roots:
        for _, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")]
            names.update(f for f in files if f.endswith(".py"))
    return frozenset(names)


def mirrors(parts: tuple[str, ...]) -> list[str]:
    """The test file names that mirror the module ``a/b/c.py`` (``parts`` below the package):
    ``test_c.py``, ``c_test.py``, and the flattened ``test_b_c.py``, ``test_a_b_c.py``."""
    stem = parts[-1][:-3]
    names = [f"test_{stem}.py", f"{stem}_test.py"]
    for start in range(len(parts) - 2, -1, -1):
        names.append("test_" + "_".join([*parts[start:-1], stem]) + ".py")
    return names


def exempt(parts: tuple[str, ...]) -> bool:
    """Private code (``_module.py``, ``__init__.py``, ``__main__.py``, anything in a
    ``_package``) and test code shipped in the source (``test_*.py``, ``conftest.py``)."""
    name = parts[-1]
    tests = name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
    return tests or any(part.startswith("_") for part in parts)


class MirrorMissing(Rule):
    """## What it does
    Flags a module of the project's source with no mirror test file: `src/pkg/a/b.py`
    expects a test module named `test_b.py` (or `b_test.py`, or the flattened
    `test_a_b.py`) somewhere under the tests, suggesting `tests/a/test_b.py`. The project's
    packages come from its source roots; the tests from `testpaths`, else `tests/` or
    `test/`. Opt-in.

    ## Why is this bad?
    When every module has a test file of its own name, a reader finds a unit's tests without
    searching, a reviewer sees at once that a new module arrived without tests, and a
    regression lands in the file that owns it. A module without a mirror is tested, if at
    all, from somewhere nobody will look. A module without its mirror file is a smell, kept in
    a register of known gaps until it is closed.

    ## Example
    ```text
    src/app/billing/invoice.py
    tests/billing/test_totals.py
    ```

    ## Use instead
    ```text
    src/app/billing/invoice.py
    tests/billing/test_invoice.py
    ```

    ## Known problems
    Private modules and packages (a name starting with `_`, so also `__init__.py`,
    `__main__.py` and `_version.py`) are skipped: they are tested through the public module
    that uses them. Test modules and `conftest.py` shipped inside the source are skipped
    too. The mirror is matched by file name anywhere under the tests, not by
    directory, so two modules with one name share a mirror. A module of constants alone is
    flagged like any other: add it to `per-file-ignores` if it needs no test.
    """

    code = "TG502"
    name = "mirror-missing"
    severity = "note"
    default = False
    kinds = frozenset()

    @classmethod
    def check_project(cls, project: Project) -> Iterator[Finding]:
        roots = where_tests_live(project)
        have = module_names(roots)
        tests = roots[0].relative_to(project.root).as_posix() if roots else "tests"
        for source_root in project.source_roots:
            for package in sorted(project.packages):
                base = source_root / package
                if not base.is_dir():
                    continue
                for module in sorted(base.rglob("*.py")):
                    parts = module.relative_to(base).parts
                    if exempt(parts) or any(p in SKIP_DIRS for p in parts):
                        continue
                    if not any(name in have for name in mirrors(parts)):
                        where = module.relative_to(project.root).as_posix()
                        expected = "/".join([tests, *parts[:-1], f"test_{parts[-1]}"])
                        yield cls.project_finding(
                            where, 1, f"{where} has no mirror test file: add {expected}"
                        )
