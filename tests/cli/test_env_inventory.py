"""truegreen env-inventory: every variable the source reads, judged by the plugin's own seal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from truegreen.cli import main

PYPROJECT = """\
[project]
name = "app"

[tool.truegreen]
clear-env = ["APP_CLEARED"]
clear-env-prefixes = ["SVC_"]
set-env = {APP_SET = "1"}
keep-env = ["APP_KEPT"]
"""
CONFIG = """\
import os
import subprocess
from os import environ
from os import getenv as ge

NAME = "APP_CONST"


def read(key):
    a = os.environ["APP_SUBSCRIPT"]
    b = os.environ.get("APP_GET", "")
    c = os.getenv("APP_GETENV")
    d = "APP_IN" in os.environ
    e = environ.get("APP_FROM_ENVIRON")
    f = ge("APP_CLEARED")
    g = os.environ.get(NAME)
    h = os.environ.get(key)
    os.environ["APP_WRITTEN"] = "x"
    return a, b, c, d, e, f, g, h


def spawn():
    env = os.environ.copy()
    env["APP_CHILD"] = "1"
    subprocess.run(["prog"], env=env)
    subprocess.run(["prog"], env=dict(os.environ))
"""
SETTINGS = """\
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="svc_")
    host: str = "localhost"


class Legacy(BaseSettings):
    debug: bool = False

    class Config:
        env_prefix = "LEGACY_"
"""
TEST = """\
import os


def test_reads():
    assert os.environ["HOME"]
    assert os.environ.get("TZ") is not None
    assert os.environ.get("AWS_PROFILE") is None
    assert os.environ.get("APP_SET") == "1"
    assert "APP_KEPT" not in os.environ
"""
SITE = 'import os\n\nDEP = os.environ.get("DEP_ONLY")\n'
SITE_PACKAGES = "vendor/lib/python3.12/site-packages/dep/__init__.py"
EXPECTED = {
    "APP_CONST": "uncovered",
    "APP_FROM_ENVIRON": "uncovered",
    "APP_GET": "uncovered",
    "APP_GETENV": "uncovered",
    "APP_IN": "uncovered",
    "APP_SUBSCRIPT": "uncovered",
    "LEGACY_": "uncovered",
    "LEGACY_DEBUG": "uncovered",
    "APP_CLEARED": "cleared",
    "SVC_": "cleared",
    "SVC_HOST": "cleared",
    "APP_SET": "set",
    "APP_KEPT": "kept",
    "AWS_PROFILE": "sealed",
    "HOME": "sealed",
    "TZ": "sealed",
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    files = {
        "pyproject.toml": PYPROJECT,
        "src/app/__init__.py": "",
        "src/app/config.py": CONFIG,
        "src/app/settings.py": SETTINGS,
        "tests/test_app.py": TEST,
        SITE_PACKAGES: SITE,
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def inventory(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    status = main(["env-inventory", "--format", "json", *args])
    return status, json.loads(capsys.readouterr().out)


def verdicts(document: dict[str, Any]) -> dict[str, str]:
    return {v["name"]: v["verdict"] for v in document["variables"]}


def test_every_way_of_reading_is_found_and_judged(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, document = inventory(capsys)
    assert status == 1
    assert verdicts(document) == EXPECTED
    assert document["format"] == 1
    assert document["files"] == 4
    by_name = {v["name"]: v for v in document["variables"]}
    assert by_name["APP_GETENV"]["sites"] == [
        {"path": "src/app/config.py", "line": 12, "how": "os.getenv()"}
    ]
    assert by_name["APP_CLEARED"]["reason"] == "declared (clear-env)"
    assert by_name["SVC_"]["kind"] == "prefix"
    assert by_name["SVC_"]["reason"] == "declared (clear-env-prefixes SVC_)"
    assert by_name["AWS_PROFILE"]["reason"] == "credentials (AWS)"
    assert by_name["HOME"]["reason"] == "set by the seal"
    assert document["computed"] == [
        {"path": "src/app/config.py", "line": 17, "how": "os.environ.get()", "expression": "key"}
    ]
    assert [(w["line"], w["env"]) for w in document["whole_environment"]] == [
        (25, "env"),
        (26, "dict(os.environ)"),
    ]
    assert document["uncovered"] == [n for n, v in EXPECTED.items() if v == "uncovered"]


def test_the_text_report_puts_what_is_not_covered_first_with_a_snippet(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["env-inventory"])
    out = capsys.readouterr().out
    assert status == 1
    assert out.startswith(
        "truegreen env-inventory: 16 variables read in 4 files; 8 not covered by the seal\n\n"
        "not covered: the tests see these as the machine that runs them has them (8):\n"
        "  APP_CONST: src/app/config.py:16\n"
    )
    assert out.index("not covered") < out.index("cleared (clear-env") < out.index("sealed by")
    assert "  LEGACY_* (prefix): src/app/settings.py:9 (settings class Legacy, env_prefix)\n" in out
    assert (
        '  clear-env = ["APP_CLEARED", "APP_CONST", "APP_FROM_ENVIRON", "APP_GET", "APP_GETENV", '
        '"APP_IN", "APP_SUBSCRIPT"]\n'
        '  clear-env-prefixes = ["SVC_", "LEGACY_"]\n'
    ) in out
    assert "the whole environment, passed to a child at src/app/config.py:25" in out


def test_covering_every_variable_exits_clean(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    uncovered = [n for n, v in EXPECTED.items() if v == "uncovered" and not n.endswith("_")]
    status, document = inventory(
        capsys,
        "--set", f"clear-env={','.join(['APP_CLEARED', *uncovered])}",
        "--set", "clear-env-prefixes=SVC_,LEGACY_",
    )  # fmt: skip
    assert (status, document["uncovered"]) == (0, [])
    assert verdicts(document)["LEGACY_DEBUG"] == "cleared"


def test_a_declared_variable_is_not_reported_uncovered(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A variable clear-env names, read in the source, is judged cleared, not uncovered.

    Ablation: replace `self.seal.reason(name)` with `None` in
    `src/truegreen/core/envinventory.py`."""
    assert 'ge("APP_CLEARED")' in (project / "src/app/config.py").read_text()  # premise: read
    _, document = inventory(capsys)
    assert verdicts(document)["APP_CLEARED"] == "cleared"
    assert "APP_CLEARED" not in document["uncovered"]


def test_a_kept_variable_is_not_reported_uncovered(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """keep-env is a decision: a kept variable the seal would not touch is covered.

    Ablation: replace `name in self.config.keep_env` with `False` in
    `src/truegreen/core/envinventory.py`."""
    assert '"APP_KEPT" not in os.environ' in (project / "tests/test_app.py").read_text()
    _, document = inventory(capsys)
    assert verdicts(document)["APP_KEPT"] == "kept"
    assert "APP_KEPT" not in document["uncovered"]


def test_a_variable_read_only_in_site_packages_is_not_listed(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Installed code is not the project's: under PATHS given, site-packages is not read.

    Ablation: replace `"site-packages"` with `"dist"` in `src/truegreen/audit/run.py`."""
    # premise: the inventory reads that variable when handed the file itself
    status, document = inventory(capsys, SITE_PACKAGES)
    assert (status, verdicts(document)) == (1, {"DEP_ONLY": "uncovered"})
    _, document = inventory(capsys, ".")
    assert "DEP_ONLY" not in verdicts(document)
    assert document["files"] == 4


def test_a_write_is_not_a_read(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``os.environ["X"] = ...`` and a copy's ``env["X"] = ...`` set a variable: not listed.

    Ablation: replace `isinstance(node.ctx, ast.Load) and self.environment(node.value)` with
    `self.environment(node.value)` in `src/truegreen/audit/envreads.py`."""
    source = (project / "src/app/config.py").read_text()
    assert 'os.environ["APP_WRITTEN"] = "x"' in source
    assert 'env["APP_CHILD"] = "1"' in source
    _, document = inventory(capsys)
    assert not {"APP_WRITTEN", "APP_CHILD"} & set(verdicts(document))


def test_a_file_that_does_not_parse_is_one_line_and_skipped(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "src/app/broken.py").write_text("def broken(:\n", encoding="utf-8")
    assert main(["env-inventory", "--format", "json"]) == 1
    captured = capsys.readouterr()
    assert captured.err == (
        "truegreen: env-inventory: skipped src/app/broken.py: "
        "does not parse (invalid syntax, line 1)\n"
    )
    document = json.loads(captured.out)
    assert verdicts(document) == EXPECTED
    assert document["skipped"] == [
        {"path": "src/app/broken.py", "why": "does not parse (invalid syntax, line 1)"}
    ]


def test_hermetic_off_covers_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, document = inventory(capsys, "--set", "hermetic=false")
    assert status == 1
    assert set(verdicts(document).values()) == {"uncovered"}
    assert document["suggested"] == "[tool.truegreen]\nhermetic = true"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing"], "truegreen: error: expected PATHS to be readable files or directories, "
                      "found 'missing' (no such file or directory)\n"),
        (["--set", "clear-env"], "truegreen: error: --set: expected KEY=VALUE, found "
                                 "'clear-env'\n"),
    ],
)  # fmt: skip
def test_usage_errors_are_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["env-inventory", *args]) == 2
    assert capsys.readouterr().err == message


def test_a_bad_table_is_one_line_naming_the_file(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text('[tool.truegreen]\nclear-env = "APP_X"\n')
    assert main(["env-inventory"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "pyproject.toml: [tool.truegreen] clear-env" in err


def test_the_verb_in_a_real_process(project: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", "env-inventory", "--format", "json"],
        cwd=project, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (1, "")
    assert verdicts(json.loads(done.stdout)) == EXPECTED
