"""Where a module reads the environment, read from its source without running it.

For ``truegreen env-inventory``: every ``os.environ["X"]``, ``os.environ.get("X")``,
``os.environ.setdefault("X", ...)``, ``os.getenv("X")`` and ``"X" in os.environ`` (with
``os`` or ``environ``/``getenv`` imported under any name), the same reads on a copy of the
environment, the variables of a pydantic-settings ``BaseSettings`` class (its ``env_prefix``
and its fields), and a copy of the whole environment handed to a child process (``env=``).
A name held in a module-level string constant is followed; any other computed name is a
:data:`COMPUTED` site. Writes (``os.environ["X"] = ...``, ``pop``, ``monkeypatch.setenv``)
are not reads and are not listed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Optional, Union

from truegreen.audit.base import string_value
from truegreen.core.envinventory import COMPUTED, PREFIX, VARIABLE, WHOLE, Site

# The methods of ``os.environ`` (or of a copy of it) that read the variable named first.
READ_METHODS = frozenset({"get", "setdefault"})
# The methods that read every variable (the names a loop then picks are unknown).
ITERATIONS = frozenset({"items", "keys"})
SETTINGS_BASES = frozenset({"BaseSettings"})
_Scope = Union[ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]


class _Reads(ast.NodeVisitor):
    def __init__(self, tree: ast.Module, path: str) -> None:
        self.path = path
        self.sites: list[Site] = []
        self.os_names: set[str] = set()  # names bound to the os module
        self.environ_names: set[str] = set()  # names bound to os.environ
        self.getenv_names: set[str] = set()  # names bound to os.getenv
        self.constants: dict[str, str] = {}  # module-level NAME = "TEXT"
        self.copies: list[dict[str, int]] = [{}]  # per scope: a copy's name -> its line
        self.locals: list[dict[str, str]] = [{}]  # per function: NAME = "TEXT" in it
        self.settings: dict[str, tuple[str, bool]] = {}  # class -> (env_prefix, upper-case)
        for statement in tree.body:
            if (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and string_value(statement.value) is not None
            ):
                self.constants[statement.targets[0].id] = str(string_value(statement.value))
        nodes = list(ast.walk(tree))
        for node in nodes:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.visit(node)
        # a module's own function handed os.environ reads it through its parameter
        self.handed: dict[str, set[Union[int, str]]] = {}  # function -> parameter index/name
        for node in nodes:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                where: list[Union[int, str]] = [
                    i for i, arg in enumerate(node.args) if self.environ(arg)
                ]
                where += [k.arg for k in node.keywords if k.arg and self.environ(k.value)]
                if where:
                    self.handed.setdefault(node.func.id, set()).update(where)

    # -- names the module gives os, os.environ, os.getenv --------------------------------

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name == "os":
                self.os_names.add(alias.asname or "os")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module == "os" and not node.level:
            for alias in node.names:
                if alias.name == "environ":
                    self.environ_names.add(alias.asname or "environ")
                elif alias.name == "getenv":
                    self.getenv_names.add(alias.asname or "getenv")

    def environ(self, node: ast.expr) -> bool:
        """Whether ``node`` is ``os.environ`` itself."""
        if isinstance(node, ast.Name):
            return node.id in self.environ_names
        return (
            isinstance(node, ast.Attribute)
            and node.attr == "environ"
            and isinstance(node.value, ast.Name)
            and node.value.id in self.os_names
        )

    def environment(self, node: ast.expr) -> bool:
        """Whether ``node`` reads as the whole environment: ``os.environ`` or a copy of it."""
        return self.environ(node) or (
            isinstance(node, ast.Name) and any(node.id in scope for scope in self.copies)
        )

    def whole_copy(self, node: ast.expr) -> bool:
        """Whether ``node`` makes a mapping holding the whole environment: ``os.environ``,
        ``.copy()``, ``dict(os.environ)``, ``{**os.environ, ...}``, ``os.environ | {...}``, a
        comprehension over ``os.environ.items()``."""
        if self.environment(node):
            return True
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "copy" and not node.args:
                return self.environment(func.value)
            if isinstance(func, ast.Name) and func.id == "dict" and node.args:
                return self.whole_copy(node.args[0])
        if isinstance(node, ast.Dict):
            return any(k is None and self.whole_copy(v) for k, v in zip(node.keys, node.values))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.whole_copy(node.left)
        if isinstance(node, ast.DictComp):  # {k: v for k, v in os.environ.items() if ...}
            return any(self.whole_copy(g.iter) for g in node.generators)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "items"
        ):
            return self.environment(node.func.value)
        return False

    def derived(self, node: ast.expr) -> bool:
        """Whether an ``env=`` argument holds the whole environment, maybe filtered or
        changed by a helper: ``env=scrubbed(os.environ)``."""
        if self.whole_copy(node):
            return True
        return isinstance(node, ast.Call) and any(self.derived(a) for a in node.args)

    # -- scopes: a copy is followed within the function that makes it ------------------

    def _scoped(self, node: _Scope) -> None:
        self.copies.append({})
        self.locals.append({})
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            self.copies[-1].update(dict.fromkeys(self._environment_parameters(node), node.lineno))
        self.generic_visit(node)
        self.copies.pop()
        self.locals.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _scoped

    def _environment_parameters(
        self, node: Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]
    ) -> Iterator[str]:
        """The parameters that hold the environment: defaulting to ``os.environ``, or handed
        it by a call in the module (``_timeout(os.environ)``)."""
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        handed = self.handed.get(getattr(node, "name", ""), set())
        for index, arg in enumerate(positional):
            if index in handed or arg.arg in handed:
                yield arg.arg
        for arg, default in zip(positional[len(positional) - len(args.defaults) :], args.defaults):
            if self.environ(default):
                yield arg.arg
        for arg, maybe in zip(args.kwonlyargs, args.kw_defaults):
            if arg.arg in handed or (maybe is not None and self.environ(maybe)):
                yield arg.arg

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        text = string_value(node.value)
        if text is not None and len(self.copies) > 1:  # a function's own KEY = "X"
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self.locals[-1][target.id] = text
        if self.whole_copy(node.value) and not self.environ(node.value):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self.copies[-1][target.id] = node.lineno

    # -- reads ---------------------------------------------------------------------------

    def name_of(self, node: Optional[ast.expr], line: int, how: str) -> None:
        if node is None:
            return
        text = string_value(node)
        if text is None and isinstance(node, ast.Name):
            text = self.locals[-1].get(node.id, self.constants.get(node.id))
        if text is not None:
            self.sites.append(Site(VARIABLE, text, self.path, line, how))
        else:
            self.sites.append(Site(COMPUTED, ast.unparse(node), self.path, line, how))

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and self.environment(node.value):
            self.name_of(node.slice, node.lineno, f"{ast.unparse(node.value)}[...]")

    def visit_Compare(self, node: ast.Compare) -> None:
        self.generic_visit(node)
        operands = [node.left, *node.comparators]
        for index, op in enumerate(node.ops):
            if isinstance(op, (ast.In, ast.NotIn)) and self.environment(operands[index + 1]):
                word = "in" if isinstance(op, ast.In) else "not in"
                where = ast.unparse(operands[index + 1])
                self.name_of(operands[index], node.lineno, f"{word} {where}")

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        func = node.func
        first = node.args[0] if node.args else _keyword(node, "key")
        if isinstance(func, ast.Attribute):
            if func.attr in ITERATIONS and self.environ(func.value) and not node.args:
                how = ast.unparse(node)
                self.sites.append(Site(COMPUTED, "every name", self.path, node.lineno, how))
            elif (func.attr in READ_METHODS and self.environment(func.value)) or (
                func.attr == "getenv"
                and isinstance(func.value, ast.Name)
                and func.value.id in self.os_names
            ):
                self.name_of(first, node.lineno, f"{ast.unparse(func)}()")
        elif isinstance(func, ast.Name) and func.id in self.getenv_names:
            self.name_of(first, node.lineno, f"{func.id}()")
        child = _keyword(node, "env")
        if child is not None and self.derived(child):
            self.sites.append(
                Site(WHOLE, ast.unparse(child), self.path, node.lineno, ast.unparse(func))
            )

    # -- pydantic-settings -----------------------------------------------------------------

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        inherited = [self.settings[b.id] for b in node.bases
                     if isinstance(b, ast.Name) and b.id in self.settings]  # fmt: skip
        direct = any(_base_name(b) in SETTINGS_BASES for b in node.bases)
        if inherited or direct:
            prefix, upper = inherited[0] if inherited else ("", True)
            prefix, upper = _settings_config(node, prefix, upper)
            self.settings[node.name] = (prefix, upper)
            shown = prefix.upper() if upper else prefix
            owner = f"settings class {node.name}"
            if prefix:
                self.sites.append(
                    Site(PREFIX, shown, self.path, node.lineno, f"{owner}, env_prefix")
                )
            for field, alias in _fields(node):
                name = alias if alias is not None else shown + field
                if upper:
                    name = name.upper()
                self.sites.append(
                    Site(VARIABLE, name, self.path, node.lineno, f"{owner}, field {field}")
                )
        self._scoped(node)  # type: ignore[arg-type]


def _keyword(node: ast.Call, name: str) -> Optional[ast.expr]:
    return next((k.value for k in node.keywords if k.arg == name), None)


def _base_name(node: ast.expr) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _config_items(node: ast.ClassDef) -> Iterator[tuple[str, ast.expr]]:
    """(key, value) of the class's settings: ``model_config = SettingsConfigDict(...)`` or
    ``{...}``, and a nested ``class Config:`` (pydantic 1)."""
    for statement in node.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            value = statement.value
            if not any(isinstance(t, ast.Name) and t.id == "model_config" for t in targets):
                continue
            if isinstance(value, ast.Call):
                yield from ((k.arg, k.value) for k in value.keywords if k.arg is not None)
            elif isinstance(value, ast.Dict):
                for key, item in zip(value.keys, value.values):
                    text = string_value(key)
                    if text is not None:
                        yield text, item
        elif isinstance(statement, ast.ClassDef) and statement.name == "Config":
            for inner in statement.body:
                if (
                    isinstance(inner, ast.Assign)
                    and len(inner.targets) == 1
                    and isinstance(inner.targets[0], ast.Name)
                ):
                    yield inner.targets[0].id, inner.value


def _settings_config(node: ast.ClassDef, prefix: str, upper: bool) -> tuple[str, bool]:
    for key, value in _config_items(node):
        if key == "env_prefix" and string_value(value) is not None:
            prefix = str(string_value(value))
        elif key == "case_sensitive" and isinstance(value, ast.Constant):
            upper = value.value is not True
    return prefix, upper


def _fields(node: ast.ClassDef) -> Iterator[tuple[str, Optional[str]]]:
    """(field, the variable an alias names instead or None) of a settings class."""
    for statement in node.body:
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        field = statement.target.id
        if (
            field.startswith("_")
            or field == "model_config"
            or "ClassVar" in ast.unparse(statement.annotation)
        ):
            continue
        alias = None
        if isinstance(statement.value, ast.Call):
            for key in ("validation_alias", "alias", "env"):
                alias = string_value(_keyword(statement.value, key))
                if alias is not None:
                    break
        yield field, alias


def reads(tree: ast.Module, path: str) -> list[Site]:
    """Every place the module ``tree`` (the file ``path``) reads the environment, in source
    order."""
    visitor = _Reads(tree, path)
    visitor.visit(tree)
    return sorted(visitor.sites, key=lambda s: s.line)
