"""What the published package declares: its classifiers, and the hooks it offers pre-commit."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _project() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        project: dict[str, object] = tomllib.load(handle)["project"]
    return project


def test_the_classifiers_name_pytest_typing_and_every_python_from_the_floor_up() -> None:
    project = _project()
    classifiers = project["classifiers"]
    assert isinstance(classifiers, list)
    assert {"Framework :: Pytest", "Typing :: Typed"} <= set(classifiers)
    floor = re.fullmatch(r">=3\.(\d+)", str(project["requires-python"]))
    assert floor is not None
    versions = [c.rsplit(".", 1)[-1] for c in classifiers if re.fullmatch(r".*:: 3\.\d+", c)]
    assert versions == [str(minor) for minor in range(int(floor.group(1)), 15)]


def test_the_license_is_an_expression_with_its_file_and_no_classifier() -> None:
    """PEP 639: a License classifier beside a license expression is an error for some tools."""
    project = _project()
    classifiers = project["classifiers"]
    assert isinstance(classifiers, list)
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert [c for c in classifiers if c.startswith("License ::")] == []


def test_the_pre_commit_hooks_run_the_audit_the_record_check_and_the_docs_check() -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    hooks = [
        dict(re.findall(r"^\s+(\w+): (.+)$", "  " + block, re.M))
        for block in re.split(r"^- ", text, flags=re.M)[1:]
    ]
    actual = [(h["id"], h["entry"], h["language"], h["types"]) for h in hooks]
    assert actual == [
        ("truegreen-audit", "truegreen audit", "python", "[python]"),
        ("truegreen-docs-check", "truegreen docs-check", "python", "[markdown]"),
        ("truegreen-ablate-check", "truegreen ablate --check --records", "python", "[python]"),
    ]
    # the record check reads every test file whatever changed: a record goes stale when the
    # code it names changes
    assert hooks[2]["pass_filenames"] == "false"
