import asyncio
import importlib
import os
import subprocess
import subprocess as sp
from os import environ
from os import getenv as read_env
from subprocess import run as r


def spawns():
    sp.run(["ls"])  # expect: TG601
    r(["ls"])  # expect: TG601
    subprocess.check_output(["ls"])  # expect: TG601
    os.system("ls")  # expect: TG601
    os.execvp("ls", ["ls"])  # expect: TG601
    runner = subprocess.Popen  # expect: TG601
    __import__("subprocess")  # expect: TG601
    importlib.import_module("subprocess")  # expect: TG601
    return runner, asyncio.create_subprocess_exec("ls")  # expect: TG601


def reads_the_environment():
    token = environ["TOKEN"]  # expect: TG601
    user = os.environ.get("USER")  # expect: TG601
    shell = os.getenv("SHELL")  # expect: TG601
    editor = read_env("EDITOR")  # expect: TG601
    os.environ["MODE"] = "fast"  # expect: TG601
    os.unsetenv("MODE")  # expect: TG601
    return token, user, shell, editor, getattr(os, "environ")  # expect: TG601


def kills(pid):
    os.kill(pid, 9)  # expect: TG601
    getattr(os, "kill")(pid, 9)  # expect: TG601


def acknowledged():
    subprocess.run(["installer"], check=True)  # truegreen: seam the installer must shell out
    return 1  # truegreen: seam  # expect: TG601
