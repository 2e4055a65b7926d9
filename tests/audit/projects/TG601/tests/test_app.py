import os
import subprocess


def test_the_suite_spawns_its_own_git():
    done = subprocess.run(["git", "--version"], capture_output=True, check=False)
    assert done.returncode == 0
    assert os.environ
