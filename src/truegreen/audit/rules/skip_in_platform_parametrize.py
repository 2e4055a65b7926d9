"""TG303 skip-in-platform-parametrize."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Union

from truegreen.audit.base import Finding, Rule
from truegreen.audit.hostos import PLATFORM_VALUES, mentions_host

Function = Union[ast.FunctionDef, ast.AsyncFunctionDef]


class SkipInPlatformParametrize(Rule):
    """## What it does
    Flags `pytest.skip(...)` in a test parametrized over platforms (two or more of `"linux"`,
    `"darwin"`, `"win32"`, `"windows"`, `"nt"`, ...) when the skip sits under a condition on
    the parameter or on the host OS: the rows for the other OSes skip themselves.

    ## Why is this bad?
    Only the host's row ever runs. Every other row reports *skipped* on every host, so the
    Windows row is never exercised anywhere, while the parametrize suggests all three OSes are
    covered.

    ## Example
    ```python
    @pytest.mark.parametrize("plat", ["linux", "darwin", "win32"])
    def test_config_dir(plat):
        if plat != sys.platform:
            pytest.skip("other OS")
        assert config_dir().exists()
    ```

    ## Use instead
    One marked test per OS:
    ```python
    @pytest.mark.platforms("linux")
    def test_config_dir_on_linux(): ...


    @pytest.mark.platforms("windows")
    def test_config_dir_on_windows(): ...
    ```
    A test that passes the platform to a pure function as data (`config_dir(plat)`) needs no
    skip and is not flagged.

    ## Known problems
    The platform values must be literals in the decorator or a module-level list or tuple of
    literals in the same file.
    """

    code = "TG303"
    name = "skip-in-platform-parametrize"
    nodes = (ast.If, ast.Call)
    calls = frozenset({"skip"})
    triggers = ("skip(",)

    def begin(self) -> Iterator[Finding]:
        self._params: dict[int, frozenset[str]] = {}  # id(test) -> its platform parameters
        self._guarded: list[tuple[int, int]] = []  # line ranges under a platform condition
        self._constants = _module_constants(self.ctx.tree)
        return iter(())

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        test = self.ctx.test_function
        if test is None:
            return
        params = self._platform_params(test)
        if not params:
            return
        if isinstance(node, ast.If):
            if _mentions(node.test, params) or mentions_host(self.ctx, node.test):
                self._guarded.append((node.lineno, node.end_lineno or node.lineno))
        elif isinstance(node, ast.Call) and self.ctx.qualname(node.func) == "pytest.skip":
            line = node.lineno
            if any(start <= line <= end for start, end in self._guarded):
                yield self.finding(
                    node,
                    f"pytest.skip in {test.name}, parametrized over platforms: only the "
                    "host's row runs; split it into one @pytest.mark.platforms test per OS",
                )

    def _platform_params(self, test: Function) -> frozenset[str]:
        key = id(test)
        if key not in self._params:
            self._params[key] = frozenset(
                name
                for decorator in test.decorator_list
                for name in _platform_parametrize(self, decorator)
            )
        return self._params[key]


def _platform_parametrize(rule: SkipInPlatformParametrize, decorator: ast.AST) -> list[str]:
    """The argument names of a parametrize whose values name two or more platforms."""
    if not isinstance(decorator, ast.Call) or len(decorator.args) < 2:
        return []
    if rule.ctx.qualname(decorator.func) != "pytest.mark.parametrize":
        return []
    values: ast.AST = decorator.args[1]
    if isinstance(values, ast.Name):
        values = rule._constants.get(values.id, values)
    found = {
        node.value.lower()
        for node in ast.walk(values)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.lower() in PLATFORM_VALUES
    }
    if len(found) < 2:
        return []
    names = decorator.args[0]
    if isinstance(names, ast.Constant) and isinstance(names.value, str):
        return [n.strip() for n in names.value.split(",") if n.strip()]
    if isinstance(names, (ast.List, ast.Tuple)):
        return [
            n.value for n in names.elts if isinstance(n, ast.Constant) and isinstance(n.value, str)
        ]
    return []


def _mentions(expr: ast.AST, names: frozenset[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(expr))


def _module_constants(tree: ast.Module) -> dict[str, ast.AST]:
    constants: dict[str, ast.AST] = {}
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, (ast.List, ast.Tuple))
        ):
            constants[statement.targets[0].id] = statement.value
    return constants
