"""The audit's contract: a finding, the project and one file as rules see them, the rule base.

A rule is a :class:`Rule` subclass with a stable ``code`` (``TG`` + three digits), a
kebab-case ``name`` that describes the smell, and a docstring that *is* its documentation
page (What it does / Why is this bad? / Example / Use instead / Known problems). The engine
makes one instance per rule per file, so a rule may keep per-file state on ``self``; it calls
:meth:`Rule.begin`, then :meth:`Rule.visit` for every node whose type is in ``nodes``, in
source order (pre-order), then :meth:`Rule.end`. A rule may handle one type in a method of
its own, named as :class:`ast.NodeVisitor` names them (``visit_Call``), which the engine
calls instead of ``visit``: one call per node rather than a chain of type tests. While a
visit runs, :attr:`FileContext.scopes` holds the enclosing classes and functions.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Optional

from truegreen.audit.naming import Naming

FileKind = str  # "test" (named as python_files says), "conftest" (conftest.py), "source" (the rest)

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def string_value(node: Optional[ast.AST]) -> Optional[str]:
    """The text of a string literal, or None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


@dataclass(frozen=True)
class Finding:
    """One rule firing at one place. ``path`` is relative to the project root, POSIX style;
    ``line`` and ``col`` are 1-based."""

    code: str
    name: str
    path: str
    line: int
    col: int
    message: str


@dataclass
class Project:
    """What rules may know beyond one file: the root, the project's own import packages,
    its pytest configuration and the ``[tool.truegreen.audit]`` settings."""

    root: Path
    packages: frozenset[str] = frozenset()  # top-level import names of the project's code
    source_roots: tuple[Path, ...] = ()  # directories the packages are imported from
    pytest_options: Mapping[str, Any] = field(default_factory=dict)  # the ini options, as read
    pytest_config_file: Optional[Path] = None  # where the ini options came from
    settings: Mapping[str, Any] = field(default_factory=dict)  # [tool.truegreen.audit]
    _trees: dict[Path, Optional[ast.Module]] = field(default_factory=dict, repr=False)
    _documents: dict[Path, dict[str, Any]] = field(default_factory=dict, repr=False)
    # what rules work out once per run about the whole project, under a key of their own
    facts: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def naming(self) -> Naming:
        """pytest's naming options (python_files, python_classes, ...) from the configuration."""
        found = self.facts.get("naming")
        if found is None:
            found = self.facts["naming"] = Naming.from_options(self.pytest_options)
        return found

    def owns(self, dotted: str) -> bool:
        """Whether a dotted module or attribute path starts in one of the project's packages."""
        return dotted.split(".", 1)[0] in self.packages

    def module_path(self, dotted: str) -> Optional[Path]:
        """The file that defines module ``dotted`` in the project's source, if any."""
        parts = dotted.split(".")
        for root in self.source_roots:
            base = root.joinpath(*parts)
            for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                if candidate.is_file():
                    return candidate
        return None

    def tree(self, path: Path) -> Optional[ast.Module]:
        """One parse per project file per run, shared by every rule that looks across files."""
        if path not in self._trees:
            try:
                self._trees[path] = ast.parse(path.read_bytes(), filename=str(path))
            except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
                self._trees[path] = None
        return self._trees[path]

    def toml(self, path: Path) -> dict[str, Any]:
        """A TOML file of the project (its ``pyproject.toml``), parsed once per run however
        many rules and settings read it; a ConfigError when it cannot be read or parsed."""
        found = self._documents.get(path)
        if found is None:
            from truegreen.core.config import read_toml

            found = self._documents[path] = read_toml(path)
        return found

    def source_files(self) -> list[Path]:
        """Every ``.py`` file of the project's packages under the source roots (the
        project's own code), sorted. Only the packages: in a flat layout the root also holds
        a ``.venv``, a ``build/`` or a ``docs/``, whose modules are not the project's."""
        if "source_files" not in self.facts:
            found: list[Path] = []
            for root in self.source_roots:
                for name in sorted(self.packages):
                    module = root / f"{name}.py"
                    if module.is_file():
                        found.append(module)
                    found.extend(
                        path
                        for path in (root / name).rglob("*.py")
                        if "__pycache__" not in path.parts
                    )
            self.facts["source_files"] = sorted(found)
        files: list[Path] = self.facts["source_files"]
        return files


class FileContext:
    """One file as the rules see it during the walk."""

    def __init__(
        self, project: Project, path: Path, relpath: str, source: str, tree: ast.Module
    ) -> None:
        self.project = project
        self.path = path
        self.relpath = relpath
        self.source = source
        self.tree = tree
        self.lines = source.splitlines()
        name = path.name
        if name == "conftest.py":
            self.kind: FileKind = "conftest"
        elif project.naming.test_file(path):
            self.kind = "test"
        else:
            self.kind = "source"
        self.scopes: list[ast.AST] = []
        # local name -> dotted origin, from the imports seen so far in the walk
        self.aliases: dict[str, str] = {}
        # what several rules work out about one node (its dotted name, what a call patches),
        # kept for the others; emptied whenever an import changes what names mean
        self.memo: dict[tuple[str, int], Any] = {}
        self._tests: dict[int, Optional[ast.FunctionDef | ast.AsyncFunctionDef]] = {}

    def record_import(self, node: ast.Import | ast.ImportFrom) -> None:
        """The engine calls this for every import before any rule visits it."""
        self.memo.clear()
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".", 1)[0]
                    self.aliases[top] = top
            return
        module = node.module or ""
        if node.level:
            package = self._package_of_file(node.level)
            module = ".".join(p for p in (package, module) if p)
        for alias in node.names:
            if alias.name != "*":
                self.aliases[alias.asname or alias.name] = f"{module}.{alias.name}"

    def _package_of_file(self, level: int) -> str:
        for root in self.project.source_roots:
            try:
                parts = self.path.parent.relative_to(root).parts
            except ValueError:
                continue
            return ".".join(parts[: len(parts) - (level - 1)] if level > 1 else parts)
        return ""

    def qualname(self, node: ast.AST) -> Optional[str]:
        """The dotted name an expression refers to, through the file's imports:
        ``sp.run`` after ``import subprocess as sp`` is ``subprocess.run``; ``sleep`` after
        ``from time import sleep`` is ``time.sleep``; an unimported name stays as written
        (``open``). None for anything that is not a dotted name."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        parts.append(self.aliases.get(node.id, node.id))
        return ".".join(reversed(parts))

    def may_name(self, node: ast.AST, last: frozenset[str]) -> bool:
        """A cheap test to run before :meth:`qualname`: whether ``node`` can resolve to a
        dotted name whose last part is in ``last`` (its own last part is, or it is a bare
        name an import bound, which may stand for anything)."""
        if isinstance(node, ast.Attribute):
            return node.attr in last
        if isinstance(node, ast.Name):
            return node.id in last or node.id in self.aliases
        return False

    @property
    def function(self) -> Optional[ast.FunctionDef | ast.AsyncFunctionDef]:
        """The innermost enclosing function."""
        for scope in reversed(self.scopes):
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return scope
        return None

    @property
    def test_function(self) -> Optional[ast.FunctionDef | ast.AsyncFunctionDef]:
        """The enclosing test: a function at module level or in a class, named as
        ``python_functions`` and ``python_classes`` say (``test*``, ``Test*`` by default).
        Kept per innermost scope: the scopes around it are the same every time it is asked."""
        key = id(self.scopes[-1]) if self.scopes else 0
        if key not in self._tests:
            self._tests[key] = self._test_function()
        return self._tests[key]

    def _test_function(self) -> Optional[ast.FunctionDef | ast.AsyncFunctionDef]:
        outer = [s for s in self.scopes if not isinstance(s, ast.Lambda)]
        if not outer:
            return None
        first, naming = outer[0], self.project.naming
        if isinstance(first, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return first if naming.test_function(first.name) else None
        if isinstance(first, ast.ClassDef) and naming.test_class(first.name) and len(outer) > 1:
            method = outer[1]
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return method if naming.test_function(method.name) else None
        return None

    def is_fixture(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Whether a function is decorated with ``pytest.fixture`` (called or bare)."""
        for decorator in function.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = self.qualname(target)
            if name in ("pytest.fixture", "pytest.yield_fixture", "fixture"):
                return True
        return False


class Rule:
    """Base class of every rule; see the module docstring for the protocol."""

    code: ClassVar[str]
    name: ClassVar[str]
    default: ClassVar[bool] = True  # False: opt-in, runs only when selected
    # How bad a finding is, named as SARIF names levels: "error" (the test can pass for the
    # wrong reason, or run nowhere), "warning" (a practice that makes the suite harder to
    # trust or keep), "note" (a convention of the suite's layout).
    severity: ClassVar[str] = "error"
    kinds: ClassVar[frozenset[FileKind]] = frozenset({"test", "conftest"})
    nodes: ClassVar[tuple[type[ast.AST], ...]] = ()
    # Texts one of which must occur in a file's source for the rule to have anything to find;
    # empty means always run. Lets the engine skip a rule, or the whole walk, on a plain read.
    triggers: ClassVar[tuple[str, ...]] = ()
    # With ast.Call in ``nodes``: only the calls whose callee's last name, through the file's
    # imports, is one of these (``sleep`` for ``time.sleep``, ``t.sleep`` and ``nap`` after
    # ``from time import sleep as nap``); empty means every call.
    calls: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx

    @classmethod
    def wants(cls, source: str) -> bool:
        """Whether the rule has anything to look for in a file with this text: by default,
        whether one of its ``triggers`` occurs in it. A rule that is not wanted is not run."""
        return not cls.triggers or any(text in source for text in cls.triggers)

    def begin(self) -> Iterable[Finding]:
        return ()

    def visit(self, node: ast.AST) -> Iterable[Finding]:
        return ()

    def end(self) -> Iterable[Finding]:
        return ()

    @classmethod
    def check_project(cls, project: Project) -> Iterable[Finding]:
        """Findings about the project's configuration rather than a file; once per run."""
        return ()

    def finding(self, where: ast.AST | int, message: str) -> Finding:
        """A finding of this rule in the current file, at a node or a 1-based line."""
        if isinstance(where, int):
            line, col = where, 1
        else:
            line, col = getattr(where, "lineno", 1), getattr(where, "col_offset", 0) + 1
        return Finding(self.code, self.name, self.ctx.relpath, line, col, message)

    @classmethod
    def project_finding(cls, path: str, line: int, message: str) -> Finding:
        return Finding(cls.code, cls.name, path, line, 1, message)
