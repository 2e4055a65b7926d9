"""TG403 retry-plugin on fixture projects: configuration, declared dependencies, look-alikes."""

from __future__ import annotations

from tests.audit.rules.helpers import PROJECTS, load_project, project_findings
from truegreen.audit.rules.retry_plugin import RetryPlugin, normalise

FIX = "fix the flake instead: a test that passes on a retry has a bug a retry hides"


def test_it_names_each_rerun_setting_and_retry_dependency_with_its_line() -> None:
    project = load_project(PROJECTS / "TG403" / "flagged")
    assert project_findings(RetryPlugin, project) == [
        ("pyproject.toml", 18, f"addopts reruns failing tests (--reruns 3): {FIX}"),
        ("pyproject.toml", 19, f"addopts loads a retry plugin (-p flakefinder): {FIX}"),
        ("pyproject.toml", 21, f"reruns = 2 reruns failing tests: {FIX}"),
        ("pyproject.toml", 9, f"declares the retry plugin pytest-rerunfailures: {FIX}"),
        ("pyproject.toml", 13, f"declares the retry plugin pytest-retry: {FIX}"),
        ("requirements-dev.txt", 3, f"declares the retry plugin flaky: {FIX}"),
    ]


def test_it_reads_an_ini_file_with_multi_line_addopts() -> None:
    project = load_project(PROJECTS / "TG403" / "ini")
    assert project_findings(RetryPlugin, project) == [
        ("pytest.ini", 3, f"addopts reruns tests (--flake-finder): {FIX}"),
        ("pytest.ini", 4, f"retries = 2 reruns failing tests: {FIX}"),
    ]


def test_reruns_turned_off_and_look_alike_names_stay_silent() -> None:
    """Ablation: replace `value.strip() not in ('0', '')` with `True`
    in `src/truegreen/audit/rules/retry_plugin.py`."""
    root = PROJECTS / "TG403" / "silent"
    project = load_project(root)
    text = (root / "pyproject.toml").read_text()
    assert "--reruns 0" in text  # premise: the switched-off flag is configured
    assert "pytest-rerunfailures-report" in text  # premise: and a look-alike name declared
    assert project_findings(RetryPlugin, project) == []


def test_a_plugin_turned_off_with_p_no_stays_silent() -> None:
    """Ablation: replace `value in PLUGIN_MODULES` with `value.split(':')[-1] in PLUGIN_MODULES`
    in `src/truegreen/audit/rules/retry_plugin.py`."""
    project = load_project(PROJECTS / "TG403" / "silent")
    assert "-p no:flaky" in project.pytest_options["addopts"]  # premise
    assert project_findings(RetryPlugin, project) == []


def test_distribution_names_compare_as_pep_503_says() -> None:
    assert [normalise(n) for n in ("Pytest_Retry", "pytest.rerunfailures", "FLAKY")] == [
        "pytest-retry",
        "pytest-rerunfailures",
        "flaky",
    ]
