import shutil
import subprocess
import sys
import unittest
from shutil import which

import pytest

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")  # expect: TG304
HAVE_HG = shutil.which("hg") is not None
pytestmark = pytest.mark.skipif(not HAVE_HG, reason="needs hg")  # expect: TG304


def has_docker():
    return which("docker") is not None


@pytest.mark.skipif(not shutil.which("git"), reason="needs git")  # expect: TG304
def test_decorated():
    pass


@pytest.mark.skipif(None in [which("svn"), which("svnadmin")], reason="svn")  # expect: TG304
def test_two_tools():
    pass


@pytest.mark.skipif(not has_docker(), reason="needs docker")  # expect: TG304
def test_through_a_helper():
    pass


@pytest.mark.skipif(shutil.which("git") is not None, reason="git must be absent")  # expect: TG304
def test_inverted_gate():
    pass


def test_skips_inside():
    if not shutil.which("bash"):  # expect: TG304
        pytest.skip("needs bash")


def test_skips_on_an_assigned_path():
    python37 = shutil.which("python3.7")
    if python37 is None:  # expect: TG304
        pytest.skip("python3.7 not found")
    subprocess.run([python37, "-V"], check=True)


def test_skips_in_the_else_branch():
    if shutil.which("tmux"):  # expect: TG304
        pass
    else:
        pytest.skip("needs tmux")


@pytest.fixture
def docker():
    if shutil.which("docker") is None:  # expect: TG304
        raise unittest.SkipTest("needs docker")
    return "docker"


class TestUnittest(unittest.TestCase):
    @unittest.skipUnless(shutil.which("git"), "needs git")  # expect: TG304
    def test_decorated(self):
        pass

    def test_skips_inside(self):
        if shutil.which("git") is None:  # expect: TG304
            self.skipTest("needs git")


# look-alikes: which without a skip, a skip on something else, a probe that runs the tool


def _runs(*argv):
    try:
        return subprocess.run(argv, capture_output=True).returncode == 0
    except OSError:
        return False


HAVE_TOOL = _runs("tool", "--version")


@pytest.mark.skipif(not HAVE_TOOL, reason="tool --version does not run")
def test_probed():
    pass


@pytest.mark.skipif(sys.platform == "win32", reason="posix")
def test_other_condition():
    pass


def test_uses_which_to_find_the_program():
    git = shutil.which("git")
    assert git is not None
    subprocess.run([git, "--version"], check=True)


def test_branches_on_which_without_skipping():
    if shutil.which("git") is None:
        return
    assert True


def test_skip_in_a_nested_function():
    if shutil.which("git") is None:

        def later():
            pytest.skip("never called here")

        assert later


CHROMIUM = shutil.which("chromium")


@pytest.mark.skipif(CHROMIUM is None or not _runs(CHROMIUM, "--version"), reason="chromium")
def test_found_and_probed():
    pass


def test_probed_inside():
    git = shutil.which("git")
    if git is None or subprocess.run([git, "--version"]).returncode:
        pytest.skip("git does not run")
