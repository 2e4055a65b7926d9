"""TG307 git-init-without-branch: what names the branch, and where the rule reads."""

from __future__ import annotations

from pathlib import Path

from truegreen.audit import registry
from truegreen.audit.base import Project
from truegreen.audit.engine import check_source


def flagged(source: str, tmp_path: Path, relpath: str = "tests/test_x.py") -> list[int]:
    path = tmp_path / relpath
    rule = registry.rule("TG307")
    return [f.line for f in check_source(Project(tmp_path), path, relpath, source, [rule])]


INIT = 'import subprocess\n\n\ndef test_it(tmp_path):\n    subprocess.run(["git", "init"{}])\n'


def test_an_init_that_names_its_branch_is_not_flagged(tmp_path: Path) -> None:
    """Ablation: replace `word.startswith(("-b", "--initial-branch"))` with
    `False` in `src/truegreen/audit/rules/git_init_without_branch.py`."""
    assert flagged(INIT.format(""), tmp_path) == [5]  # premise
    assert flagged(INIT.format(', "-b", "main"'), tmp_path) == []
    assert flagged(INIT.format(', f"--initial-branch={name}"'), tmp_path) == []


def test_an_argv_that_takes_more_words_from_elsewhere_is_not_flagged(tmp_path: Path) -> None:
    """Ablation: replace `command.open_ended` with `False` in
    `src/truegreen/audit/rules/git_init_without_branch.py`."""
    assert flagged(INIT.format(", str(tmp_path)"), tmp_path) == [5]  # premise
    assert flagged(INIT.format(", *options"), tmp_path) == []


def test_the_default_branch_set_by_config_before_the_subcommand_names_it(tmp_path: Path) -> None:
    """Ablation: replace `c.split("=", 1)[0].lower() == "init.defaultbranch"` with `False`
    in `src/truegreen/audit/rules/git_init_without_branch.py`."""
    source = 'import subprocess\n\nsubprocess.run(["git", "-c", "{}=main", "init"])\n'
    assert flagged(source.format("user.name"), tmp_path) == [3]  # premise
    assert flagged(source.format("init.defaultBranch"), tmp_path) == []


HELPER = """\
import subprocess


def git(repo, *args):
    subprocess.run(["git", "-c", "{}=main", *args], cwd=repo, check=True)


def test_it(tmp_path):
    git(tmp_path, "init", "-q")
"""


def test_a_helper_of_the_file_that_pins_the_branch_is_trusted(tmp_path: Path) -> None:
    """Ablation: replace `self.pinning.add(node.name)` with `None` in
    `src/truegreen/audit/rules/git_init_without_branch.py`."""
    assert flagged(HELPER.format("user.name"), tmp_path) == [9]  # premise
    assert flagged(HELPER.format("init.defaultBranch"), tmp_path) == []


OF_THE_DEFAULT = """\
import subprocess


def test_it(tmp_path, hermetic):
    hermetic.git_identity({}="trunk")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
"""


def test_a_test_of_the_default_branch_itself_is_not_flagged(tmp_path: Path) -> None:
    """Ablation: replace `self.pinned.add(id(node))` with `None` in
    `src/truegreen/audit/rules/git_init_without_branch.py`."""
    assert flagged(OF_THE_DEFAULT.format("name"), tmp_path) == [6]  # premise
    assert flagged(OF_THE_DEFAULT.format("default_branch"), tmp_path) == []


MODULE = 'import subprocess\n\n\ndef make_repo(path):\n    subprocess.run(["git", "init", path])\n'


def test_a_helper_module_under_the_tests_is_read_and_the_projects_code_is_not(
    tmp_path: Path,
) -> None:
    """Ablation: replace `self.ctx.kind != "source" or any(p in TEST_DIRS for p in parts)`
    with `True` in `src/truegreen/audit/rules/git_init_without_branch.py`."""
    assert flagged(MODULE, tmp_path, "src/pkg/test/helpers.py") == [5]  # premise
    assert flagged(MODULE, tmp_path, "tests/helpers.py") == [5]
    assert flagged(MODULE, tmp_path, "src/pkg/repo.py") == []


def test_text_shown_rather_than_run_is_not_a_command(tmp_path: Path) -> None:
    """Ablation: replace `callee in SHOWS` with `False` in
    `src/truegreen/audit/gitcommands.py`."""
    source = 'def test_it(run):\n    {}("git init")\n'
    assert flagged(source.format("run"), tmp_path) == [2]  # premise
    assert flagged(source.format("print"), tmp_path) == []
    assert flagged(source.format("log.info"), tmp_path) == []


def test_lines_are_numbered_as_the_parser_numbers_them(tmp_path: Path) -> None:
    """The look for `init` before reading a node numbers lines as the parser does: a file
    with carriage-return line ends, or a form feed that str.splitlines would count as a
    line end, still has its git init found.

    Ablation: replace `text.replace("\\r\\n", "\\n").replace("\\r", "\\n")` with `text` in
    `src/truegreen/audit/rules/git_init_without_branch.py`."""
    source = INIT.format("")
    assert flagged(source, tmp_path) == [5]  # premise
    assert flagged(source.replace("\n", "\r"), tmp_path) == [5]
    assert flagged(source.replace("\n", "\r\n"), tmp_path) == [5]
    assert flagged("\x0c" + source, tmp_path) == [5]
