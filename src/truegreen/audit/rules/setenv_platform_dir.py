"""TG204 setenv-platform-dir."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import Optional

from truegreen.audit.base import Finding, Project, Rule, string_value

PLATFORM_DIR_VARIABLES = frozenset({"HOME", "USERPROFILE", "APPDATA", "LOCALAPPDATA"})
_RESOLVERS = re.compile(rb"^\s*(?:import|from)\s+(platformdirs|appdirs)\b", re.MULTILINE)


def _redirects(name: Optional[str]) -> bool:
    return name is not None and (name in PLATFORM_DIR_VARIABLES or name.startswith("XDG_"))


def uses_platformdirs(project: Project) -> bool:
    """Whether the project's own code imports platformdirs (or its predecessor appdirs) as a
    dependency: in platformdirs itself the variables are the input its tests vary."""
    if "uses_platformdirs" not in project.facts:
        found = False
        for path in project.source_files():
            try:
                data = path.read_bytes()
            except OSError:
                continue
            # A plain search first: the pattern anchored at every line start costs ten times
            # as much, and nearly every file names neither package.
            if b"platformdirs" not in data and b"appdirs" not in data:
                continue
            imported = {m.group(1).decode() for m in _RESOLVERS.finditer(data)}
            if imported - project.packages:
                found = True
                break
        project.facts["uses_platformdirs"] = found
    return bool(project.facts["uses_platformdirs"])


class SetenvPlatformDir(Rule):
    """## What it does
    In a project whose code resolves its directories with `platformdirs` (or `appdirs`),
    flags a test or fixture that tries to redirect them by setting `HOME`, `USERPROFILE`,
    `APPDATA`, `LOCALAPPDATA` or an `XDG_*` variable: `monkeypatch.setenv(...)`,
    `os.environ[...] = ...`, `mock.patch.dict(os.environ, {...})`, `os.environ.update(...)`.

    ## Why is this bad?
    platformdirs does not read those variables everywhere: on Windows it asks the OS
    (`SHGetKnownFolderPath`) and on macOS it builds `~/Library/...` paths, so the variable is
    a no-op there. The test's writes land in the developer's real directories and its reads
    see their real files, on exactly the machines the author did not run it on (doctrine 000).

    ## Example
    ```python
    def test_saves_settings(monkeypatch, tmp_path):
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
        app.save_settings({"theme": "dark"})
    ```

    ## Use instead
    Patch the project's own path accessor, which every OS goes through:
    ```python
    def test_saves_settings(monkeypatch, tmp_path):
        monkeypatch.setattr(app.paths, "user_config_path", lambda: tmp_path)
        app.save_settings({"theme": "dark"})
    ```
    (truegreen's hermetic environment already redirects platformdirs itself for every test.)

    ## Known problems
    "Uses platformdirs" means some module under the project's source imports it, and it is
    not one of the project's own packages (platformdirs' own tests set the variables to test
    its Unix answers); a project that reads `XDG_CONFIG_HOME` by hand as well gets the
    finding too.
    """

    code = "TG204"
    name = "setenv-platform-dir"
    nodes = (ast.Call, ast.Assign)
    calls = frozenset({"setenv", "update", "dict"})
    triggers = ("HOME", "APPDATA", "XDG_", "USERPROFILE")

    def begin(self) -> Iterator[Finding]:
        self._active = uses_platformdirs(self.ctx.project)
        return iter(())

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        if not self._active or self.ctx.function is None:
            return
        for name in self._variables(node):
            yield self.finding(
                node,
                f"setting {name} does not redirect platformdirs on Windows or macOS: patch "
                "the project's path accessor (e.g. app.paths.user_config_path) instead",
            )

    def _variables(self, node: ast.AST) -> list[str]:
        """The redirecting variables one statement or call sets."""
        ctx = self.ctx
        names: list[Optional[str]] = []
        if isinstance(node, ast.Assign):
            names = [
                string_value(target.slice)
                for target in node.targets
                if isinstance(target, ast.Subscript) and ctx.qualname(target.value) == "os.environ"
            ]
        elif isinstance(node, ast.Call):
            called = ctx.qualname(node.func) or ""
            mapping: Optional[ast.AST] = None
            if called.endswith(".setenv") and node.args:
                names = [string_value(node.args[0])]
            elif called == "os.environ.update":
                mapping = node.args[0] if node.args else None
                names = [kw.arg for kw in node.keywords]
            elif called.endswith("patch.dict") and len(node.args) > 1:
                first = node.args[0]
                if "os.environ" in (ctx.qualname(first), string_value(first)):
                    mapping = node.args[1]
                    names = [kw.arg for kw in node.keywords]
            if isinstance(mapping, ast.Dict):
                names += [string_value(key) for key in mapping.keys]
        return [name for name in names if name is not None and _redirects(name)]
