"""TG204 setenv-platform-dir."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

from truegreen.audit.base import Finding, Project, Rule, string_value
from truegreen.audit.scope import top_name

PLATFORM_DIR_VARIABLES = frozenset({"HOME", "USERPROFILE", "APPDATA", "LOCALAPPDATA"})
_RESOLVERS = re.compile(rb"^\s*(?:import|from)\s+(platformdirs|appdirs)\b", re.MULTILINE)
# Directories that hold a package's own tests, not its code.
_TEST_DIRS = frozenset({"tests", "test", "testing"})
# The calls on the environment that read a variable by name: ``os.environ.get("X")``,
# ``os.getenv("X")``, ``environ.setdefault("X", ...)``.
_ENVIRON_READS = frozenset({"get", "setdefault"})


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


def variables_read(project: Project) -> frozenset[str]:
    """The redirecting variables the project's own code (its packages' modules, not their
    tests) reads by name from the environment: ``os.environ["XDG_CONFIG_HOME"]``,
    ``os.environ.get(...)``, ``os.getenv(...)``. Setting one of those redirects the project
    wherever it runs, platformdirs or not."""
    if "platform_variables_read" not in project.facts:
        found: set[str] = set()
        for path in _own_modules(project):
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if (b"environ" not in data and b"getenv" not in data) or not any(
                name in data for name in (b"HOME", b"APPDATA", b"XDG_", b"USERPROFILE")
            ):
                continue
            try:
                tree = ast.parse(data)
            except (SyntaxError, ValueError):
                continue
            for node in ast.walk(tree):
                name = _read_by_name(node)
                if name is not None and _redirects(name):
                    found.add(name)
        project.facts["platform_variables_read"] = frozenset(found)
    names: frozenset[str] = project.facts["platform_variables_read"]
    return names


def _own_modules(project: Project) -> Iterator[Path]:
    """The project's own modules: under one of its packages, and not a test or conftest."""
    naming = project.naming
    for path in project.source_files():
        for root in project.source_roots:
            try:
                parts = path.relative_to(root).parts
            except ValueError:
                continue
            top = top_name(parts)
            if (
                top in project.packages
                and not _TEST_DIRS.intersection(parts[:-1])
                and path.name != "conftest.py"
                and not naming.test_file(path)
            ):
                yield path
            break


def _environ(node: ast.AST) -> bool:
    """``os.environ`` or ``environ``."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ"
    )


def _read_by_name(node: ast.AST) -> Optional[str]:
    """The variable a node reads from the environment by a literal name, if it does."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _environ(node.value):
        return string_value(node.slice)
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    if (isinstance(func, ast.Attribute) and func.attr == "getenv") or (
        isinstance(func, ast.Name) and func.id == "getenv"
    ):
        return string_value(node.args[0])
    if isinstance(func, ast.Attribute) and func.attr in _ENVIRON_READS and _environ(func.value):
        return string_value(node.args[0])
    return None


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
    see their real files, on exactly the machines the author did not run it on.

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
    its Unix answers). A variable the project's own code reads by name as well
    (`os.environ.get("XDG_CONFIG_HOME", "~/.config")`, `os.environ["HOME"]`, `os.getenv(...)`
    in a module of one of its packages, not in its tests) is not flagged: setting it does
    redirect that code on every OS. A name read through a variable, a helper or
    `os.path.expanduser` is not seen, so a test that sets `HOME` for code that only calls
    `expanduser("~")` is still flagged.
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
        read = variables_read(self.ctx.project)
        for name in self._variables(node):
            if name in read:  # the project reads it itself: setting it does redirect it
                continue
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
