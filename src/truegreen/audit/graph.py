"""The project's own import graph: which module defines a name, and which import it by ``from``."""

from __future__ import annotations

import ast
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
    stars: tuple[str, ...] = ()  # modules of module-level `from x import *`, in order

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
    stars: list[str] = []
    for node in _top_level(tree.body):
        if isinstance(node, ast.ImportFrom):
            source = absolute(node.module or "", node.level, package)
            for alias in node.names:
                if alias.name != "*":
                    imported[alias.asname or alias.name] = (source, alias.name)
                else:
                    stars.append(source)
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
    return Module(
        name, path, tree, imported, modules, assigned, classes, frozenset(functions), tuple(stars)
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
        self._files: Optional[list[tuple[str, Path]]] = None
        self._texts: dict[Path, bytes] = {}
        self._importers: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self._readers: dict[tuple[str, str], set[str]] = {}
        self._loads: dict[str, frozenset[str]] = {}

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

    def files(self) -> list[tuple[str, Path]]:
        """(dotted name, path) of every module in the project's source."""
        if self._files is None:
            found: list[tuple[str, Path]] = []
            for root in self.project.source_roots:
                for package in sorted(self.project.packages):
                    single = root / f"{package}.py"
                    paths = [single] if single.is_file() else []
                    for path in [*paths, *sorted((root / package).rglob("*.py"))]:
                        parts = path.relative_to(root).with_suffix("").parts
                        if parts[-1] == "__init__":
                            parts = parts[:-1]
                        if all(part.isidentifier() for part in parts):
                            found.append((".".join(parts), path))
            self._files = found
        return self._files

    def _mentioning(self, words: set[str]) -> Iterator[Module]:
        """The project modules whose text contains one of ``words``: a parse only for those."""
        encoded = [w.encode() for w in words]
        for name, path in self.files():
            if path not in self._texts:
                try:
                    self._texts[path] = path.read_bytes()
                except OSError:
                    self._texts[path] = b""
            if any(w in self._texts[path] for w in encoded):
                found = self.module(name)
                if found is not None:
                    yield found

    def resolve(
        self, module: str, name: str, seen: Optional[set[tuple[str, str]]] = None
    ) -> Optional[tuple[Module, str]]:
        """Where ``module.name`` is defined, following ``from`` re-exports through the project
        (``from .status import *`` too: httpx's ``codes``)."""
        seen = set() if seen is None else seen
        while (module, name) not in seen:
            seen.add((module, name))
            found = self.module(module)
            if found is None:
                return None
            if found.defines(name):
                return found, name
            if name not in found.imported:
                for star in found.stars:
                    origin = self.resolve(star, name, seen) if self._exports(star, name) else None
                    if origin is not None:
                        return origin
                return None
            module, name = found.imported[name]
        return None

    def _exports(self, module: str, name: str) -> bool:
        """Whether ``from module import *`` binds ``name``: it is in the module's literal
        ``__all__``, or, without one, it is public."""
        found = self.module(module)
        listed = found.assigned.get("__all__") if found is not None else None
        if isinstance(listed, (ast.List, ast.Tuple)):
            return any(isinstance(e, ast.Constant) and e.value == name for e in listed.elts)
        return not name.startswith("_")

    def importers(self, module: str, name: str) -> list[tuple[str, str]]:
        """Every other project module that bound ``module.name`` by a module-level ``from``
        import (directly or through a re-export), as (importing module, local name)."""
        key = (module, name)
        if key not in self._importers:
            found: dict[tuple[str, str], None] = {}
            wanted = {name}
            while True:
                before = len(wanted)
                for importer in self._mentioning(wanted):
                    for local, (source, original) in importer.imported.items():
                        if original not in wanted or importer.name == module:
                            continue
                        origin = self.resolve(source, original)
                        if origin is not None and (origin[0].name, origin[1]) == key:
                            found[(importer.name, local)] = None
                            wanted.add(local)  # a re-export under another name
                if len(wanted) == before:
                    break
            self._importers[key] = sorted(found)
        return self._importers[key]

    def reads(self, module: Module, name: str) -> bool:
        """Whether ``module`` reads ``name`` anywhere in its own code."""
        if module.name not in self._loads:
            self._loads[module.name] = frozenset(
                n.id
                for n in ast.walk(module.tree)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            )
        return name in self._loads[module.name]

    def attribute_readers(self, module: str, name: str) -> set[str]:
        """The project modules that read ``module.name`` as an attribute of the module object
        (``import a.b`` then ``a.b.Name``): a patch of ``a.b.Name`` reaches those."""
        key = (module, name)
        if key not in self._readers:
            readers: set[str] = set()
            for found in self._mentioning({name}):
                if not self._imports_module(found, module):
                    continue  # only a module that imported `module` itself can read from it
                for node in ast.walk(found.tree):
                    if (
                        isinstance(node, ast.Attribute)
                        and node.attr == name
                        and isinstance(node.ctx, ast.Load)
                        and self.qualified(found, node.value) == module
                    ):
                        readers.add(found.name)
            self._readers[key] = readers
        return self._readers[key]

    def _imports_module(self, found: Module, module: str) -> bool:
        """``import a.b``, ``import a.b as c`` or ``from a import b`` of ``module`` in ``found``."""
        top = module.split(".", 1)[0]
        if any(m in (module, top) for m in found.modules.values()):
            return True
        return any(f"{source}.{original}" == module for source, original in found.imported.values())

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


_GRAPHS: dict[Path, Graph] = {}


def graph(project: Project) -> Graph:
    """The project's graph, built once per Project object (cached by the project's root; a
    new Project for the same root, as a new audit run makes, gets a fresh graph)."""
    cached = _GRAPHS.get(project.root)
    if cached is not None and cached.project is project:
        return cached
    built = _GRAPHS[project.root] = Graph(project)
    return built
