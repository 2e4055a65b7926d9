import os
from unittest import mock

import pytest

import app.paths


@pytest.fixture
def config_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # expect: TG204
    return tmp_path


def test_redirects_appdata(monkeypatch, tmp_path):
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path))  # expect: TG204


def test_assigns_home(tmp_path):
    os.environ["HOME"] = str(tmp_path)  # expect: TG204


def test_patches_the_environment(tmp_path):
    with mock.patch.dict(os.environ, {"APPDATA": str(tmp_path)}):  # expect: TG204
        pass


def test_updates_the_environment(tmp_path):
    os.environ.update(XDG_DATA_HOME=str(tmp_path))  # expect: TG204


def test_patches_the_accessor(monkeypatch, tmp_path):
    monkeypatch.setattr(app.paths, "user_config_path", lambda: tmp_path)


def test_sets_an_unrelated_variable(monkeypatch):
    monkeypatch.setenv("APP_DEBUG", "1")


def test_removes_home(monkeypatch):
    monkeypatch.delenv("HOME")


def test_reads_home():
    assert os.environ["HOME"]


def test_redirects_the_state_directory(monkeypatch, tmp_path):
    # app.state reads XDG_STATE_HOME itself: setting it redirects it on every OS
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
