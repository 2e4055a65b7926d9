"""TG301 fakes-host-os."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from truegreen.audit.base import Finding, Rule
from truegreen.audit.hostos import HOST_FLAG, HOST_NAMES
from truegreen.audit.patches import CALLEES, target


class FakesHostOs(Rule):
    """## What it does
    Flags a test that makes the interpreter believe it runs on another OS: patching
    `sys.platform`, `os.name`, `platform.system` and their friends (`platform.machine`,
    `sys.getwindowsversion`, ...) with `monkeypatch.setattr`, `mock.patch`,
    `mock.patch.object`, `mocker.patch` or plain assignment, including through another module
    (`mock.patch("app.proc.sys.platform")`), and flipping a project's host flag such as
    `IS_WINDOWS`.

    ## Why is this bad?
    The test then exercises code paths on an OS they were never meant to run on: Windows
    branches run against POSIX paths, POSIX branches against a patched `os.name`. It passes,
    and proves nothing about the real Windows or macOS behaviour: a test that needs the
    interpreter to believe it is on another OS to pass belongs on that OS.

    ## Example
    ```python
    def test_detach_flags_on_windows(monkeypatch):
        monkeypatch.setattr(sys, "platform", "win32")
        assert proc.detach_flags() == proc.CREATE_NEW_PROCESS_GROUP
    ```

    ## Use instead
    ```python
    @pytest.mark.platforms("windows")
    def test_detach_flags_on_windows():
        assert proc.detach_flags() == proc.CREATE_NEW_PROCESS_GROUP
    ```
    or pass the platform as data to a pure function: `detach_flags(is_windows=True)`.

    ## Known problems
    A host flag is recognised by its name (`IS_WINDOWS`, `ON_MACOS`, `RUNNING_ON_LINUX`, ...);
    a flag with another name is not. A patch of `app.platform.system` where `app.platform` is
    the project's own module stays silent.
    """

    code = "TG301"
    name = "fakes-host-os"
    nodes = (ast.Call, ast.Assign)
    calls = CALLEES
    triggers = ("platform", "os.name", '"name"', "'name'", "uname", "getwindowsversion", "_WIN",
                "_MAC", "_OSX", "_DARWIN", "_LINUX", "_POSIX")  # fmt: skip

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        if isinstance(node, ast.Call):
            patched = target(self.ctx, node)
            if patched is not None and self._fakes_host(patched.dotted):
                yield self.finding(node, _message(patched.dotted))
        elif isinstance(node, ast.Assign) and self.ctx.function is not None:
            for left in node.targets:
                name = self.ctx.qualname(left) if isinstance(left, ast.Attribute) else None
                if name is not None and self._fakes_host(name):
                    yield self.finding(node, _message(name))

    def _fakes_host(self, target: str) -> bool:
        if target in HOST_NAMES:
            return True
        if HOST_FLAG.match(target.rpartition(".")[2]):
            return True
        for name in HOST_NAMES:
            if target.endswith("." + name):
                # app.platform.system is the project's own module, not the standard library's
                module = target[: -len(name)] + name.split(".", 1)[0]
                return self.ctx.project.module_path(module) is None
        return False


def _message(target: str) -> str:
    return (
        f"the test fakes the host OS by patching {target}: run it on that OS with "
        '@pytest.mark.platforms("...") or pass the platform to the code as data'
    )
