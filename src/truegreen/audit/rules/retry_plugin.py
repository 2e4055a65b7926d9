"""TG403 retry-plugin."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import Any

from truegreen.audit.base import Finding, Project, Rule
from truegreen.audit.iniopts import addopts, config_line, config_path, entries, option_values
from truegreen.core.errors import ConfigError

PLUGINS = frozenset({"pytest-rerunfailures", "flaky", "pytest-flakefinder", "pytest-retry"})
# -p names that load one of them (``-p no:...`` turns one off and is fine).
PLUGIN_MODULES = frozenset(
    {"rerunfailures", "pytest_rerunfailures", "flaky", "flakefinder", "pytest_flakefinder",
     "pytest_retry", "retry"}
)  # fmt: skip
VALUED_FLAGS = ("--reruns", "--retries")  # 0 turns them off
SWITCHES = ("--flake-finder", "--force-flaky")
INI_KEYS = ("reruns", "retries")
MARKS = frozenset({"pytest.mark.flaky", "pytest.mark.rerun", "pytest.mark.retry"})
DECORATORS = frozenset({"flaky.flaky"})
_LAST_PARTS = frozenset(name.rsplit(".", 1)[1] for name in MARKS | DECORATORS)
FIX = "fix the flake instead: a test that passes on a retry has a bug a retry hides"


class RetryPlugin(Rule):
    """## What it does
    Flags a rerun or retry plugin configured for the project (`--reruns`, `--flake-finder`,
    `--force-flaky`, `--retries`, `-p rerunfailures` in `addopts`; the `reruns` and `retries`
    ini keys; `pytest-rerunfailures`, `flaky`, `pytest-flakefinder` or `pytest-retry` among the
    declared dependencies) and the marks that ask for one in tests (`@pytest.mark.flaky`,
    `@pytest.mark.rerun`, `@pytest.mark.retry`, `@flaky` from the `flaky` package).

    ## Why is this bad?
    A rerun turns a test that fails some of the time into a green run: the failure that
    reached the user is hidden from the people who could fix it, and the suite gets slower
    with every flake it absorbs. A flake is a bug, diagnosed and fixed
    deterministically; a red sample is recorded as a result, never rerun into a green one.

    ## Example
    ```toml
    [tool.pytest.ini_options]
    addopts = "--reruns 3"
    ```
    ```python
    @pytest.mark.flaky(reruns=2)
    def test_upload(server): ...
    ```

    ## Use instead
    Find the cause (`truegreen flakes` repeats, shuffles and bisects for a polluter), fix it,
    and remove the plugin. To see whether a file fails only sometimes, `truegreen run
    --isolate-files --retries 1` reports it as FLAKY with both outputs instead of hiding it.

    ## Known problems
    Dependencies are read from `pyproject.toml` (PEP 621 dependencies and extras, PEP 735
    dependency groups, Poetry, PDM and uv dev dependencies) and `requirements*.txt` files at
    the root or under `requirements/`; `tox.ini` and `setup.cfg` deps are not read. A retry
    configured only on the CI command line is not seen. `--reruns 0` and `-p no:...` are
    recognised as turning it off.
    """

    code = "TG403"
    name = "retry-plugin"
    nodes = (ast.Attribute, ast.Name)
    triggers = ("flaky", "rerun", "retry")  # the marks' and the decorator's names

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        # Every name and attribute comes here: look further only at the few spellings.
        last = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
        if last not in _LAST_PARTS and self.ctx.aliases.get(last) not in DECORATORS:
            return
        name = self.ctx.qualname(node)
        if name in MARKS:
            mark = name.rsplit(".", 1)[1]
            yield self.finding(node, f"pytest.mark.{mark} reruns a failing test: {FIX}")
        elif name in DECORATORS and not isinstance(getattr(node, "ctx", None), ast.Store):
            yield self.finding(node, f"flaky (the flaky package) reruns a failing test: {FIX}")

    @classmethod
    def check_project(cls, project: Project) -> Iterator[Finding]:
        where = config_path(project)
        words = addopts(project)
        for flag in VALUED_FLAGS:
            for value in option_values(words, flag):
                if value.strip() not in ("0", ""):
                    yield cls.project_finding(
                        where,
                        config_line(project, "addopts", flag),
                        f"addopts reruns failing tests ({flag} {value}): {FIX}",
                    )
        for switch in SWITCHES:
            if switch in words:
                yield cls.project_finding(
                    where,
                    config_line(project, "addopts", switch),
                    f"addopts reruns tests ({switch}): {FIX}",
                )
        for value in option_values(words, "-p"):
            if value in PLUGIN_MODULES:
                yield cls.project_finding(
                    where,
                    config_line(project, "addopts", value),
                    f"addopts loads a retry plugin (-p {value}): {FIX}",
                )
        for key in INI_KEYS:
            values = entries(project.pytest_options.get(key))
            if values and values[0] not in ("0", ""):
                yield cls.project_finding(
                    where,
                    config_line(project, key),
                    f"{key} = {values[0]} reruns failing tests: {FIX}",
                )
        for path, line, plugin in declared(project):
            yield cls.project_finding(path, line, f"declares the retry plugin {plugin}: {FIX}")


def normalise(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def declared(project: Project) -> Iterator[tuple[str, int, str]]:
    """(file, line, plugin) for every retry plugin the project's dependency files declare."""
    root = project.root
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = project.toml(pyproject)
        except ConfigError:
            data = {}
        names = {normalise(n) for n in _requirement_names(data)} & PLUGINS
        lines = pyproject.read_text(encoding="utf-8", errors="replace").splitlines()
        for plugin in sorted(names):
            yield "pyproject.toml", _line_of(lines, plugin), plugin
    files = sorted({*root.glob("*requirements*.txt"), *root.glob("requirements/*.txt"),
                    *root.glob("requirements/*.in")})  # fmt: skip
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, raw in enumerate(text.splitlines(), 1):
            match = _NAME.match(raw.split("#", 1)[0])
            if match and normalise(match.group(1)) in PLUGINS:
                yield path.relative_to(root).as_posix(), number, normalise(match.group(1))


def _requirement_names(data: dict[str, Any]) -> Iterator[str]:
    """Distribution names from PEP 621, PEP 735, Poetry, PDM and uv tables."""
    project = data.get("project", {})
    tool = data.get("tool", {})
    poetry = tool.get("poetry", {})
    lists: list[Any] = [project.get("dependencies", []),
                        *project.get("optional-dependencies", {}).values(),
                        *data.get("dependency-groups", {}).values(),
                        *tool.get("pdm", {}).get("dev-dependencies", {}).values(),
                        tool.get("uv", {}).get("dev-dependencies", [])]  # fmt: skip
    for requirements in lists:
        for requirement in requirements if isinstance(requirements, list) else ():
            match = _NAME.match(requirement) if isinstance(requirement, str) else None
            if match:
                yield match.group(1)
    tables = [poetry.get("dependencies", {}), poetry.get("dev-dependencies", {}),
              *(g.get("dependencies", {}) for g in poetry.get("group", {}).values())]  # fmt: skip
    for table in tables:
        yield from table if isinstance(table, dict) else ()


def _line_of(lines: list[str], plugin: str) -> int:
    spelled = "[-_.]".join(re.escape(part) for part in plugin.split("-"))
    pattern = re.compile(rf"(?:^\s*|[\"'])({spelled})(?![\w.-])", re.I)
    return next((n for n, line in enumerate(lines, 1) if pattern.search(line)), 1)
