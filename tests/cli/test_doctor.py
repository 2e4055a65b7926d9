"""truegreen doctor: effective values with their layers, names never values, what is wrong."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from truegreen.cli import main

CANARY = "tg-canary-d0c70r"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.truegreen]\nclear-env-prefixes = ["MYAPP_"]\ntimezone = "Europe/Paris"\n'
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_each_key_shows_its_value_and_layer(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TRUEGREEN_TERM", "xterm")
    status = main(["doctor", "--set", "locale=false"])
    out = capsys.readouterr().out
    assert status == 0, out
    rows = {line.split()[0]: line.split(None, 2)[1:] for line in out.splitlines() if line}
    assert rows["timezone"] == ['"Europe/Paris"', str(project / "pyproject.toml")]
    assert rows["clear-env-prefixes"] == ['["MYAPP_"]', str(project / "pyproject.toml")]
    assert rows["term"] == ['"xterm"', "TRUEGREEN_TERM"]
    assert rows["locale"] == ["false", "--set locale=..."]
    assert rows["hermetic"] == ["true", "default"]
    assert rows["set-env"] == ["{}", "default"]
    assert f"configuration: {project / 'pyproject.toml'}" in out
    assert "plugin: active" in out


def test_it_shows_the_mode_of_each_place_and_where_it_came_from(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TRUEGREEN_WRITES", "warn")
    assert main(["doctor", "--set", "home-writes=block"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split(None, 2)[1:] for line in out.splitlines() if line}
    assert rows["home-writes"] == ['"block"', "--set home-writes=..."]
    assert rows["tree-writes"] == ['"warn"', "TRUEGREEN_WRITES (writes)"]
    assert rows["reads"] == ['"warn"', "default"]
    assert (
        "guards: writes under the real home block, into the project tree warn; "
        "reads outside the sandbox warn; network owned"
    ) in out


def test_it_names_the_variables_the_seal_removes_and_never_their_values(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MYAPP_URL", CANARY)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", CANARY)
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "  declared (clear-env-prefixes MYAPP_): MYAPP_URL" in out
    assert "  credentials (model providers): OPENAI_API_KEY" in out
    assert "  git: GIT_AUTHOR_EMAIL" in out
    assert CANARY not in out


def test_json_carries_the_same_facts(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MYAPP_URL", CANARY)
    assert main(["doctor", "--format", "json"]) == 0
    out = capsys.readouterr().out
    document = json.loads(out)
    assert document["format"] == 1
    assert document["keys"]["timezone"] == {
        "value": "Europe/Paris",
        "layer": str(project / "pyproject.toml"),
    }
    assert document["removes"]["declared (clear-env-prefixes MYAPP_)"] == ["MYAPP_URL"]
    assert "HOME" in document["sets"]
    assert document["layers"] == {"process": True, "test": True}
    assert document["problems"] == []
    assert CANARY not in out


def test_doctor_says_which_seal_layer_is_on(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `active and settings.hermetic` with `active` in
    `src/truegreen/cli/doctor.py`: hermetic = false still shows both layers on."""
    main(["doctor"])
    assert "the whole process (from before the first conftest): on" in capsys.readouterr().out
    monkeypatch.setenv("TRUEGREEN_HERMETIC", "0")
    main(["doctor", "--format", "json"])
    assert json.loads(capsys.readouterr().out)["layers"] == {"process": False, "test": False}


@pytest.mark.parametrize(
    ("setup", "problem"),
    [
        (
            {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
            "the plugin will not run: "
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD is set: pass -p truegreen to load it",
        ),
        ({"PYTEST_ADDOPTS": "-p no:truegreen"}, "the plugin will not run: -p no:truegreen"),
        (
            {"TRUEGREEN_ENABLED": "0"},
            "the plugin will not run: enabled = false (from TRUEGREEN_ENABLED)",
        ),
        ({"TRUEGREEN_HERMETIC": "no"}, "hermetic = false: tests run in the ambient environment"),
        (
            {"TRUEGREEN_TIMEZONE": "Mars/Olympus_Mons"},
            "timezone 'Mars/Olympus_Mons' is not a zone this machine knows",
        ),
        ({"TRUEGREEN_LOCALE": "xx_XX.UTF-8"}, "locale 'xx_XX.UTF-8' is not installed here"),
        (
            {"TRUEGREEN_KEEP_ENV": "A", "TRUEGREEN_CLEAR_ENV": "A"},
            "in both keep-env and clear-env (keep-env wins): A",
        ),
        (
            {"TRUEGREEN_RESET_CACHES": "nosuch.module:clear"},
            "reset-caches: 'nosuch.module:clear' cannot be resolved (ModuleNotFoundError",
        ),
    ],
)
def test_it_reports_what_it_knows_to_be_wrong_and_exits_1(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    setup: dict[str, str],
    problem: str,
) -> None:
    for name, value in setup.items():
        monkeypatch.setenv(name, value)
    assert main(["doctor"]) == 1
    assert f"  - {problem}" in capsys.readouterr().out


def test_the_pytest_addopts_of_the_project_count(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with (project / "pyproject.toml").open("a") as handle:
        handle.write('[tool.pytest.ini_options]\naddopts = "-p no:truegreen"\n')
    assert main(["doctor"]) == 1
    assert "the plugin will not run: -p no:truegreen" in capsys.readouterr().out


def test_a_bad_configuration_is_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text("[tool.truegreen]\nkeep-env = 'GH_TOKEN'\n")
    assert main(["doctor"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"truegreen: error: {project / 'pyproject.toml'}: [tool.truegreen] keep-env: "
        "expected a list of variable names, found 'GH_TOKEN' (a string)\n"
    )


def test_broken_toml_is_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text("[tool.truegreen\n")
    assert main(["doctor"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"truegreen: error: {project / 'pyproject.toml'}: expected valid TOML")
    assert err.count("\n") == 1


def test_it_runs_as_a_real_command(project: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", "doctor", "--format", "json"],
        capture_output=True,
        text=True,
        cwd=project,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["plugin"]["active"] is True


def test_it_names_the_plugins_beside_it_and_who_decides(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from truegreen.cli import doctor

    installed = {"truegreen": "truegreen.plugin", "socket": "pytest_socket", "env": "pytest_env"}
    monkeypatch.setattr(doctor, "installed_plugins", lambda: installed)
    monkeypatch.setenv("PYTEST_ADDOPTS", "--disable-socket")
    assert main(["doctor", "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert [entry["plugin"] for entry in document["beside"]] == ["pytest-socket", "pytest-env"]
    assert document["problems"] == [document["beside"][0]["says"]]
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:socket")
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "other plugins that do part of truegreen's work:\n  - pytest-env sets" in out
    assert "pytest-socket" not in out
