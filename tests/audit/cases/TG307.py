import shlex
import shutil
import subprocess
from subprocess import run

import pytest

GIT = shutil.which("git")


def test_argv_list(tmp_path):
    subprocess.run(["git", "init"], cwd=tmp_path, check=True)  # expect: TG307


def test_argv_with_options(tmp_path):
    run(["git", "-C", str(tmp_path), "init", "-q"], check=True)  # expect: TG307


def test_argv_held_in_a_variable(tmp_path):
    argv = ("git", "init", str(tmp_path))  # expect: TG307
    subprocess.check_call(argv)


def test_program_by_path(tmp_path):
    subprocess.run([GIT, "init", "--bare", str(tmp_path)], check=True)  # expect: TG307


def test_command_string(wd):
    wd("git init")  # expect: TG307


def test_command_f_string(tmp_path):
    subprocess.run(f"git -C {tmp_path} init -q", shell=True, check=True)  # expect: TG307


def test_split_string(tmp_path):
    subprocess.run(shlex.split("git init -q"), cwd=tmp_path)  # expect: TG307
    subprocess.run("git init".split(), cwd=tmp_path)  # expect: TG307


@pytest.fixture
def repo(tmp_path):
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True)

    git("init")  # expect: TG307
    git("config", "user.name", "x")
    return tmp_path


def test_helper_with_the_repository_first(run_git, tmp_path):
    run_git(tmp_path, "init")  # expect: TG307


def test_names_the_branch(tmp_path):
    subprocess.run(["git", "init", "-b", "main"], cwd=tmp_path, check=True)
    subprocess.run(["git", "init", "--initial-branch=main"], cwd=tmp_path, check=True)
    subprocess.run(["git", "init", "-bmain"], cwd=tmp_path, check=True)
    run("git init --initial-branch main", shell=True, cwd=tmp_path)
    run(["git", "-c", "init.defaultBranch=main", "init"], cwd=tmp_path)


def test_takes_more_words_from_elsewhere(tmp_path, options):
    subprocess.run(["git", "init", *options], cwd=tmp_path, check=True)


def test_other_programs_and_subcommands(tmp_path):
    subprocess.run(["hg", "init"], cwd=tmp_path, check=True)
    subprocess.run(["git", "commit", "-m", "init"], cwd=tmp_path, check=True)
    subprocess.run(["git", "submodule", "init"], cwd=tmp_path, check=True)
    subprocess.run(["python", "-m", "venv", "init"], cwd=tmp_path, check=True)


def test_mentions_the_command_in_text(capsys):
    assert "+ git init" in capsys.readouterr().out
    spawn("git", "init")
    print("git init")


def pinned_git(repo, *args):
    return subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=repo)


def test_through_a_helper_that_pins_the_branch(tmp_path):
    pinned_git(tmp_path, "init", "-q")


def test_of_the_default_branch_itself(tmp_path, configure):
    configure(default_branch="trunk")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert (tmp_path / ".git" / "HEAD").read_text() == "ref: refs/heads/trunk\n"
