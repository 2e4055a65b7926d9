"""TG203 incomplete-double."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import Optional

from truegreen.audit import graph
from truegreen.audit.base import Finding, Rule

DOUBLE = re.compile(
    r"^_*(Fake|Stub|Mock|Dummy|Spy|InMemory|Offline|Scripted|Recording)(?![a-z])"
    r"|(Fake|Stub|Double|Spy)$"
)
ABSTRACT = frozenset({"abstractmethod", "abc.abstractmethod", "overload", "typing.overload"})
SKIPPED = frozenset({"property", "functools.cached_property", "cached_property"})


class IncompleteDouble(Rule):
    """## What it does
    Flags a test double (a class in the tests named `Fake*`, `Stub*`, `Mock*`, `Dummy*`,
    `Spy*`, `InMemory*`, `Offline*`, `Scripted*`, `Recording*`, or ending in `Fake`, `Stub`,
    `Double`, `Spy`) that subclasses a class of the project and leaves some of its public
    methods un-overridden. The message lists them, including those the base inherits from
    its own project bases.

    ## Why is this bad?
    A fake that subclasses the real boundary is only as offline as the methods it overrides.
    The day production calls one it does not override, every test that uses the fake runs the
    real method (a real `devcontainer exec`, a real HTTP call), silently and still green: a
    double that is not complete is a false green waiting for its day.

    ## Example
    ```python
    from app.cli import DevcontainerCli  # probe, read_configuration, up, exec


    class FakeCli(DevcontainerCli):
        def probe(self):
            return True

        def read_configuration(self):
            return {}

        def up(self):
            return "container-1"
    ```

    ## Use instead
    ```python
    class FakeCli(DevcontainerCli):
        def probe(self):
            return True

        def read_configuration(self):
            return {}

        def up(self):
            return "container-1"

        def exec(self, *argv):
            raise AssertionError(f"unexpected exec {argv}")
    ```

    ## Known problems
    Precision comes first, so the rule decides what a double is by its name: a subclass
    that is not named like a double (a test-specific subclass that keeps real behaviour on
    purpose) is not checked. A double must also override at least one of the base's public
    methods: one that only sets attributes (`class DummyReport(BaseReport): passed = True`)
    is a data double, and is not checked. Public means a method defined with `def` whose
    name does not start with `_`; properties, abstract methods and stubs that cannot reach
    anything (a body of only `...`, `pass`, a docstring or `raise NotImplementedError`) are
    not listed. The base is resolved through the test file's imports and the project's
    source, following the base's own project bases; bases outside the project, or built at
    run time, are not followed. What a mixin defined in the same test file overrides counts
    as overridden; a mixin imported from elsewhere is not read. A class that overrides
    `__getattr__` is not treated specially.
    """

    code = "TG203"
    name = "incomplete-double"
    triggers = ("class",)  # without one, the file has nothing to find
    nodes = (ast.ClassDef,)

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        assert isinstance(node, ast.ClassDef)
        if not DOUBLE.search(node.name):
            return
        overridden = self._local_members(node, set())
        left: dict[str, None] = {}
        replaced: set[str] = set()  # the base's public methods the double does override
        bases: list[str] = []
        for base in node.bases:
            dotted = self.ctx.qualname(_unsubscripted(base))
            if dotted is None or "." not in dotted or not self.ctx.project.owns(dotted):
                continue
            methods = self._public_methods(dotted, set())
            if methods is None:
                continue
            bases.append(dotted)
            replaced.update(methods)
            left.update(dict.fromkeys(m for m in methods if m not in overridden))
        if left and overridden & replaced:
            names = ", ".join(left)
            yield self.finding(
                node,
                f"{node.name} subclasses {', '.join(bases)} but leaves {names} un-overridden: "
                f"override each (raise if unexpected) or wrap the real class instead",
            )

    def _local_members(self, cls: ast.ClassDef, seen: set[str]) -> set[str]:
        """What ``cls`` defines, with what its bases defined in this same file define."""
        seen.add(cls.name)
        members = _members(cls)
        local = {n.name: n for n in self.ctx.tree.body if isinstance(n, ast.ClassDef)}
        for base in cls.bases:
            named = _unsubscripted(base)
            if isinstance(named, ast.Name) and named.id in local and named.id not in seen:
                members |= self._local_members(local[named.id], seen)
        return members

    def _public_methods(self, dotted: str, seen: set[str]) -> Optional[list[str]]:
        """The public methods of a project class and its project bases, or None if unresolved."""
        modules = graph.graph(self.ctx.project)
        module, _, name = dotted.rpartition(".")
        found = modules.resolve(module, name)
        if found is None or found[1] not in found[0].classes or dotted in seen:
            return None
        seen.add(dotted)
        home, cls = found[0], found[0].classes[found[1]]
        methods = [
            item.name
            for item in cls.body
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
            and not item.name.startswith("_")
            and not self._passive(home, item)
        ]
        for base in cls.bases:
            inherited = modules.qualified(home, _unsubscripted(base))
            if inherited is not None and self.ctx.project.owns(inherited):
                more = self._public_methods(inherited, seen) or []
                methods.extend(m for m in more if m not in methods and m not in _members(cls))
        return methods

    def _passive(
        self, home: graph.Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> bool:
        """A method that cannot reach the outside world as written, or that is not a method."""
        modules = graph.graph(self.ctx.project)
        for decorator in function.decorator_list:
            name = modules.qualified(home, decorator)
            if name is not None and (
                name in ABSTRACT or name in SKIPPED or name.endswith(".setter")
            ):
                return True
        return _stub(function.body)


def _unsubscripted(base: ast.expr) -> ast.expr:
    """``Repository[int]`` is ``Repository``."""
    return base.value if isinstance(base, ast.Subscript) else base


def _members(cls: ast.ClassDef) -> set[str]:
    names: set[str] = set()
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(item.name)
        elif isinstance(item, ast.Assign):
            names.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
    return names


def _stub(body: list[ast.stmt]) -> bool:
    for statement in body:
        if isinstance(statement, ast.Pass):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring or `...`
        if isinstance(statement, ast.Raise) and _not_implemented(statement.exc):
            continue
        return False
    return True


def _not_implemented(exc: Optional[ast.expr]) -> bool:
    if isinstance(exc, ast.Call):
        exc = exc.func
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
