"""What the audit reads: pytest's own configuration decides what is a test, which files pytest
would collect or import are audited, and the rest is skipped and counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from truegreen.audit import report
from truegreen.audit.project import discover_project
from truegreen.audit.run import Report, audit
from truegreen.core.errors import UsageError

SLEEPS = "import time\n\n\ndef {name}():\n    time.sleep(1)\n    assert time.time()\n"
BROKEN = "def render({{ name }}):\n    return {{ body }}\n"  # a template kept as test data
CLEAN = "def test_ok():\n    assert 1\n"


def make(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def run(root: Path, *paths: Path, select: tuple[str, ...] = ("TG402",)) -> Report:
    return audit(discover_project(root), list(paths), select=list(select))


def found(root: Path, *paths: Path, select: tuple[str, ...] = ("TG402",)) -> list[str]:
    return [f"{f.path}:{f.line} {f.code}" for f in run(root, *paths, select=select).findings]


CONFIGS = {
    "pytest.ini": "[pytest]\npython_files = tests.py test_*.py\n",
    ".pytest.ini": "[pytest]\npython_files = tests.py test_*.py\n",
    "pytest.toml": '[pytest]\npython_files = ["tests.py", "test_*.py"]\n',
    "pyproject.toml": '[tool.pytest.ini_options]\npython_files = "tests.py test_*.py"\n',
    "tox.ini": "[tox]\nenvlist = py\n[pytest]\npython_files =\n    tests.py\n    test_*.py\n",
    "setup.cfg": "[metadata]\nname = app\n[tool:pytest]\npython_files = tests.py test_*.py\n",
}


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_python_files_from_every_file_pytest_reads_makes_a_test(
    tmp_path: Path, config: str
) -> None:
    """A suite named ``tests.py`` (Django's habit) is a test file when the configuration says
    so, whichever file holds it.

    Ablation: replace `given("python_files", PYTHON_FILES)` with `PYTHON_FILES` in
    `src/truegreen/audit/naming.py`."""
    files = {"app/tests.py": SLEEPS.format(name="test_waits"), "app/test_other.py": CLEAN}
    bare = make(tmp_path / "bare", {"setup.py": "", **files})
    assert found(bare) == []  # premise: by pytest's default names tests.py is no test
    configured = make(tmp_path / "configured", {config: CONFIGS[config], **files})
    assert found(configured) == ["app/tests.py:5 TG402"]


def test_pytest_9_native_table_in_pyproject(tmp_path: Path) -> None:
    text = '[tool.pytest]\npython_files = ["tests.py"]\n'
    root = make(tmp_path, {"pyproject.toml": text, "app/tests.py": SLEEPS.format(name="test_w")})
    assert found(root) == ["app/tests.py:5 TG402"]


@pytest.mark.parametrize(
    ("first", "second"),
    [("pytest.ini", "pyproject.toml"), ("pyproject.toml", "tox.ini"), ("tox.ini", "setup.cfg"),
     ("pytest.toml", "pytest.ini")],
)  # fmt: skip
def test_pytest_s_precedence_within_a_directory(tmp_path: Path, first: str, second: str) -> None:
    """The first file in pytest's order that holds options wins; the other is not read."""
    other = CONFIGS[second].replace("tests.py test_*.py", "nothing_*.py")
    other = other.replace('["tests.py", "test_*.py"]', '["nothing_*.py"]')
    other = other.replace("tests.py\n    test_*.py", "nothing_*.py")
    root = make(tmp_path, {first: CONFIGS[first], second: other,
                           "app/tests.py": SLEEPS.format(name="test_w")})  # fmt: skip
    project = discover_project(root)
    assert project.pytest_config_file == root.resolve() / first
    assert found(root) == ["app/tests.py:5 TG402"]


def test_a_file_without_pytest_options_is_passed_over(tmp_path: Path) -> None:
    """A pyproject.toml without a pytest table, a tox.ini without [pytest] and a setup.cfg
    without [tool:pytest] hold nothing for pytest: the search goes on upwards."""
    root = make(tmp_path, {"setup.cfg": CONFIGS["setup.cfg"],
                           "sub/pyproject.toml": "[project]\nname = 'x'\n",
                           "sub/tox.ini": "[tox]\nenvlist = py\n",
                           "sub/setup.cfg": "[metadata]\nname = x\n"})  # fmt: skip
    project = discover_project(root / "sub")
    assert project.pytest_config_file == root.resolve() / "setup.cfg"
    assert project.naming.files == ("tests.py", "test_*.py")


def test_the_nearest_directory_wins_over_a_stronger_file_above(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {
            "pytest.ini": "[pytest]\npython_files = far_*.py\n",
            "sub/setup.cfg": "[tool:pytest]\npython_files = near_*.py\n",
        },
    )
    assert discover_project(root / "sub").naming.files == ("near_*.py",)


XFAIL = "import pytest\n\n\n@pytest.mark.xfail(reason='bug')\ndef test_x():\n    assert 0\n"


def test_xfail_strict_in_setup_cfg_is_read_from_the_paths_common_ancestor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The CLI looks for pytest's configuration from the common ancestor of the paths given,
    as pytest does, not from the working directory: a setup.cfg there is found.

    Ablation: replace `common_ancestor(args.paths, Path.cwd())` with `Path.cwd()` in
    `src/truegreen/cli/audit.py`."""
    from truegreen.cli import main

    root = make(tmp_path / "project", {"setup.cfg": "[tool:pytest]\nxfail_strict = true\n",
                                       "tests/unit/test_a.py": XFAIL,
                                       "tests/func/test_b.py": XFAIL})  # fmt: skip
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    lenient = make(tmp_path / "lenient", {"tests/test_a.py": XFAIL})
    assert main(["audit", "--select", "TG401", str(lenient / "tests")]) == 1  # premise
    capsys.readouterr()
    paths = [str(root / "tests" / "unit"), str(root / "tests" / "func")]
    assert main(["audit", "--select", "TG401", *paths]) == 0
    assert capsys.readouterr().out.startswith("no findings in 2 files")


def test_python_functions_and_classes_decide_what_is_a_test(tmp_path: Path) -> None:
    """A ``check_*`` function is a test under ``python_functions = check_*``: its sleep is a
    sleep in a test.

    Ablation: replace `naming.test_function(first.name)` with `first.name.startswith("test")`
    in `src/truegreen/audit/base.py`."""
    files = {"tests/test_a.py": SLEEPS.format(name="check_waits")}
    bare = make(tmp_path / "bare", {"pytest.ini": "[pytest]\n", **files})
    assert found(bare) == []  # premise: by default check_waits is no test
    ini = "[pytest]\npython_functions = check_*\n"
    configured = make(tmp_path / "configured", {"pytest.ini": ini, **files})
    assert found(configured) == ["tests/test_a.py:5 TG402"]


def test_python_classes_decide_which_methods_must_assert(tmp_path: Path) -> None:
    """Under ``python_classes = Describe``, a ``Describe*`` class holds tests, and one that
    asserts nothing is a no-assertion finding.

    Ablation: replace `self.ctx.project.naming.test_class(node.name)` with
    `node.name.startswith("Test")` in `src/truegreen/audit/rules/no_assertion.py`."""
    source = "class DescribeCart:\n    def test_total(self):\n        total = 1 + 1\n"
    files = {"tests/test_cart.py": source}
    bare = make(tmp_path / "bare", {"pytest.ini": "[pytest]\n", **files})
    assert found(bare, select=("TG105",)) == []  # premise: DescribeCart is no test class
    ini = "[pytest]\npython_classes = Describe\n"
    configured = make(tmp_path / "configured", {"pytest.ini": ini, **files})
    assert found(configured, select=("TG105",)) == ["tests/test_cart.py:2 TG105"]


def test_testpaths_bound_what_a_bare_audit_reads(tmp_path: Path) -> None:
    """Without paths, pytest collects from testpaths: a test-named script elsewhere is not
    collected, and the report says it was skipped and why.

    Ablation: replace `found or [project.root]` with `[project.root]` in
    `src/truegreen/audit/scope.py`."""
    files = {"tests/test_a.py": CLEAN, "scripts/test_tool.py": SLEEPS.format(name="test_w")}
    bare = make(tmp_path / "bare", {"pytest.ini": "[pytest]\n", **files})
    assert found(bare) == ["scripts/test_tool.py:5 TG402"]  # premise: collected without testpaths
    ini = "[pytest]\ntestpaths = tests\n"
    result = run(make(tmp_path / "configured", {"pytest.ini": ini, **files}))
    assert (result.findings, result.files, result.skipped) == ((), 1, ("scripts/test_tool.py",))
    assert result.skipped_line == (
        "skipped 1 file pytest would neither collect nor import (outside testpaths tests): "
        "scripts/test_tool.py"
    )
    # a path given outright is collected whatever testpaths says, as pytest does
    named = tmp_path / "configured" / "scripts"
    assert found(tmp_path / "configured", named) == ["scripts/test_tool.py:5 TG402"]


def test_norecursedirs_are_not_walked_into(tmp_path: Path) -> None:
    """Ablation: replace `self.naming.norecurse(path)` with `False` in
    `src/truegreen/audit/scope.py`."""
    files = {"tests/test_a.py": CLEAN, "tests/snapshots/test_x.py": SLEEPS.format(name="test_w")}
    bare = make(tmp_path / "bare", {"pytest.ini": "[pytest]\n", **files})
    assert found(bare) == ["tests/snapshots/test_x.py:5 TG402"]  # premise
    ini = "[pytest]\nnorecursedirs = snapshots .*\n"
    result = run(make(tmp_path / "configured", {"pytest.ini": ini, **files}))
    assert (result.findings, result.skipped) == ((), ("tests/snapshots/test_x.py",))
    assert "(under norecursedirs snapshots .*)" in result.skipped_line


def test_collect_ignore_and_collect_ignore_glob_of_the_nearest_conftest(tmp_path: Path) -> None:
    """pytest's own way to keep data out of collection: the lists a conftest sets, each entry
    relative to its directory, from the nearest conftest that sets it.

    Ablation: replace `ignored and path in {ignored[0] / entry for entry in ignored[1]}` with
    `False` in `src/truegreen/audit/scope.py`."""
    conftest = (
        'collect_ignore = ["test_old.py"]\ncollect_ignore.append("legacy")\n'
        'collect_ignore_glob = ["snapshots/*"]\n'
    )
    files = {"tests/test_a.py": CLEAN, "tests/test_old.py": BROKEN,
             "tests/legacy/test_b.py": BROKEN, "tests/snapshots/test_c.py": BROKEN}  # fmt: skip
    bare = run(make(tmp_path / "bare", {"pytest.ini": "[pytest]\n", **files}))
    assert len(bare.findings) == 3  # premise: collected, and none of them parses
    root = make(tmp_path / "ignoring", {"pytest.ini": "[pytest]\n", **files,
                                        "tests/conftest.py": conftest})  # fmt: skip
    result = run(root)
    assert (result.findings, result.files) == ((), 2)
    assert result.skipped == (
        "tests/legacy/test_b.py",
        "tests/snapshots/test_c.py",
        "tests/test_old.py",
    )
    assert "(collect_ignore in tests/conftest.py; collect_ignore_glob in tests/conftest.py)" in (
        result.skipped_line
    )


def test_invalid_python_kept_as_test_data_is_skipped_not_a_syntax_error(tmp_path: Path) -> None:
    """tests/data/*.py that pytest never collects nor imports is data: no TG000, and the
    report counts it as skipped.

    Ablation: replace `naming.test_file(file)` with `True` in `src/truegreen/audit/scope.py`."""
    root = make(
        tmp_path,
        {
            "pytest.ini": "[pytest]\n",
            "tests/test_a.py": CLEAN,
            "tests/data/template.py": BROKEN,
            "tests/data/other.py": BROKEN,
        },
    )
    with pytest.raises(SyntaxError):  # premise: the data does not parse
        compile(BROKEN, "template.py", "exec")
    result = run(root)
    assert (result.findings, result.files) == ((), 1)
    assert result.skipped == ("tests/data/other.py", "tests/data/template.py")
    assert report.text(result).splitlines()[1] == (
        "skipped 2 files pytest would neither collect nor import (not named as python_files "
        "test_*.py *_test.py): tests/data/other.py, tests/data/template.py"
    )


def test_the_skipped_line_closes_a_report_with_findings_too(tmp_path: Path) -> None:
    files = {"tests/test_a.py": SLEEPS.format(name="test_w"), "tests/data/x.py": BROKEN}
    lines = report.text(run(make(tmp_path, {"pytest.ini": "[pytest]\n", **files}))).splitlines()
    assert lines[0] == "tests/test_a.py:5:5: TG402 sleep-in-test time.sleep() in test_w: " \
        "advance a frozen clock or wait for a condition"  # fmt: skip
    assert lines[-2].startswith("skipped 1 file pytest would neither collect nor import ")


def test_a_broken_file_a_test_imports_is_still_a_syntax_error(tmp_path: Path) -> None:
    """What a collected file or a conftest imports runs under pytest: a helper module by
    its name, a package's module by a relative import, a plugin named in pytest_plugins.

    Ablation: replace `_Imports(project, left).follow(sorted(audited))` with `set()` in
    `src/truegreen/audit/scope.py`."""
    test = (
        "import helpers as h, json\nfrom pkg import (\n    shared,\n    other as o,\n)\n\n\n"
        "def test_ok():\n    assert h\n"
    )
    root = make(tmp_path, {
        "pytest.ini": "[pytest]\n",
        "conftest.py": 'pytest_plugins = ["tests.plugin"]\n',
        "tests/test_a.py": test,
        "tests/helpers.py": BROKEN,
        "tests/pkg/__init__.py": "from .inner import thing\n",
        "tests/pkg/inner.py": BROKEN,
        "tests/pkg/shared.py": BROKEN,
        "tests/pkg/other.py": BROKEN,
        "tests/plugin.py": BROKEN,
        "tests/data/unused.py": BROKEN,
    })  # fmt: skip
    result = run(root)
    assert [f"{f.path} {f.code}" for f in result.findings] == [
        "tests/helpers.py TG000",
        "tests/pkg/inner.py TG000",
        "tests/pkg/other.py TG000",
        "tests/pkg/shared.py TG000",
        "tests/plugin.py TG000",
    ]
    assert result.skipped == ("tests/data/unused.py",)


def test_the_project_s_own_modules_are_audited_but_not_data_inside_a_package(
    tmp_path: Path,
) -> None:
    """A module of the project's package is code whether a test imports it or not; a
    directory without ``__init__.py`` inside it holds data.

    Ablation: replace `{p for p in left if package_module(project, p)}` with `set()` in
    `src/truegreen/audit/scope.py`."""
    root = make(tmp_path, {
        "pyproject.toml": "[project]\nname = 'app'\n[tool.pytest.ini_options]\n",
        "src/app/__init__.py": "",
        "src/app/cli.py": BROKEN,
        "src/app/templates/page.py": BROKEN,
        "tests/test_a.py": CLEAN,
    })  # fmt: skip
    result = run(root)
    assert [f"{f.path} {f.code}" for f in result.findings] == ["src/app/cli.py TG000"]
    assert result.skipped == ("src/app/templates/page.py",)


def test_doctest_modules_makes_every_module_collected(tmp_path: Path) -> None:
    """Under ``--doctest-modules`` pytest imports every module it walks into.

    Ablation: replace `"--doctest-modules" in args(options.get("addopts"))` with `False` in
    `src/truegreen/audit/naming.py`."""
    files = {"tests/test_a.py": CLEAN, "tests/tools.py": BROKEN}
    bare = run(make(tmp_path / "bare", {"pytest.ini": "[pytest]\n", **files}))
    assert (bare.findings, bare.skipped) == ((), ("tests/tools.py",))  # premise
    ini = "[pytest]\naddopts = -ra --doctest-modules\n"
    result = run(make(tmp_path / "doctests", {"pytest.ini": ini, **files}))
    assert [f"{f.path} {f.code}" for f in result.findings] == ["tests/tools.py TG000"]


def test_a_file_named_outright_is_audited_whatever_its_name(tmp_path: Path) -> None:
    root = make(tmp_path, {"pytest.ini": "[pytest]\n", "tests/data/template.py": BROKEN})
    found_ = run(root, root / "tests" / "data" / "template.py")
    assert [f.code for f in found_.findings] == ["TG000"]


def test_an_audit_of_no_file_is_a_usage_error_naming_the_paths_and_why(tmp_path: Path) -> None:
    """Ablation: replace `not files` with `False` in `src/truegreen/audit/run.py`."""
    root = make(tmp_path, {"pytest.ini": "[pytest]\n", "docs/conf.py": "x = 1\n",
                           "tests/test_a.py": CLEAN, "empty/README": ""})  # fmt: skip
    assert run(root).files == 1  # premise: the project has a test
    with pytest.raises(UsageError) as caught:
        run(root, root / "docs")
    assert str(caught.value) == (
        "expected .py files pytest would collect or import in docs, found 1 .py file, none of "
        "them such (not named as python_files test_*.py *_test.py)"
    )
    with pytest.raises(UsageError, match=r"^expected \.py files to audit in empty, found none "):
        run(root, root / "empty")


def test_an_audit_of_no_file_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from truegreen.cli import main

    root = make(tmp_path, {"pytest.ini": "[pytest]\n", "docs/conf.py": "x = 1\n"})
    assert main(["audit", str(root / "docs")]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("truegreen: error: expected .py files pytest would collect")
    assert err.count("\n") == 1
