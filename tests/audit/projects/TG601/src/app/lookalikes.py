import os
import subprocess

import my.subprocess

environ = {"X": "1"}


class Runner:
    def run(self):
        return self.run


def local_environment(environ):
    return environ["X"]


def mentions():
    return "subprocess.run is banned; os.environ too; # truegreen: seam"


def other_packages():
    return my.subprocess.run(["ls"])


def constants_of_the_module():
    return subprocess.PIPE, subprocess.CalledProcessError, os.killpg, os.path.join("a", "b")


def dynamic_imports_of_other_modules():
    return __import__("os"), __import__(os.sep)


def module_level_dict():
    return environ["X"]


def annotated(proc: subprocess.Popen, env: "os._Environ[str]") -> subprocess.Popen:
    kept: subprocess.Popen = proc
    return kept
