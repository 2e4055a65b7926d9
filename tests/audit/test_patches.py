"""Patch targets as the patching calls name them."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Optional

import pytest

from truegreen.audit import patches
from truegreen.audit.base import FileContext, Project

IMPORTS = "from unittest import mock\nimport unittest.mock\nfrom app import db\nimport app.db\n"


def target_of(call: str, tmp_path: Path) -> Optional[tuple[str, str, bool]]:
    tree = ast.parse(IMPORTS + call)
    ctx = FileContext(Project(tmp_path), tmp_path / "test_x.py", "test_x.py", "", tree)
    for node in tree.body[:4]:
        assert isinstance(node, (ast.Import, ast.ImportFrom))
        ctx.record_import(node)
    expression = tree.body[-1]
    assert isinstance(expression, ast.Expr)
    assert isinstance(expression.value, ast.Call)
    found = patches.target(ctx, expression.value)
    return None if found is None else (found.owner, found.attribute, found.by_object)


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ('mock.patch("app.db.connect")', ("app.db", "connect", False)),
        ('unittest.mock.patch(target="app.db.connect")', ("app.db", "connect", False)),
        ('mocker.patch("app.db.Store.save")', ("app.db.Store", "save", False)),
        ('session_mocker.patch("app.db.connect")', ("app.db", "connect", False)),
        ('mock.patch.object(db, "connect")', ("app.db", "connect", True)),
        ('mocker.patch.object(app.db, "connect", autospec=True)', ("app.db", "connect", True)),
        ('monkeypatch.setattr("app.db.connect", lambda: 1)', ("app.db", "connect", False)),
        ('monkeypatch.setattr(db, "connect", lambda: 1)', ("app.db", "connect", True)),
        ('monkeypatch.delattr(db, "_cache")', ("app.db", "_cache", True)),
        ('monkeypatch.setattr(db, name="connect", value=1)', ("app.db", "connect", True)),
    ],
)
def test_it_reads_the_target_of_each_patching_form(
    call: str, expected: tuple[str, str, bool], tmp_path: Path
) -> None:
    assert target_of(call, tmp_path) == expected


@pytest.mark.parametrize(
    "call",
    [
        "mock.patch(name)",
        'mock.patch("connect")',
        'mock.patch.dict("os.environ", {})',
        'monkeypatch.setenv("HOME", "/tmp")',
        'mock.patch.object(make(), "connect")',
        'print("app.db.connect")',
    ],
)
def test_it_names_no_target_it_cannot_read_statically(call: str, tmp_path: Path) -> None:
    """Ablation: replace `"." not in dotted` with `False` in `src/truegreen/audit/patches.py`."""
    assert target_of('mock.patch("app.db.connect")', tmp_path) is not None  # premise
    assert target_of(call, tmp_path) is None
