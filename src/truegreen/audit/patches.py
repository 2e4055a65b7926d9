"""What a ``mock.patch``, ``mocker.patch`` or ``monkeypatch.setattr`` call replaces."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from truegreen.audit.base import FileContext, string_value

MOCKERS = ("mocker", "class_mocker", "module_mocker", "package_mocker", "session_mocker")
# patchers whose first argument is the dotted target as a string
BY_STRING = frozenset(
    {"unittest.mock.patch", "mock.patch"} | {f"{fixture}.patch" for fixture in MOCKERS}
)
# patchers whose first two arguments are the owning object and the attribute name
BY_OBJECT = frozenset(
    {"unittest.mock.patch.object", "mock.patch.object"}
    | {f"{fixture}.patch.object" for fixture in MOCKERS}
)
MONKEYPATCH = frozenset({"monkeypatch.setattr", "monkeypatch.delattr"})
# the last name of every patcher above: the calls a patch-reading rule needs to see
CALLEES = frozenset({"patch", "object", "setattr", "delattr"})


@dataclass(frozen=True)
class Target:
    """One patch target: ``owner.attribute``, reported at ``node``."""

    node: ast.expr
    owner: str  # the module or object, dotted ("a.b"); for a string target, all but the last part
    attribute: str
    by_object: bool  # given as (object, "name") rather than as one string

    @property
    def dotted(self) -> str:
        return f"{self.owner}.{self.attribute}"


def _argument(call: ast.Call, index: int, keyword: str) -> Optional[ast.expr]:
    if len(call.args) > index:
        return call.args[index]
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return None


def target(ctx: FileContext, call: ast.Call) -> Optional[Target]:
    """The target a patching call names, when it names one statically."""
    key = ("patch-target", id(call))
    try:
        known: Optional[Target] = ctx.memo[key]
        return known
    except KeyError:
        pass
    ctx.memo[key] = found = _target(ctx, call)
    return found


def _target(ctx: FileContext, call: ast.Call) -> Optional[Target]:
    patcher = ctx.qualname(call.func)
    if patcher is None:
        return None
    first = _argument(call, 0, "target")
    if patcher in BY_STRING or (patcher in MONKEYPATCH and string_value(first) is not None):
        dotted = string_value(first)
        if first is None or dotted is None or "." not in dotted:
            return None
        owner, _, attribute = dotted.rpartition(".")
        return Target(first, owner, attribute, by_object=False)
    if patcher in BY_OBJECT or patcher in MONKEYPATCH:
        name_node = _argument(call, 1, "attribute" if patcher in BY_OBJECT else "name")
        name = string_value(name_node)
        holder = ctx.qualname(first) if first is not None else None
        if holder is None or name is None or name_node is None:
            return None
        return Target(name_node, holder, name, by_object=True)
    return None
