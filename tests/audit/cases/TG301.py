import os
import platform
import sys
from unittest import mock

import pytest

import app.proc


def test_patches_the_platform(monkeypatch):
    monkeypatch.setattr(sys, "platform", "win32")  # expect: TG301


def test_patches_os_name_by_string(monkeypatch):
    monkeypatch.setattr("os.name", "nt")  # expect: TG301


def test_patches_platform_system():
    with mock.patch("platform.system", return_value="Windows"):  # expect: TG301
        pass


def test_patches_through_another_module():
    with mock.patch("app.proc.sys.platform", "darwin"):  # expect: TG301
        pass


def test_patches_with_mocker(mocker):
    mocker.patch.object(platform, "machine", return_value="arm64")  # expect: TG301


@mock.patch.object(sys, "platform", "linux")  # expect: TG301
def test_patches_with_a_decorator():
    pass


def test_flips_a_host_flag(monkeypatch):
    monkeypatch.setattr(app.proc, "IS_WINDOWS", True)  # expect: TG301


def test_assigns_the_platform():
    sys.platform = "win32"  # expect: TG301


def test_reads_the_platform():
    if sys.platform == "win32":
        pytest.skip("reading the host is fine")
    assert os.name == "posix"


def test_patches_argv(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["prog"])


def test_patches_the_python_version():
    with mock.patch("platform.python_version", return_value="3.12.0"):
        pass


def test_patches_environment(monkeypatch):
    monkeypatch.setattr(os, "environ", {})


def test_passes_the_platform_as_data():
    assert app.proc.detach_flags(is_windows=True)


def test_patches_a_flag_that_is_not_about_the_host(monkeypatch):
    monkeypatch.setattr(app.proc, "IS_ENABLED", True)
