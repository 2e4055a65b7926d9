import os
import platform
import shutil
import sys
import unittest

import pytest

from app.compat import IS_WINDOWS


@pytest.mark.skipif(sys.platform != "win32", reason="Windows only")  # expect: TG302
def test_windows_only():
    pass


@pytest.mark.skipif(os.name == "nt", reason="POSIX only")  # expect: TG302
def test_posix_only():
    pass


@pytest.mark.skipif(platform.system() == "Darwin", reason="not on macOS")  # expect: TG302
def test_not_on_macos():
    pass


@pytest.mark.skipif("sys.platform == 'win32'")  # expect: TG302
def test_string_condition():
    pass


@pytest.mark.skipif(IS_WINDOWS, reason="flag")  # expect: TG302
def test_host_flag():
    pass


pytestmark = pytest.mark.skipif(  # expect: TG302
    not sys.platform.startswith("linux"), reason="linux only"
)


class TestOld(unittest.TestCase):
    @unittest.skipUnless(sys.platform == "darwin", "macOS only")  # expect: TG302
    def test_mac(self):
        pass


@pytest.mark.skipif(sys.version_info < (3, 10), reason="needs 3.10")
def test_python_version():
    pass


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_needs_git():
    pass


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores permissions")
def test_not_as_root():
    pass


@pytest.mark.platforms("windows")
def test_marked_the_right_way():
    pass


@pytest.mark.platforms("windows")
@pytest.mark.skipif(sys.platform != "win32", reason="and right without truegreen")
def test_marked_with_the_skipif_beside_it():
    pass


@pytest.mark.platforms("posix")
class TestMarkedClass:
    @pytest.mark.skipif(os.name == "nt", reason="POSIX only")
    def test_in_a_marked_class(self):
        pass


class TestClassWithPytestmark:
    pytestmark = [pytest.mark.platforms("macos")]

    @pytest.mark.skipif(sys.platform != "darwin", reason="macOS only")
    def test_in_a_class_with_the_marker(self):
        pass


def test_reads_the_platform_in_the_body():
    assert sys.platform
