"""TG206 mock-without-spec."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from typing import Optional, Union

from truegreen.audit import graph, patches
from truegreen.audit.base import Finding, Rule

_KINDS = ("Mock", "MagicMock", "AsyncMock", "NonCallableMock", "NonCallableMagicMock")
MOCKS = frozenset(
    f"{home}.{kind}" for home in ("unittest.mock", "mock", *patches.MOCKERS) for kind in _KINDS
)
# keywords that give a mock a spec, or make it call through to a real object
SPECS = frozenset({"spec", "spec_set", "autospec", "wraps", "new_callable"})
DATACLASS = ("dataclass", "define", "frozen", "mutable", "attr.s", "attrs", "attr.attrs")
# the last names of the patching calls: in a file that makes no mock, a call named otherwise
# (FileContext.may_name) is not resolved at all
PATCHERS = frozenset(name.rpartition(".")[2] for name in (*patches.BY_STRING, *patches.BY_OBJECT))
Function = Union[ast.FunctionDef, ast.AsyncFunctionDef]
Signature = tuple[graph.Module, list[ast.arg], dict[str, ast.arg]]


class MockWithoutSpec(Rule):
    """## What it does
    Flags a `Mock()`, `MagicMock()` or `AsyncMock()` with no `spec` standing in for a class of
    the project: a patch of the class (`mock.patch("app.service.Client")`,
    `mocker.patch.object(service, "Client")`) without `autospec`, `spec`, `spec_set` or
    `new_callable`, or whose replacement is a spec-less mock; `monkeypatch.setattr` of the
    class to one; and one passed for a parameter, or assigned to a name, annotated with the
    class (`Service(client=Mock())` where `Service.__init__` takes `client: Client`).

    ## Why is this bad?
    A mock without a spec accepts every attribute and every call. When the project's class
    changes (a method renamed, a parameter added or removed), the code under test that still
    calls the old shape keeps passing against the mock, and the break shows only in
    production. The mock also answers calls nobody meant (`client.fetch_al()` returns
    another mock), so a typo in the code or in the test's assertions
    (`client.fetch.assert_called_once_wiht(...)` on old Pythons) passes silently.

    ## Example
    ```python
    def test_service_fetches(mocker):
        client = mocker.patch("app.service.Client")
        Service().refresh()
        client.return_value.fetch.assert_called_once_with("all")
    ```

    ## Use instead
    ```python
    def test_service_fetches(mocker):
        client = mocker.patch("app.service.Client", autospec=True)
        Service().refresh()
        client.return_value.fetch.assert_called_once_with("all")
    ```
    and `create_autospec(Client, instance=True)` or `Mock(spec=Client)` for a mock passed in.

    ## Known problems
    Precision comes first, so the rule flags only where it can tell the mock stands for a
    class of the project: a patch target that resolves to a class in the project's source
    (through its imports and re-exports), or a parameter annotated with one (`Client`,
    `Optional[Client]`, `Client | None`, `"Client"`) of a function or class the test calls by
    a name it imported. Constructors are read from `__init__`, or from the annotated fields
    of a dataclass or an attrs class. A mock passed to a method (`service.use(Mock())`), one
    built by a helper, or stored on an attribute (`service.client = Mock()`) is not checked;
    a mock assigned to a name counts when the same function assigns it once.
    Patches of functions and methods are not flagged, though a spec-less mock hides their
    signature changes just the same.
    """

    code = "TG206"
    name = "mock-without-spec"
    triggers = ("Mock", "patch")  # without one, the file has nothing to find
    nodes = (ast.Call, ast.AnnAssign)

    def begin(self) -> Iterator[Finding]:
        self._signatures: dict[str, Optional[Signature]] = {}
        # a mock made in this file names its class in the text (as called, or in an import)
        self._mocks = any(kind in self.ctx.source for kind in _KINDS)
        return iter(())

    def visit(self, node: ast.AST) -> Iterable[Finding]:
        # a plain function, not a generator: most calls are turned away here, at no generator's
        # cost
        if isinstance(node, ast.AnnAssign):
            return self._annotated(node) if self._mocks else ()
        assert isinstance(node, ast.Call)
        if not self._mocks and not self.ctx.may_name(node.func, PATCHERS):
            return ()
        callee = self.ctx.qualname(node.func)
        if callee is None:
            return ()
        if callee in patches.BY_STRING or callee in patches.BY_OBJECT:
            return self._patch(node, callee)
        if not self._mocks:
            return ()  # the rest are mocks made by a call here, and the file makes none
        if callee in patches.MONKEYPATCH:
            return self._monkeypatch(node)
        if self.ctx.project.owns(callee):
            return self._arguments(node, callee)
        return ()

    def _patch(self, node: ast.Call, patcher: str) -> Iterator[Finding]:
        found = patches.target(self.ctx, node)
        if found is None or any(k.arg in SPECS for k in node.keywords):
            return
        index = 1 if patcher in patches.BY_STRING else 2
        new = node.args[index] if len(node.args) > index else _keyword(node, "new")
        if new is not None and not self._specless(new):
            return
        cls = self._project_class(found.owner, found.attribute)
        if cls is not None:
            yield self.finding(
                found.node,
                f'"{found.dotted}" is patched with a mock without a spec, standing in for '
                f"{cls}, a class of the project: any call and attribute pass, and a changed "
                "signature goes unnoticed; add autospec=True",
            )

    def _monkeypatch(self, node: ast.Call) -> Iterator[Finding]:
        found = patches.target(self.ctx, node)
        if found is None:
            return
        index = 2 if found.by_object else 1
        value = node.args[index] if len(node.args) > index else _keyword(node, "value")
        if value is None or not self._specless(value):
            return
        cls = self._project_class(found.owner, found.attribute)
        if cls is not None:
            yield self.finding(value, _message(cls))

    def _arguments(self, node: ast.Call, callee: str) -> Iterator[Finding]:
        given = [*node.args, *(k.value for k in node.keywords if k.arg is not None)]
        if not any(self._specless(a, follow=True) for a in given):
            return  # no mock among the arguments: the callee's signature is not needed
        parameters = self._parameters(callee)
        if parameters is None:
            return
        home, positional, named = parameters
        for index, argument in enumerate(node.args):
            if isinstance(argument, ast.Starred) or index >= len(positional):
                break
            yield from self._argument(home, positional[index], argument)
        for keyword in node.keywords:
            if keyword.arg is not None and keyword.arg in named:
                yield from self._argument(home, named[keyword.arg], keyword.value)

    def _argument(
        self, home: graph.Module, parameter: ast.arg, argument: ast.expr
    ) -> Iterator[Finding]:
        if parameter.annotation is None or not self._specless(argument, follow=True):
            return
        cls = self._annotated_class(home, parameter.annotation)
        if cls is not None:
            yield self.finding(argument, _message(cls))

    def _annotated(self, node: ast.AnnAssign) -> Iterator[Finding]:
        if node.value is None or not self._specless(node.value):
            return
        dotted = self.ctx.qualname(_unquoted(node.annotation) or node.annotation)
        if dotted is None or "." not in dotted:
            return
        owner, _, name = dotted.rpartition(".")
        cls = self._project_class(owner, name)
        if cls is not None:
            yield self.finding(node.value, _message(cls))

    def _specless(self, node: ast.expr, follow: bool = False) -> bool:
        """Whether ``node`` makes a mock with no spec (a name assigned one, with ``follow``)."""
        if follow and isinstance(node, ast.Name):
            values = self._assigned(node.id)
            if len(values) != 1:
                return False
            node = values[0]
        if not isinstance(node, ast.Call) or self.ctx.qualname(node.func) not in MOCKS:
            return False
        # the first positional argument is the spec; `**options` may hold one
        given = bool(node.args) or any(k.arg is None or k.arg in SPECS for k in node.keywords)
        return not given

    def _assigned(self, name: str) -> list[ast.expr]:
        function = self.ctx.function
        if function is None:
            return []
        # what each name of the function is assigned, read once per function
        index: dict[int, dict[str, list[ast.expr]]] = self.__dict__.setdefault("_index", {})
        found = index.get(id(function))
        if found is None:
            found = index[id(function)] = {}
            for node in ast.walk(function):
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in {t.id for t in targets if isinstance(t, ast.Name)}:
                        found.setdefault(target, []).append(node.value)
        return found.get(name, [])

    def _project_class(self, owner: str, name: str) -> Optional[str]:
        """``module.Class`` where ``owner.name`` is defined, when that is a project class."""
        if not self.ctx.project.owns(owner):
            return None
        found = graph.graph(self.ctx.project).resolve(owner, name)
        if found is None or found[1] not in found[0].classes:
            return None
        return f"{found[0].name}.{found[1]}"

    def _annotated_class(self, home: graph.Module, annotation: ast.expr) -> Optional[str]:
        """The project class an annotation names, through ``Optional``, ``Union`` and
        ``X | None``, as a string or not."""
        project = graph.graph(self.ctx.project)
        for candidate in _alternatives(annotation):
            dotted = project.qualified(home, candidate)
            if dotted is None or "." not in dotted:
                continue
            owner, _, name = dotted.rpartition(".")
            cls = self._project_class(owner, name)
            if cls is not None:
                return cls
        return None

    def _parameters(self, callee: str) -> Optional[Signature]:
        """(the defining module, the positional parameters, every parameter by name) of a
        project function or class the test calls; worked out once per name and file."""
        if callee not in self._signatures:
            self._signatures[callee] = self._signature(callee)
        return self._signatures[callee]

    def _signature(self, callee: str) -> Optional[Signature]:
        project = graph.graph(self.ctx.project)
        owner, _, name = callee.rpartition(".")
        found = project.resolve(owner, name) if owner else None
        if found is None:
            return None
        home, defined = found
        if defined in home.classes:
            cls = home.classes[defined]
            init = next(
                (
                    item
                    for item in cls.body
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and item.name == "__init__"
                ),
                None,
            )
            if init is not None:
                return (home, *_signature(init, skip=1))
            if _is_dataclass(project, home, cls):
                fields = [
                    ast.arg(arg=item.target.id, annotation=item.annotation)
                    for item in cls.body
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                ]
                return home, fields, {f.arg: f for f in fields}
            return None
        function = next(
            (
                item
                for item in home.tree.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                and item.name == defined
            ),
            None,
        )
        if function is None:
            return None
        return (home, *_signature(function, skip=0))


def _signature(function: Function, skip: int) -> tuple[list[ast.arg], dict[str, ast.arg]]:
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args][skip:]
    named = {a.arg: a for a in [*arguments.args[skip:], *arguments.kwonlyargs]}
    return positional, named


def _is_dataclass(project: graph.Graph, home: graph.Module, cls: ast.ClassDef) -> bool:
    for decorator in cls.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        dotted = project.qualified(home, target) or ""
        if dotted.endswith(DATACLASS):
            return True
    return False


def _alternatives(annotation: ast.expr) -> Iterator[ast.expr]:
    """The types an annotation allows: ``Optional[A]`` is A, ``A | B`` is A and B."""
    unquoted = _unquoted(annotation)
    if unquoted is not None:
        yield from _alternatives(unquoted)
    elif isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        yield from _alternatives(annotation.left)
        yield from _alternatives(annotation.right)
    elif isinstance(annotation, ast.Subscript):
        head = annotation.value
        last = head.attr if isinstance(head, ast.Attribute) else getattr(head, "id", "")
        if last in ("Optional", "Union"):
            inner = annotation.slice
            items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            for item in items:
                yield from _alternatives(item)
    else:
        yield annotation


def _unquoted(annotation: ast.expr) -> Optional[ast.expr]:
    """A string annotation, parsed; None for anything else (or a string that does not parse)."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    return None


def _keyword(node: ast.Call, name: str) -> Optional[ast.expr]:
    for keyword in node.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def _message(cls: str) -> str:
    return (
        f"a mock without a spec stands in for {cls}, a class of the project: any call and "
        f"attribute pass, and a changed signature goes unnoticed; use "
        f"create_autospec({cls.rpartition('.')[2]}) or spec="
    )
