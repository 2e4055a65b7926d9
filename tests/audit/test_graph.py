"""The project's import graph: definitions, re-exports and `from` importers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.rules.harness import project
from truegreen.audit import graph
from truegreen.audit.base import Project


def make(root: Path, files: dict[str, str]) -> Project:
    for relpath, text in files.items():
        path = root / "src" / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return Project(root=root, packages=frozenset({"app"}), source_roots=(root / "src",))


@pytest.mark.parametrize(
    ("module", "level", "package", "expected"),
    [
        ("llm", 2, "agent.research", "agent.llm"),
        ("", 1, "agent.research", "agent.research"),
        ("x", 0, "agent", "x"),
        ("loop", 1, "agent.research", "agent.research.loop"),
    ],
)
def test_it_makes_relative_imports_absolute(
    module: str, level: int, package: str, expected: str
) -> None:
    assert graph.absolute(module, level, package) == expected


def test_it_resolves_a_re_export_to_its_definition() -> None:
    modules = graph.graph(project("TG201"))
    found = modules.resolve("agent", "LLMClient")
    assert found is not None
    assert (found[0].name, found[1]) == ("agent.llm", "LLMClient")


def test_it_lists_every_module_that_bound_a_name_by_from() -> None:
    importers = graph.graph(project("TG201")).importers("agent.llm", "LLMClient")
    expected = [
        ("agent", "LLMClient"),
        ("agent.cli", "LLMClient"),
        ("agent.research.loop", "LLMClient"),
    ]
    assert importers == expected


def test_it_follows_a_re_export_under_another_name(tmp_path: Path) -> None:
    files = {
        "app/__init__.py": "",
        "app/base.py": "def connect():\n    return 1\n",
        "app/api.py": "from app.base import connect as open_connection\n",
        "app/cli.py": "from app.api import open_connection\n",
    }
    modules = graph.graph(make(tmp_path, files))
    expected = [("app.api", "open_connection"), ("app.cli", "open_connection")]
    assert modules.importers("app.base", "connect") == expected


def test_it_reads_imports_under_if_and_try(tmp_path: Path) -> None:
    files = {
        "app/__init__.py": "",
        "app/base.py": "def connect():\n    return 1\n",
        "app/api.py": "try:\n    from app.base import connect\nexcept ImportError:\n    pass\n",
    }
    modules = graph.graph(make(tmp_path, files))
    assert modules.importers("app.base", "connect") == [("app.api", "connect")]


def test_it_finds_readers_of_the_module_attribute(tmp_path: Path) -> None:
    files = {
        "app/__init__.py": "",
        "app/base.py": "def connect():\n    return 1\n",
        "app/api.py": "import app.base\n\n\ndef go():\n    return app.base.connect()\n",
        "app/cli.py": "from app import base\n\n\ndef go():\n    return base.connect()\n",
    }
    modules = graph.graph(make(tmp_path, files))
    assert modules.attribute_readers("app.base", "connect") == {"app.api", "app.cli"}


def test_it_lists_the_project_modules(tmp_path: Path) -> None:
    files = {"app/__init__.py": "", "app/sub/__init__.py": "", "app/sub/deep.py": ""}
    modules = graph.graph(make(tmp_path, files))
    assert [name for name, _ in modules.files()] == ["app", "app.sub", "app.sub.deep"]


def test_it_builds_one_graph_per_project_object(tmp_path: Path) -> None:
    first = make(tmp_path, {"app/__init__.py": ""})
    same_root = Project(root=tmp_path, packages=frozenset({"app"}))
    assert graph.graph(first) is graph.graph(first)
    assert graph.graph(same_root) is not graph.graph(first)


def test_it_knows_nothing_outside_the_project(tmp_path: Path) -> None:
    """Ablation: replace `self.project.owns(name)` with `True` in `src/truegreen/audit/graph.py`."""
    files = {"app/__init__.py": "", "vendored/__init__.py": "X = 1\n"}
    project_ = make(tmp_path, files)
    assert (tmp_path / "src" / "vendored" / "__init__.py").is_file()  # premise
    assert graph.graph(project_).module("vendored") is None
