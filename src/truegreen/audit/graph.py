"""The project's own import graph: which module defines a name, and which import it by ``from``."""

from __future__ import annotations

import ast
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from truegreen.audit.base import Project

LITERALS = (ast.Constant, ast.Dict, ast.List, ast.Tuple, ast.Set)


@dataclass(frozen=True)
class Module:
    """One module of the project's source, as the cross-file rules need it."""

    name: str
    path: Path
    tree: ast.Module
    imported: dict[str, tuple[str, str]]  # local name -> (module, name), module-level `from`
    modules: dict[str, str]  # local name -> module, from module-level `import a.b as c`
    assigned: dict[str, ast.expr]  # module-level `NAME = value` and `NAME: T = value`
    classes: dict[str, ast.ClassDef]
    functions: frozenset[str]
    loads: frozenset[str]  # every name read anywhere in the module

    def defines(self, name: str) -> bool:
        return name in self.assigned or name in self.classes or name in self.functions


def _package(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def absolute(module: str, level: int, package: str) -> str:
    """The absolute module an import names: ``from ..x import y`` in ``a.b.c`` is ``a.x``."""
    if not level:
        return module
    parts = package.split(".") if package else []
    base = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*base, module] if module else base)


def _read(name: str, path: Path, tree: ast.Module) -> Module:
    package = _package(name, path)
    imported: dict[str, tuple[str, str]] = {}
    modules: dict[str, str] = {}
    assigned: dict[str, ast.expr] = {}
    classes: dict[str, ast.ClassDef] = {}
    functions: set[str] = set()
    for node in _top_level(tree.body):
        if isinstance(node, ast.ImportFrom):
            source = absolute(node.module or "", node.level, package)
            for alias in node.names:
                if alias.name != "*":
                    imported[alias.asname or alias.name] = (source, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    modules[alias.asname] = alias.name
                else:
                    top = alias.name.split(".", 1)[0]
                    modules[top] = top
        elif isinstance(node, ast.Assign) and node.targets:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned[target.id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if node.value is not None:
                assigned[node.target.id] = node.value
        elif isinstance(node, ast.ClassDef):
            classes[node.name] = node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.add(node.name)
    loads = frozenset(
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    )
    return Module(
        name, path, tree, imported, modules, assigned, classes, frozenset(functions), loads
    )


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, also under ``if``/``try`` (``TYPE_CHECKING``, fallbacks)."""
    for node in body:
        if isinstance(node, ast.If):
            yield from _top_level(node.body)
            yield from _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from _top_level(block)
            for handler in node.handlers:
                yield from _top_level(handler.body)
        else:
            yield node


class Graph:
    """The project's modules, parsed once each (through :meth:`Project.tree`) when first asked."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._modules: dict[str, Optional[Module]] = {}
        self._importers: Optional[dict[tuple[str, str], list[tuple[str, str]]]] = None
        self._readers: Optional[dict[tuple[str, str], set[str]]] = None

    def module(self, name: str) -> Optional[Module]:
        """The project module ``name``, or None when it is not in the project's source."""
        if name not in self._modules:
            found: Optional[Module] = None
            if self.project.owns(name):
                path = self.project.module_path(name)
                tree = self.project.tree(path) if path is not None else None
                if path is not None and tree is not None:
                    found = _read(name, path, tree)
            self._modules[name] = found
        return self._modules[name]

    def names(self) -> Iterator[str]:
        """The dotted name of every module in the project's source."""
        for root in self.project.source_roots:
            for package in sorted(self.project.packages):
                single = root / f"{package}.py"
                if single.is_file():
                    yield package
                for path in sorted((root / package).rglob("*.py")):
                    parts = path.relative_to(root).with_suffix("").parts
                    if parts[-1] == "__init__":
                        parts = parts[:-1]
                    if all(part.isidentifier() for part in parts):
                        yield ".".join(parts)

    def resolve(self, module: str, name: str) -> Optional[tuple[Module, str]]:
        """Where ``module.name`` is defined, following ``from`` re-exports through the project."""
        seen: set[tuple[str, str]] = set()
        while (module, name) not in seen:
            seen.add((module, name))
            found = self.module(module)
            if found is None:
                return None
            if found.defines(name):
                return found, name
            if name not in found.imported:
                return None
            module, name = found.imported[name]
        return None

    def importers(self, module: str, name: str) -> list[tuple[str, str]]:
        """Every other project module that bound ``module.name`` by a module-level ``from``
        import (directly or through a re-export), as (importing module, local name)."""
        if self._importers is None:
            index: dict[tuple[str, str], list[tuple[str, str]]] = {}
            for importer in self.names():
                found = self.module(importer)
                if found is None:
                    continue
                for local, (source, original) in found.imported.items():
                    origin = self.resolve(source, original)
                    if origin is not None:
                        key = (origin[0].name, origin[1])
                        index.setdefault(key, []).append((importer, local))
            self._importers = index
        return [entry for entry in self._importers.get((module, name), []) if entry[0] != module]

    def attribute_readers(self, module: str, name: str) -> set[str]:
        """The project modules that read ``module.name`` as an attribute of the module object
        (``import a.b`` then ``a.b.Name``): a patch of ``a.b.Name`` reaches those."""
        if self._readers is None:
            index: dict[tuple[str, str], set[str]] = {}
            for reader in self.names():
                found = self.module(reader)
                if found is None:
                    continue
                for node in ast.walk(found.tree):
                    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                        owner = self.qualified(found, node.value)
                        if owner is not None and self.project.owns(owner):
                            index.setdefault((owner, node.attr), set()).add(reader)
            self._readers = index
        return self._readers.get((module, name), set())

    def qualified(self, module: Module, node: ast.expr) -> Optional[str]:
        """The dotted name an expression in ``module`` refers to, through its imports."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        if node.id in module.imported:
            source, original = module.imported[node.id]
            parts.append(f"{source}.{original}")
        elif node.id in module.modules:
            parts.append(module.modules[node.id])
        elif module.defines(node.id):
            parts.append(f"{module.name}.{node.id}")
        else:
            parts.append(node.id)
        return ".".join(reversed(parts))

    def split(self, dotted: str) -> Optional[tuple[str, str]]:
        """``a.b.Name`` as (the longest project module prefix, the rest), or None."""
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if self.module(module) is not None:
                return module, ".".join(parts[cut:])
        return None


_GRAPHS: dict[Path, tuple[weakref.ref[Project], Graph]] = {}


def graph(project: Project) -> Graph:
    """The project's graph, built once per Project object (cached by the project's root)."""
    cached = _GRAPHS.get(project.root)
    if cached is not None and cached[0]() is project:
        return cached[1]
    built = Graph(project)
    _GRAPHS[project.root] = (weakref.ref(project), built)
    return built
