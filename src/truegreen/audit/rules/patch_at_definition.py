"""TG201 patch-at-definition."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Optional

from truegreen.audit import graph, patches
from truegreen.audit.base import Finding, Rule


class PatchAtDefinition(Rule):
    """## What it does
    Flags a patch (`mock.patch("a.b.Name")`, `mocker.patch(...)`, `mock.patch.object(module,
    "Name")`, `monkeypatch.setattr("a.b.Name", ...)` or `monkeypatch.setattr(module, "Name",
    ...)`) whose target is the module that *defines* `Name`, while another module of the
    project did `from a.b import Name`. The message names the modules to patch instead.

    ## Why is this bad?
    `from a.b import Name` binds `Name` in the importing module's namespace when it is
    imported, before the test runs. Patching `a.b.Name` replaces the attribute of `a.b` only;
    the importing module still calls the original. The test stays green while the real client
    runs: real network calls, real subprocesses, a mock whose `return_value` nobody sees. It
    typically appears when a module is split into a
    package.

    ## Example
    ```python
    # agent/research/loop.py: from agent.llm import LLMClient
    def test_loop_asks_the_model(mocker):
        client = mocker.patch("agent.llm.LLMClient")
        run_loop()
        client.return_value.ask.assert_called_once()
    ```

    ## Use instead
    ```python
    def test_loop_asks_the_model(mocker):
        client = mocker.patch("agent.research.loop.LLMClient")
        run_loop()
        client.return_value.ask.assert_called_once()
    ```

    ## Known problems
    The rule reads the project's own import graph: module-level `from` imports (also under
    `if`/`try`), relative imports and re-exports through `__init__.py`. A patch at the
    definition is correct when the code under test reads the name from the defining module
    itself, so the rule stays silent when the defining module uses the name, or another
    module reads it as `a.b.Name`, unless the test file imports one of the modules that
    bound it by `from` and call it (a package `__init__.py` that only re-exports the name
    counts only when the test reads the name through it). It also stays silent when the
    defining module uses the name and the test reaches the project only through that module
    (it patches `a.b.f` and calls `a.b.g`, which looks `f` up in `a.b`, where it is patched),
    even if another module bound `f` by `from`: every project name the test function uses
    (its decorators included) is one of `a.b`'s, and it calls no function of its own file and
    no method of its class through `self` other than unittest's (`assert*`, `subTest`, ...),
    whose code might reach the other module. A helper imported from another test module is
    not recognised as one. `import a.b` in the test file does not count as importing `a.b`
    (only `from a import b` or a name from `a.b` does). A `from` import inside a function
    runs at call time and sees the patch, so it does not count. Names outside the project,
    targets built at run time and patches through a fixture other than
    `mocker`/`monkeypatch` are not checked.
    """

    code = "TG201"
    name = "patch-at-definition"
    triggers = ("patch", "setattr", "delattr")  # without one, the file has nothing to find
    nodes = (ast.Call,)
    calls = patches.CALLEES

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        assert isinstance(node, ast.Call)
        found = patches.target(self.ctx, node)
        if found is None:
            return
        project = graph.graph(self.ctx.project)
        module = project.module(found.owner)  # None outside the project's source
        origin = project.resolve(found.owner, found.attribute) if module is not None else None
        if origin is None or origin[0] is not module:
            return  # not a name, or patched where it is used
        defining = origin[0]
        bypassed = [
            (importer, local)
            for importer, local in project.importers(defining.name, found.attribute)
            if importer != found.owner
        ]
        if not bypassed:
            return
        reached = project.reads(defining, found.attribute) or project.attribute_readers(
            defining.name, found.attribute
        )
        if reached and not self._imports_any(
            importer for importer, local in bypassed if self._binds(importer, local)
        ):
            return
        if reached and self._exercises_only(defining.name):
            return  # its callers in the defining module look the name up where it is patched
        usages = ", ".join(f'"{importer}.{local}"' for importer, local in bypassed[:3])
        more = f" (and {len(bypassed) - 3} more)" if len(bypassed) > 3 else ""
        yield self.finding(
            found.node,
            f'patch {usages}{more}, where it is used: "{found.dotted}" is where it is defined, '
            f"and a `from` import bound it before the test ran",
        )

    def _binds(self, importer: str, local: str) -> bool:
        """Whether the early binding in ``importer`` is ever called: its own code reads it, or
        this test reads it through ``importer`` (``pkg.Name``, or ``from pkg import Name`` in
        the file).
        A package that only re-exports the name (click's ``__init__``) calls nothing."""
        project = graph.graph(self.ctx.project)
        module = project.module(importer)
        if module is not None and project.reads(module, local):
            return True
        dotted = f"{importer}.{local}"
        if dotted in self.ctx.aliases.values():
            return True
        return any(
            isinstance(node, ast.Attribute)
            and node.attr == local
            and self.ctx.qualname(node) == dotted
            for node in ast.walk(self.ctx.test_function or self.ctx.tree)
        )

    def _exercises_only(self, defining: str) -> bool:
        """Whether the test reaches the project's code only through the defining module: it
        uses a function or class of that module (``black.files.find_pyproject_toml()``), no
        name of any other project module, and no helper whose code the audit does not follow
        (a function of the test file, a method of the test's class through ``self``)."""
        # the outermost function around the patch: the test (a unittest method too, whatever
        # its class is named), or a fixture (whose body seldom calls the project: then the
        # patch stays flagged)
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
        functions = [s for s in self.ctx.scopes if isinstance(s, kinds)]
        test = functions[0] if functions else None
        if test is None:
            return False
        project = graph.graph(self.ctx.project)
        helpers = {
            node.name
            for scope in (self.ctx.tree, *self.ctx.scopes)
            if isinstance(scope, (ast.Module, ast.ClassDef))
            for node in scope.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        inner = {id(node.value) for node in ast.walk(test) if isinstance(node, ast.Attribute)}
        found = False
        for node in ast.walk(test):
            if isinstance(node, ast.Call) and _calls_a_helper(node.func, helpers, self.ctx.aliases):
                return False
            if not isinstance(node, (ast.Name, ast.Attribute)) or id(node) in inner:
                continue
            owner = _owner(project, self.ctx.qualname(node))
            if owner is None:
                continue
            if owner != defining:
                return False
            found = True
        return found

    def _imports_any(self, modules: Iterator[str]) -> bool:
        """Whether this test file imports one of ``modules`` or a name from one."""
        wanted = set(modules)
        project = graph.graph(self.ctx.project)
        for origin in self.ctx.aliases.values():
            # `from pkg import submodule` imports the submodule, not a name of pkg
            module = origin if project.module(origin) is not None else origin.rpartition(".")[0]
            if module in wanted:
                return True
        return False


# unittest's own methods, called through ``self``: not helpers of the suite.
_TESTCASE_METHODS = frozenset({"subTest", "addCleanup", "enterContext", "fail", "skipTest",
                               "id", "shortDescription"})  # fmt: skip


def _calls_a_helper(func: ast.AST, helpers: set[str], aliases: dict[str, str]) -> bool:
    """Whether a call is of a function of the test file, or a method of the test's class other
    than unittest's own (``self.invoke_cli()``)."""
    if isinstance(func, ast.Name):
        return func.id in helpers and func.id not in aliases
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in ("self", "cls")
    ):
        return not func.attr.startswith("assert") and func.attr not in _TESTCASE_METHODS
    return False


def _owner(project: graph.Graph, dotted: Optional[str]) -> Optional[str]:
    """The project module a dotted name is a name of (``black.files`` for
    ``black.files.find_pyproject_toml``); None for a name outside the project, and for a
    module itself (a patch's target, which runs nothing)."""
    if not dotted or project.module(dotted) is not None:
        return None
    parts = dotted.split(".")
    for end in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:end])
        if project.module(module) is not None:
            return module
    return None
