import asyncio
import os
import subprocess
import subprocess as sp
import sys
from subprocess import check_output

import pytest

VENV_PYTHON = "/opt/venv/bin/python"
PYTHON_ARGV = ["python", "-m", "app"]


def test_runs_a_bare_python():
    subprocess.run(["python", "-m", "app", "--help"], check=True)  # expect: TG305


def test_runs_python3_through_an_alias():
    sp.check_call(("python3", "-c", "print(1)"))  # expect: TG305


def test_runs_a_versioned_python_by_from_import():
    check_output(["python3.12", "--version"])  # expect: TG305


def test_runs_it_through_the_shell():
    os.system("python -m app --help")  # expect: TG305
    subprocess.run("python3 -m app", shell=True)  # expect: TG305


def test_runs_an_argv_built_first():
    argv = ["python", "-m", "app"]
    subprocess.Popen(argv)  # expect: TG305


def test_runs_a_module_level_argv():
    subprocess.run(PYTHON_ARGV)  # expect: TG305


def test_replaces_itself():
    os.execvp("python", ["python", "-V"])  # expect: TG305


async def test_spawns_it_from_asyncio():
    await asyncio.create_subprocess_exec("python", "-V")  # expect: TG305
    await asyncio.create_subprocess_shell("python -V")  # expect: TG305


@pytest.fixture
def server():
    return subprocess.Popen(["python", "-m", "http.server"])  # expect: TG305


def test_pytester_runs_it(pytester):
    pytester.run("python", "-c", "pass")  # expect: TG305


# look-alikes: the interpreter under test, a path, another program, python as data


def test_runs_the_interpreter_under_test():
    subprocess.run([sys.executable, "-m", "app"], check=True)


def test_runs_a_venv_python_by_path():
    subprocess.run([VENV_PYTHON, "-V"], check=True)
    subprocess.run(["/usr/bin/python3", "-V"], check=True)


def test_runs_another_program_with_python_in_its_arguments():
    subprocess.run(["pip", "install", "--python", "python3"], check=True)
    subprocess.run(["pythonista"], check=True)


def test_python_as_data():
    kernel = {"name": "python3"}
    assert kernel["name"] == "python3"


def test_an_argv_assigned_twice_is_not_followed():
    argv = ["python", "-V"]
    argv = [sys.executable, "-V"]
    subprocess.run(argv)


def test_a_run_that_is_not_a_spawner(app):
    app.run("python")
