import pytest


@pytest.fixture(autouse=True)
def module_identity(monkeypatch):
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")


def test_commits():
    pass
