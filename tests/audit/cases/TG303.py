import shutil
import sys

import pytest

from app.paths import config_dir

PLATFORMS = ["linux", "darwin", "win32"]


@pytest.mark.parametrize("plat", ["linux", "darwin", "win32"])
def test_skips_the_other_rows(plat):
    if plat != sys.platform:
        pytest.skip("other OS")  # expect: TG303
    assert config_dir().exists()


@pytest.mark.parametrize("plat", PLATFORMS)
def test_skips_through_a_module_constant(plat):
    if sys.platform != plat:
        pytest.skip("other OS")  # expect: TG303


@pytest.mark.parametrize(("plat", "expected"), [("linux", "/x"), ("win32", "C:\\x")])
def test_skips_in_an_else(plat, expected):
    if plat == sys.platform:
        assert config_dir() == expected
    else:
        pytest.skip("other OS")  # expect: TG303


@pytest.mark.parametrize("plat", ["linux", "win32"])
def test_takes_the_platform_as_data(plat):
    assert config_dir(plat)


@pytest.mark.parametrize("plat", ["linux", "win32"])
def test_skips_for_another_reason(plat):
    if shutil.which("git") is None:
        pytest.skip("needs git")
    assert config_dir(plat)


@pytest.mark.parametrize("size", [1, 2, 3])
def test_skips_rows_that_are_not_platforms(size):
    if size > 2:
        pytest.skip("too big")


@pytest.mark.parametrize("plat", ["linux"])
def test_one_platform_is_not_a_sweep(plat):
    if sys.platform != "linux":
        pytest.skip("linux")
