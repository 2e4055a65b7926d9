"""truegreen docs-check over fixture trees, over our own docs, and as a real command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from truegreen.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent

CLEAN = {
    "README.md": (
        "# Project\nSee [the guide](docs/guide.md#getting-started), ![logo](docs/logo.svg).\n"
    ),
    "docs/guide.md": "# Guide\n## Getting started\n[Back](../README.md#project) [down](#guide)\n",
    "docs/logo.svg": "<svg/>\n",
    ".venv/lib/site.md": "[broken](nowhere.md)\n",
    "node_modules/pkg/README.md": "[broken](nowhere.md)\n",
}
BROKEN = {
    **CLEAN,
    "docs/faq.md": "# FAQ\n\n[old](old.md)\n\n[gone](guide.md#installing)\n",
}


def plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_a_clean_tree_reports_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `name in SKIP_DIRS` with `False` in `src/truegreen/cli/docs_check.py`."""
    monkeypatch.chdir(plant(tmp_path, CLEAN))
    assert (tmp_path / "node_modules/pkg/README.md").is_file()  # premise: a broken page is there
    assert main(["docs-check"]) == 0
    assert (
        capsys.readouterr().out == "docs-check: every relative link resolves in 2 Markdown files\n"
    )


def test_each_broken_link_is_named_with_its_file_line_and_what_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(plant(tmp_path, BROKEN))
    assert main(["docs-check"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "docs/faq.md:3: broken link 'old.md': no such file: docs/old.md",
        "docs/faq.md:5: broken link 'guide.md#installing': no heading or anchor #installing"
        " in docs/guide.md",
        "docs-check: 2 broken links in 3 Markdown files",
    ]


def test_paths_narrow_the_check_and_json_carries_a_format_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(plant(tmp_path, BROKEN))
    assert main(["docs-check", "docs/faq.md", "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out) == {
        "format": 1,
        "files": 1,
        "broken": [
            {"path": "docs/faq.md", "line": 3, "target": "old.md",
             "problem": "no such file: docs/old.md"},
            {"path": "docs/faq.md", "line": 5, "target": "guide.md#installing",
             "problem": "no heading or anchor #installing in docs/guide.md"},
        ],
    }  # fmt: skip


def test_our_own_docs_and_readme_are_clean(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["docs-check"]) == 0
    assert "every relative link resolves" in capsys.readouterr().out


def test_a_missing_path_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["docs-check", "nope"]) == 2
    assert capsys.readouterr().err == (
        "truegreen: error: docs-check: expected a readable Markdown file or a directory, found "
        "'nope' (no such file or directory); PATHS default to the working directory\n"
    )


def test_a_file_that_is_not_markdown_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(plant(tmp_path, {"notes.txt": "[x](y.md)\n"}))
    assert main(["docs-check", "notes.txt"]) == 2
    assert capsys.readouterr().err == (
        "truegreen: error: docs-check: expected a Markdown file (.md) or a directory, "
        "found 'notes.txt'\n"
    )


def test_a_real_command_exits_1_on_a_broken_tree(tmp_path: Path) -> None:
    plant(tmp_path, BROKEN)
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", "docs-check"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.splitlines()[-1] == "docs-check: 2 broken links in 3 Markdown files"
