"""TG202 patches-private-symbol."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from truegreen.audit import patches
from truegreen.audit.base import Finding, Rule


class PatchesPrivateSymbol(Rule):
    """## What it does
    Flags a patch (`mock.patch`, `mocker.patch`, `patch.object`, `monkeypatch.setattr` or
    `monkeypatch.delattr`) whose target's last component is a `_private` name of the
    project's own packages: `mocker.patch("app.store._connect")`,
    `monkeypatch.setattr(store, "_cache", {})`.

    ## Why is this bad?
    A patched private symbol is an implicit contract nobody sees: rename or inline it and the
    patch keeps "working" (with `raising=False`, or because the attribute is recreated) while
    the code under test no longer goes through it, and the test stays green while the real
    thing runs. Patch the public module surface, never a private symbol: a public seam breaks
    loudly when it changes, which is what a test wants.

    ## Example
    ```python
    def test_sync_offline(monkeypatch):
        monkeypatch.setattr("app.sync._fetch_remote", lambda: [])
        assert sync() == []
    ```

    ## Use instead
    ```python
    def test_sync_offline(monkeypatch):
        monkeypatch.setattr("app.sync.fetch_remote", lambda: [])  # a public seam
        assert sync() == []
    ```

    ## Known problems
    Only targets written as a string or as an (object, "name") pair whose object is a dotted
    name of the project are checked; a target built at run time is not. Dunder names
    (`__call__`) are not private. A private attribute of a third-party object is out of
    scope.
    """

    code = "TG202"
    name = "patches-private-symbol"
    severity = "warning"
    triggers = ("patch", "setattr", "delattr")  # without one, the file has nothing to find
    nodes = (ast.Call,)
    calls = patches.CALLEES

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        assert isinstance(node, ast.Call)
        found = patches.target(self.ctx, node)
        if found is None or not _private(found.attribute):
            return
        if self.ctx.project.owns(found.owner):
            yield self.finding(
                found.node,
                f'patches private "{found.dotted}": patch a public function of the project '
                f"that reaches it, or make it a public seam",
            )


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
