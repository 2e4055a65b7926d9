"""TG205 patches-shared-module."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Optional

from truegreen.audit import graph, patches
from truegreen.audit.base import Finding, Rule
from truegreen.audit.hostos import HOST_NAMES

# modules that are an attribute of their package without a file of that name
_ALIASED = frozenset({"os.path"})


class PatchesSharedModule(Rule):
    """## What it does
    Flags a patch that reaches through a module of the project into a module it imported
    from outside the project: `monkeypatch.setattr("app.proc.subprocess.run", fake)`,
    `mock.patch("app.proc.os.getcwd")`, `mock.patch.object(proc.shutil, "which")`. The
    target's owner (`app.proc.subprocess`) must be a module bound in `app.proc` by
    `import subprocess` (any third-party or standard module) or by `from os import path` (a
    standard module).

    ## Why is this bad?
    `import subprocess` in `app.proc` binds the name to the one `subprocess` module every
    other module shares. Patching `app.proc.subprocess.run` does not replace `run` for
    `app.proc` alone: it replaces `subprocess.run` for the whole process until the test ends.
    Every other caller in the test (the project's git helper, a library, a fixture) gets the
    fake too: they stop doing real work, or crash on a fake that only knew one command, and
    the test proves something other than what its target suggests.

    ## Example
    ```python
    def test_register_calls_the_cli(monkeypatch):
        monkeypatch.setattr("app.onboarding.subprocess.run", fake_run)
        register()  # also calls app.git.detect_root(), which now gets fake_run
    ```

    ## Use instead
    Patch the consumer's own function that calls the shared one:
    ```python
    def test_register_calls_the_cli(monkeypatch):
        monkeypatch.setattr("app.onboarding.add_mcp_server", fake_add)
        register()
    ```
    or, when a shared function must be faked, make the fake pass every call it does not
    expect through to the real one (captured before patching), and patch the shared module
    itself (`monkeypatch.setattr(subprocess, "run", fake)`) so the test says what it does.
    A name the consumer bound by `from subprocess import run` is its own binding:
    `app.proc.run` is patched for `app.proc` only, and that patch is not flagged (see
    [TG201](TG201.md), which asks for exactly that).

    ## Known problems
    The consumer must be a module of the project's source, and the test must name it by
    string or through an import the file makes. A module bound by `from pkg import sub` is
    recognised only when it is a module of the standard library (`from os import path`);
    a third-party submodule bound that way is not. Patching an attribute of a class reached
    through the consumer (`app.proc.json.JSONDecoder.decode`) is not flagged. The host's
    identity (`app.proc.sys.platform`, `app.proc.os.name`) is left to [TG301](TG301.md).
    """

    code = "TG205"
    name = "patches-shared-module"
    triggers = ("patch", "setattr", "delattr")  # without one, the file has nothing to find
    nodes = (ast.Call,)
    calls = patches.CALLEES

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        assert isinstance(node, ast.Call)
        found = patches.target(self.ctx, node)
        if found is None or not self.ctx.project.owns(found.owner):
            return
        project = graph.graph(self.ctx.project)
        if project.module(found.owner) is not None:
            return  # a name of the project's module itself: patched where it is used
        split = project.split(found.owner)
        if split is None:
            return
        consumer, rest = split
        shared = self._shared(consumer, rest)
        if shared is None or f"{shared}.{found.attribute}" in HOST_NAMES:
            return
        yield self.finding(
            found.node,
            f'"{found.dotted}" patches {shared}.{found.attribute} for the whole process, not '
            f"for {consumer} alone: {consumer} shares the one {shared} module with every "
            f"other caller; patch {consumer}'s own function that calls it, or patch "
            f"{shared} itself with a fake that passes other calls through",
        )

    def _shared(self, consumer: str, rest: str) -> Optional[str]:
        """The module outside the project that ``consumer.rest`` is, or None."""
        module = graph.graph(self.ctx.project).module(consumer)
        if module is None:
            return None
        head, _, tail = rest.partition(".")
        if head in module.modules:
            bound = module.modules[head]  # `import x` and `import x.y as z` bind modules
            known = True
        elif head in module.imported:
            source, original = module.imported[head]
            bound, known = f"{source}.{original}", False
        else:
            return None
        if self.ctx.project.owns(bound):
            return None
        shared = f"{bound}.{tail}" if tail else bound
        if (known and not tail) or _standard_module(shared):
            return shared
        return None


@cache
def _standard_module(dotted: str) -> bool:
    """Whether ``dotted`` is a module of the standard library, found without importing it."""
    top = dotted.split(".", 1)[0]
    names = getattr(sys, "stdlib_module_names", None)
    if names is not None and top not in names:
        return False
    if "." not in dotted:
        return names is not None or _stdlib_file(dotted)
    return dotted in _ALIASED or _stdlib_file(dotted)


def _stdlib_file(dotted: str) -> bool:
    import sysconfig  # only for a module name the file's imports leave open

    base = Path(sysconfig.get_paths()["stdlib"]).joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()
