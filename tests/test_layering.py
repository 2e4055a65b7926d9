"""The package's layers: dependencies point inward, and the rule is checked, not hoped for.

``cli -> runner -> core/guards`` and ``plugin -> core/guards``; ``runner`` and ``plugin``
never import each other; nothing imports ``cli``; ``core`` imports nothing of the rest and
neither pytest nor subprocess. Imports under ``TYPE_CHECKING`` and inside functions count:
they are dependencies all the same. docs/architecture.md describes the same table.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import truegreen

PACKAGE = Path(truegreen.__file__).parent
# package -> the truegreen packages it may import (besides itself)
ALLOWED = {
    "core": set(),
    "guards": {"core"},
    "audit": {"core"},
    "plugin": {"core", "guards"},
    "runner": {"core", "guards"},
    "demo": {"core", "guards", "runner"},
    "cli": {"core", "guards", "runner", "audit", "demo"},
}
# third-party or standard modules a package must not import at all
FORBIDDEN = {
    "core": {"pytest", "_pytest", "subprocess"},
    "guards": {"pytest", "_pytest"},
    "audit": {"pytest", "_pytest", "subprocess"},
    "cli": {"pytest", "_pytest", "subprocess"},
}


def imports(path: Path) -> set[str]:
    """Every module name ``path`` imports, wherever in the file the import stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def breaches(package: str, names: set[str]) -> set[str]:
    """The imports of a module of ``package`` that break the layering."""
    wrong = set()
    for name in names:
        parts = name.split(".")
        if parts[0] == "truegreen" and len(parts) > 1 and (PACKAGE / parts[1]).is_dir():
            if parts[1] != package and parts[1] not in ALLOWED[package]:
                wrong.add(name)
        elif parts[0] in FORBIDDEN.get(package, set()):
            wrong.add(name)
    return wrong


def modules() -> list[str]:
    """Every module of the package, relative to it (the same ids wherever it is installed)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).parts
        if len(parts) > 1 and parts[:2] != ("demo", "sample"):  # the sample is the user's code
            found.append("/".join(parts))
    return found


def test_every_package_of_truegreen_has_its_row() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(ALLOWED)


@pytest.mark.parametrize("module", modules())
def test_each_module_imports_only_what_its_layer_allows(module: str) -> None:
    package = module.split("/", 1)[0]
    assert breaches(package, imports(PACKAGE / module)) == set()


def test_a_breach_is_seen_wherever_the_import_stands(tmp_path: Path) -> None:
    """The check itself can fail: a plugin module importing the runner inside a function, a
    runner module importing the plugin under TYPE_CHECKING, core importing subprocess.

    Ablation: replace `parts[1] not in ALLOWED[package]` with `False` in
    `tests/test_layering.py`."""
    source = tmp_path / "mod.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from truegreen.plugin.guards import GuardsPlugin\n"
        "def f():\n    import truegreen.runner.process\n    import subprocess\n"
    )
    names = imports(source)
    assert breaches("plugin", names) == {"truegreen.runner.process"}
    assert breaches("runner", names) == {
        "truegreen.plugin.guards",
        "truegreen.plugin.guards.GuardsPlugin",
    }
    assert breaches("core", names) == {
        "truegreen.plugin.guards",
        "truegreen.plugin.guards.GuardsPlugin",
        "truegreen.runner.process",
        "subprocess",
    }
