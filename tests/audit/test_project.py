"""Finding the project: root, pytest options in every form, packages, and the audit table."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from truegreen.audit.project import discover_project
from truegreen.core.errors import ConfigError


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_it_reads_pyproject_ini_options_as_toml_values(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.pytest.ini_options]\naddopts = ["-ra"]\n'
          "xfail_strict = true\n")  # fmt: skip
    (tmp_path / "tests").mkdir()
    project = discover_project(tmp_path / "tests")
    assert project.root == tmp_path.resolve()
    assert project.pytest_config_file == tmp_path.resolve() / "pyproject.toml"
    assert dict(project.pytest_options) == {"addopts": ["-ra"], "xfail_strict": True}


def test_it_reads_pytest_9_native_table_beside_ini_options(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.pytest]\nstrict = true\n"
          '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')  # fmt: skip
    assert dict(discover_project(tmp_path).pytest_options) == {"strict": True,
                                                               "testpaths": ["tests"]}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pytest.ini", "[pytest]\nxfail_strict = true\naddopts = -ra\n  -q\n"),
        (".pytest.ini", "[pytest]\nxfail_strict = true\naddopts = -ra\n  -q\n"),
        ("tox.ini", "[tox]\nenvlist = py\n[pytest]\nxfail_strict = true\naddopts = -ra\n  -q\n"),
        (
            "setup.cfg",
            "[metadata]\nname = x\n[tool:pytest]\nxfail_strict = true\naddopts = -ra\n  -q\n",
        ),
    ],
)
def test_it_reads_ini_files_as_strings(tmp_path: Path, name: str, text: str) -> None:
    write(tmp_path / name, text)
    project = discover_project(tmp_path)
    assert project.pytest_config_file == tmp_path.resolve() / name
    assert dict(project.pytest_options) == {"xfail_strict": "true", "addopts": "-ra\n-q"}


def test_pytest_ini_wins_over_pyproject_in_the_same_directory(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.pytest.ini_options]\nxfail_strict = false\n")
    write(tmp_path / "pytest.ini", "[pytest]\nxfail_strict = true\n")
    assert discover_project(tmp_path).pytest_options == {"xfail_strict": "true"}


def test_a_tox_ini_without_a_pytest_section_is_passed_over(tmp_path: Path) -> None:
    write(tmp_path / "tox.ini", "[tox]\nenvlist = py\n")
    write(tmp_path / "sub" / "setup.cfg", "[metadata]\nname = x\n")
    write(tmp_path / "sub" / "pyproject.toml", "[project]\nname = 'x'\n")
    project = discover_project(tmp_path / "sub")
    assert (project.root, project.pytest_config_file) == (tmp_path.resolve() / "sub", None)


def test_without_pytest_options_the_truegreen_table_marks_the_root(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.truegreen.audit]\nignore = ["TG402"]\n')
    (tmp_path / "tests" / "unit").mkdir(parents=True)
    project = discover_project(tmp_path / "tests" / "unit")
    assert project.root == tmp_path.resolve()
    assert project.settings["ignore"] == ("TG402",)


def test_src_layout_packages_and_source_root(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[project]\nname = 'my-app'\n")
    write(tmp_path / "src" / "my_app" / "__init__.py", "")
    write(tmp_path / "src" / "helpers.py", "")
    write(tmp_path / "src" / "conftest.py", "")
    write(tmp_path / "src" / "__pycache__" / "helpers.cpython-311.pyc", "")
    write(tmp_path / "src" / "my_app.egg-info" / "PKG-INFO", "")
    project = discover_project(tmp_path)
    assert project.packages == frozenset({"my_app", "helpers"})
    assert project.source_roots == (tmp_path.resolve() / "src",)


def test_flat_layout_packages_with_the_project_name_as_a_hint(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[project]\nname = 'single-module'\n")
    write(tmp_path / "single_module.py", "")
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "tests" / "__init__.py", "")
    write(tmp_path / "setup.py", "")
    project = discover_project(tmp_path)
    assert project.packages == frozenset({"single_module", "pkg"})
    assert project.source_roots == (tmp_path.resolve(),)


def test_defaults_when_there_is_no_audit_table(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.truegreen]\nwrites = 'warn'\n")
    settings = discover_project(tmp_path).settings
    assert settings == {"select": None, "ignore": (), "per-file-ignores": {}, "exclude": (),
                        "seams": {}}  # fmt: skip


def test_it_reads_every_audit_key(tmp_path: Path) -> None:
    write(
        tmp_path / "pyproject.toml",
        """[tool.truegreen.audit]
select = ["ALL", "TG4"]
ignore = ["sleep-in-test"]
exclude = ["tests/fixtures"]
per-file-ignores = { "tests/legacy/*" = ["TG101", "TG0"] }
[tool.truegreen.audit.seams]
subprocess = ["src/app/proc.py"]
""",
    )
    settings = discover_project(tmp_path).settings
    assert settings == {
        "select": ("ALL", "TG4"),
        "ignore": ("sleep-in-test",),
        "per-file-ignores": {"tests/legacy/*": ("TG101", "TG0")},
        "exclude": ("tests/fixtures",),
        "seams": {"subprocess": ("src/app/proc.py",)},
    }


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('selct = ["TG4"]',
         r": expected a known key, found 'selct' \(did you mean 'select'\?\)"),
        ('select = "TG4"',
         r" select: expected a list of rule codes, code prefixes such as "
         r"'TG4', rule names, or 'ALL', found 'TG4' \(a string\)"),
        ('ignore = ["TG999"]',
         r" ignore: expected a list of rule codes.*found 'TG999'"),
        ('ignore = ["sleep-in-tset"]',
         r" ignore: .*found 'sleep-in-tset' \(did you mean 'sleep-in-test'\?\)"),
        ('exclude = "tests"',
         r" exclude: expected a list of path globs, found 'tests' "
         r"\(a string\)"),
        ('per-file-ignores = ["tests/*"]',
         r" per-file-ignores: expected a table of path glob -> a list of rule codes.*"
         r"found \['tests/\*'\] \(a list\)"),
        ('per-file-ignores = { "tests/*" = ["TG7"] }',
         r" per-file-ignores 'tests/\*': expected a list of rule codes.*found 'TG7'"),
        ("seams = { subprocess = 1 }",
         r" seams 'subprocess': expected a list of path globs, found 1 \(an integer\)"),
        ('seams = ["src"]',
         r" seams: expected a table of call family -> a list of path globs, found \['src'\]"),
    ],
)  # fmt: skip
def test_a_bad_audit_table_is_one_line_naming_file_key_expected_and_found(
    tmp_path: Path, table: str, message: str
) -> None:
    pyproject = write(tmp_path / "pyproject.toml", f"[tool.truegreen.audit]\n{table}\n")
    where = rf"^{pyproject}: \[tool.truegreen.audit\]"
    with pytest.raises(ConfigError, match=where + message) as raised:
        discover_project(tmp_path)
    assert "\n" not in str(raised.value)


def test_an_audit_key_that_is_not_a_table_is_one_line(tmp_path: Path) -> None:
    pyproject = write(tmp_path / "pyproject.toml", '[tool.truegreen]\naudit = "strict"\n')
    with pytest.raises(
        ConfigError, match=rf"^{pyproject}: \[tool.truegreen.audit\]: expected a table, found "
        r"'strict' \(a string\)$"
    ):  # fmt: skip
        discover_project(tmp_path)


def test_a_broken_ini_file_is_one_line(tmp_path: Path) -> None:
    ini = write(tmp_path / "tox.ini", "[pytest\nxfail_strict = true\n")
    with pytest.raises(ConfigError, match=rf"^{ini}: expected a valid ini file, found "):
        discover_project(tmp_path)


def test_the_pyproject_is_parsed_once_for_options_table_name_and_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib

    parsed: list[str] = []
    load = tomllib.load

    def counting(handle: Any) -> dict[str, Any]:
        parsed.append(handle.name)
        return load(handle)

    monkeypatch.setattr(tomllib, "load", counting)  # every reader of the shared module counts
    pyproject = write(tmp_path / "pyproject.toml", '[project]\nname = "app"\n'
                      "[tool.pytest.ini_options]\nxfail_strict = true\n"
                      "[tool.truegreen.audit]\nignore = []\n")  # fmt: skip
    write(tmp_path / "app" / "__init__.py", "")
    project = discover_project(tmp_path)
    assert dict(project.pytest_options) == {"xfail_strict": True}
    assert project.settings["ignore"] == ()
    assert project.toml(pyproject.resolve())["project"] == {"name": "app"}
    assert parsed == [str(pyproject.resolve())]
