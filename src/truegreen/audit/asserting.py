"""Which functions of a test module assert, following helpers, fixtures and the conftest chain."""

from __future__ import annotations

import ast
import re
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from truegreen.audit.base import SCOPES, FileContext, Project

# calls that assert by what they are, however they were imported
ASSERTING = frozenset(
    {
        "pytest.raises",
        "pytest.warns",
        "pytest.deprecated_call",
        "pytest.fail",
        "self.fail",
        "unittest.TestCase.fail",
    }
)
# pytester's LineMatcher; each fails the test when its lines do not match
LINE_MATCHERS = frozenset(
    {
        "fnmatch_lines",
        "fnmatch_lines_random",
        "re_match_lines",
        "re_match_lines_random",
        "no_fnmatch_line",
        "no_re_match_line",
    }
)
# by name: assert_called_once, assertEqual, assertoutcome, check_output_of, verify, expectFoo
CHECKING = re.compile(r"^(assert|(check|verify|expect|ensure)(_|[A-Z0-9]|$))")
FIXTURE = frozenset({"pytest.fixture", "pytest.yield_fixture", "fixture"})
OUTCOMES = frozenset({"pytest.skip", "pytest.xfail", "pytest.importorskip"})
# warnings.simplefilter("error") and friends: a warning then fails the test
WARNING_FILTERS = frozenset({"warnings.simplefilter", "warnings.filterwarnings"})


@dataclass
class Function:
    """A module-level function or a method, with what it does that matters here."""

    node: ast.FunctionDef | ast.AsyncFunctionDef
    cls: Optional[str]
    asserts: bool = False  # an assert or raise of its own; see Summary.resolve for calls
    calls: list[str] = field(default_factory=list)  # dotted callees, "self.m" for methods
    call_nodes: list[ast.Call] = field(default_factory=list)  # read only when needed
    resolved: bool = False
    fixture: Optional[str] = None  # the fixture name, when it is one
    requests: list[str] = field(default_factory=list)  # fixtures it asks for by parameter


@dataclass
class Summary:
    """One module's functions, methods and fixtures."""

    path: Path
    ctx: Optional[FileContext] = None  # the file's context, to resolve calls when asked
    functions: dict[str, Function] = field(default_factory=dict)
    methods: dict[tuple[str, str], Function] = field(default_factory=dict)
    bases: dict[str, list[str]] = field(default_factory=dict)
    by_node: dict[int, Function] = field(default_factory=dict)
    _chains: dict[int, list[Function]] = field(default_factory=dict, repr=False)

    def observe(self, ctx: FileContext, node: ast.AST) -> None:
        """Record ``node``; call in source order with ``ctx.scopes`` around it."""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.define(ctx, node)
        elif isinstance(node, ast.ClassDef):
            self.define_class(ctx, node)
        elif isinstance(node, ast.Assert) or (isinstance(node, ast.Raise) and node.exc):
            self.mark(ctx)
        elif isinstance(node, ast.Call):
            self.call(ctx, node)

    # What observe does for each type, for a caller that dispatches by type itself.

    def define_class(self, ctx: FileContext, node: ast.ClassDef) -> None:
        if not ctx.scopes:
            self.bases[node.name] = [q for q in map(ctx.qualname, node.bases) if q is not None]

    def mark(self, ctx: FileContext) -> None:
        """An assert or a raise: every function around it asserts."""
        for function in self._enclosing(ctx):
            function.asserts = True

    def call(self, ctx: FileContext, node: ast.Call) -> None:
        # Kept, not read: most tests assert with a statement of their own, and then what
        # they call never matters (see resolve).
        for function in self._enclosing(ctx):
            function.call_nodes.append(node)

    def resolve(self, ctx: FileContext, function: Function) -> None:
        """Read a function's calls: asserting ones mark it, the rest become its callees."""
        if function.resolved:
            return
        function.resolved = True
        for node in function.call_nodes:
            func = node.func
            last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if last in LINE_MATCHERS or CHECKING.match(last):
                function.asserts = True
                return
            name = ctx.qualname(func)
            if name in ASSERTING or (name in WARNING_FILTERS and _action(node) == "error"):
                function.asserts = True
                return
            if name is not None:
                function.calls.append(name)

    def define(self, ctx: FileContext, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        scopes = ctx.scopes
        if scopes and not (len(scopes) == 1 and isinstance(scopes[0], ast.ClassDef)):
            return
        cls = scopes[0].name if scopes and isinstance(scopes[0], ast.ClassDef) else None
        function = Function(node, cls)
        function.fixture = _fixture_name(ctx, node)
        function.requests = [a.arg for a in node.args.args if a.arg not in ("self", "cls")]
        function.requests.extend(_used_fixtures(ctx, node))
        self.by_node[id(node)] = function
        if cls is None:
            self.functions[node.name] = function
        else:
            self.methods[(cls, node.name)] = function

    def _enclosing(self, ctx: FileContext) -> list[Function]:
        # The innermost scope decides the whole chain, and a function is recorded before
        # anything inside it is visited: one list per scope, not one per call.
        if not ctx.scopes:
            return []
        key = id(ctx.scopes[-1])
        found = self._chains.get(key)
        if found is None:
            found = self._chains[key] = [
                self.by_node[id(s)] for s in ctx.scopes if id(s) in self.by_node
            ]
        return found

    def fixtures(self, cls: Optional[str]) -> dict[str, Function]:
        """Fixtures visible to a test in class ``cls``: the class's own, then the module's."""
        found = {f.fixture: f for f in self.functions.values() if f.fixture}
        if cls is not None:
            found.update(
                {f.fixture: f for (c, _), f in self.methods.items() if c == cls and f.fixture}
            )
        return found


def looks_up(value: ast.expr) -> bool:
    """``obj.name`` or ``getattr(obj, "name")`` (no default) as a statement, its value
    dropped: a check that the attribute exists (AttributeError fails the test)."""
    return isinstance(value, ast.Attribute) or (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "getattr"
        and len(value.args) == 2
        and not value.keywords
    )


def _action(call: ast.Call) -> object:
    """The action a ``warnings.simplefilter``/``filterwarnings`` call sets, when literal."""
    given = call.args[0] if call.args else None
    for kw in call.keywords:
        if kw.arg == "action":
            given = kw.value
    return given.value if isinstance(given, ast.Constant) else None


def _fixture_name(ctx: FileContext, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Optional[str]:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if ctx.qualname(target) in FIXTURE:
            if isinstance(decorator, ast.Call):
                for kw in decorator.keywords:
                    if kw.arg == "name" and isinstance(kw.value, ast.Constant):
                        return str(kw.value.value)
            return node.name
    return None


def _used_fixtures(ctx: FileContext, node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    names: list[str] = []
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call) and ctx.qualname(decorator.func) in (
            "pytest.mark.usefixtures",
        ):
            names.extend(
                a.value
                for a in decorator.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            )
    return names


def summarize(project: Project, path: Path) -> Optional[Summary]:
    """The summary of another file (a conftest, a helper module), walked once per project."""
    cache = _cache(project)
    if path not in cache:
        tree = project.tree(path)
        cache[path] = None if tree is None else _walk(project, path, tree)
    return cache[path]


def _walk(project: Project, path: Path, tree: ast.Module) -> Summary:
    ctx = FileContext(project, path, path.name, "", tree)
    summary = Summary(path, ctx)

    def walk(node: ast.AST) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            ctx.record_import(node)
        summary.observe(ctx, node)
        scoped = isinstance(node, SCOPES)
        if scoped:
            ctx.scopes.append(node)
        for child in ast.iter_child_nodes(node):
            walk(child)
        if scoped:
            ctx.scopes.pop()

    walk(tree)
    return summary


_SUMMARIES: dict[Path, tuple[weakref.ref[Project], dict[Path, Optional[Summary]]]] = {}


def _cache(project: Project) -> dict[Path, Optional[Summary]]:
    cached = _SUMMARIES.get(project.root)
    if cached is None or cached[0]() is not project:
        cached = (weakref.ref(project), {})
        _SUMMARIES[project.root] = cached
    return cached[1]


class Resolver:
    """Whether a function asserts, itself or through what it calls and the fixtures it asks for."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._memo: dict[int, bool] = {}
        # What the file system says is the same for every file of the run: kept per project.
        self._conftests: dict[Path, list[Summary]] = project.facts.setdefault(
            "asserting:conftests", {}
        )
        self._files: dict[tuple[Path, str], list[Path]] = project.facts.setdefault(
            "asserting:module-files", {}
        )

    def asserts(self, summary: Summary, function: Function) -> bool:
        key = id(function.node)
        if key not in self._memo:
            self._memo[key] = False  # a cycle asserts only through another path
            if not function.asserts and summary.ctx is not None:
                summary.resolve(summary.ctx, function)
            self._memo[key] = function.asserts or self._through(summary, function)
        return self._memo[key]

    def _through(self, summary: Summary, function: Function) -> bool:
        for name in function.calls:
            found = self._callee(summary, function, name)
            if found is not None and self.asserts(*found):
                return True
        for name in function.requests:
            found = self._fixture(summary, function.cls, name)
            if found is not None and found[1] is not function and self.asserts(*found):
                return True
        return False

    def _callee(
        self, summary: Summary, function: Function, name: str
    ) -> Optional[tuple[Summary, Function]]:
        if name.startswith("self.") and name.count(".") == 1 and function.cls is not None:
            return self._method(summary, function.cls, name[5:], set())
        if "." not in name:
            for candidate in [summary, *self.conftests(summary.path)]:
                if name in candidate.functions:
                    return candidate, candidate.functions[name]
            return None
        module, _, attribute = name.rpartition(".")
        for path in self._module_files(summary.path, module):
            other = summarize(self.project, path)
            if other is not None and attribute in other.functions:
                return other, other.functions[attribute]
        return None

    def _method(
        self, summary: Summary, cls: str, name: str, seen: set[str]
    ) -> Optional[tuple[Summary, Function]]:
        if (cls, name) in summary.methods:
            return summary, summary.methods[(cls, name)]
        seen.add(cls)
        for base in summary.bases.get(cls, []):
            if base in summary.bases and base not in seen:
                found = self._method(summary, base, name, seen)
                if found is not None:
                    return found
        return None

    def _fixture(
        self, summary: Summary, cls: Optional[str], name: str
    ) -> Optional[tuple[Summary, Function]]:
        for candidate in [summary, *self.conftests(summary.path)]:
            fixtures = candidate.fixtures(cls if candidate is summary else None)
            if name in fixtures:
                return candidate, fixtures[name]
        return None

    def conftests(self, path: Path) -> list[Summary]:
        """The conftest.py files that apply to ``path``, nearest first."""
        # Every file of a directory has the same chain, but a conftest.py leaves itself out.
        key = path if path.name == "conftest.py" else path.parent
        found = self._conftests.get(key)
        if found is None:
            found = self._conftests[key] = self._chain(path)
        return found

    def _chain(self, path: Path) -> list[Summary]:
        found: list[Summary] = []
        directory = path.parent
        while True:
            conftest = directory / "conftest.py"
            if conftest != path and conftest.is_file():
                summary = summarize(self.project, conftest)
                if summary is not None:
                    found.append(summary)
            if directory == self.project.root or directory.parent == directory:
                return found
            if self.project.root not in directory.parents:
                return found
            directory = directory.parent

    def _module_files(self, path: Path, module: str) -> list[Path]:
        key = (path.parent, module)
        if key not in self._files:
            self._files[key] = self._find(path, module)
        return self._files[key]

    def _find(self, path: Path, module: str) -> list[Path]:
        parts = module.split(".")
        files: list[Path] = []
        for base in (path.parent, self.project.root):
            stem = base.joinpath(*parts)
            files.extend(p for p in (stem.with_suffix(".py"), stem / "__init__.py") if p.is_file())
        if self.project.owns(module):
            source = self.project.module_path(module)
            if source is not None:
                files.append(source)
        return files
