"""What a ``mock.patch`` / ``monkeypatch.setattr`` call replaces, as a dotted name."""

from __future__ import annotations

import ast
from typing import Optional

from truegreen.audit.base import FileContext

# mock.patch("a.b.c", ...) and the same through pytest-mock's ``mocker``
_PATCH = ("mock.patch", "mocker.patch", "patch")
_PATCH_OBJECT = ("mock.patch.object", "mocker.patch.object", "patch.object")


def _string(node: Optional[ast.AST]) -> Optional[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _arg(call: ast.Call, index: int, keyword: str) -> Optional[ast.AST]:
    if len(call.args) > index:
        return call.args[index]
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return None


def patch_target(ctx: FileContext, call: ast.Call) -> Optional[str]:
    """The dotted name a patching call replaces, or None when the call patches nothing
    nameable: ``mock.patch("sys.platform")``, ``mock.patch.object(sys, "platform")``,
    ``monkeypatch.setattr(sys, "platform", v)``, ``monkeypatch.setattr("sys.platform", v)``,
    ``setattr(sys, "platform", v)``; all as ``sys.platform``."""
    name = ctx.qualname(call.func)
    if name is None:
        return None
    if name.endswith(_PATCH) and _ends_a_segment(name, _PATCH):
        return _string(_arg(call, 0, "target"))
    if name.endswith(_PATCH_OBJECT) and _ends_a_segment(name, _PATCH_OBJECT):
        return _attribute(ctx, _arg(call, 0, "target"), _arg(call, 1, "attribute"))
    if name == "setattr" or name.endswith(".setattr"):
        first = _arg(call, 0, "target")
        text = _string(first)
        if text is not None and name != "setattr":
            return text if "." in text else None
        return _attribute(ctx, first, _arg(call, 1, "name"))
    return None


def _ends_a_segment(name: str, suffixes: tuple[str, ...]) -> bool:
    """``unittest.mock.patch`` and ``patch`` count; ``dispatch`` does not."""
    return any(name == s or name.endswith("." + s) for s in suffixes)


def _attribute(
    ctx: FileContext, owner: Optional[ast.AST], attr: Optional[ast.AST]
) -> Optional[str]:
    base = ctx.qualname(owner) if owner is not None else None
    text = _string(attr)
    if base is None or text is None:
        return None
    return f"{base}.{text}"
