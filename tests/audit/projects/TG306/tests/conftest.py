import os
import subprocess
from unittest import mock

import pytest

os.environ["GIT_COMMITTER_NAME"] = "Session"  # expect: TG306


def pytest_configure(config):
    os.environ.setdefault("GIT_AUTHOR_EMAIL", "ci@example.invalid")  # expect: TG306


@pytest.fixture(autouse=True)
def git_user(monkeypatch):
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")  # expect: TG306
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2000-01-01T00:00:00")


@pytest.fixture(autouse=True)
def global_identity(tmp_path):
    subprocess.run(["git", "config", "--global", "user.email", "t@example.invalid"])  # expect: TG306
    with mock.patch.dict(os.environ, {"GIT_COMMITTER_EMAIL": "t@example.invalid"}):  # expect: TG306
        yield


@pytest.fixture(autouse=True)
def repo_for_every_test(tmp_path):
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True)

    git("init", "-b", "main")
    git("config", "user.name", "Test")  # expect: TG306


@pytest.fixture
def committer(monkeypatch):
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
    subprocess.run(["git", "config", "user.email", "t@example.invalid"])


@pytest.fixture(autouse=False)
def not_autouse(monkeypatch):
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test")


@pytest.fixture(autouse=True)
def one_command(tmp_path):
    subprocess.run(["git", "-c", "user.name=Test", "commit", "-m", "x"], cwd=tmp_path)
    subprocess.run(["git", "config", "core.autocrlf", "false"], cwd=tmp_path)
    subprocess.run(["git", "log"], env={**os.environ, "GIT_AUTHOR_NAME": "x"}, cwd=tmp_path)


def helper(monkeypatch):
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
