"""The seal as data: what each test loses, gains and has redirected."""

from __future__ import annotations

import pytest

from truegreen.core.config import build
from truegreen.core.hermetic import credential_family, has_password_url, seal_for

CANARIES = {
    "AWS_SECRET_ACCESS_KEY": "AWS",
    "AZURE_CLIENT_SECRET": "Azure",
    "GOOGLE_APPLICATION_CREDENTIALS": "Google",
    "GITHUB_TOKEN": "GitHub/GitLab",
    "GITLAB_PRIVATE_TOKEN": "GitHub/GitLab",
    "NPM_TOKEN": "package registries",
    "TWINE_PASSWORD": "package registries",
    "OPENAI_API_KEY": "model providers",
    "ANTHROPIC_API_KEY": "model providers",
    "HF_TOKEN": "model providers",
    "SSH_AUTH_SOCK": "SSH, netrc and other stores",
    "NETRC": "SSH, netrc and other stores",
    "PGPASSWORD": "SSH, netrc and other stores",
    "MYAPP_API_KEY": "secret-looking name",
    "DB_PASSWORD": "secret-looking name",
    "STRIPE_SECRET_KEY": "secret-looking name",
    "SENTRY_AUTH_TOKEN": "secret-looking name",
}


@pytest.mark.parametrize(("name", "family"), sorted(CANARIES.items()))
def test_each_credential_family_is_recognised(name: str, family: str) -> None:
    assert credential_family(name) == family


@pytest.mark.parametrize(
    "name",
    [
        "PATH",
        "PWD",
        "OLDPWD",
        "HOME",
        "LANG",
        "XAUTHORITY",
        "BYPASS",
        "TOKENIZERS_X",
        "PYTHONPATH",
        "VIRTUAL_ENV",
        "KEYBOARD",
        "PASSAGE",
    ],
)
def test_ordinary_names_are_not_credentials(name: str) -> None:
    assert credential_family(name) is None


def test_removes_git_credentials_terminal_locale_declared_and_own_settings() -> None:
    seal = seal_for(
        build({"clear-env": ["WIKI_AUTHOR"], "clear-env-prefixes": ["MYAPP_"]}),
        devnull="/dev/null",
        windows=False,
    )
    environ = {
        "PATH": "/bin",
        "GIT_DIR": "x",
        "GIT_AUTHOR_NAME": "x",
        "GIT_CONFIG_KEY_0": "x",
        "EMAIL": "x",
        "GH_TOKEN": "x",
        "COLUMNS": "300",
        "NO_COLOR": "1",
        "LC_TIME": "de_DE",
        "LANGUAGE": "de",
        "WIKI_AUTHOR": "x",
        "MYAPP_URL": "x",
        "TRUEGREEN_TIMEZONE": "x",
        "HOME": "/home/dev",
        "TZ": "Asia/Tokyo",
    }
    assert seal.describe(environ) == {
        "credentials (GitHub/GitLab)": ["GH_TOKEN"],
        "declared (clear-env)": ["WIKI_AUTHOR"],
        "declared (clear-env-prefixes MYAPP_)": ["MYAPP_URL"],
        "git": ["EMAIL", "GIT_AUTHOR_NAME", "GIT_CONFIG_KEY_0", "GIT_DIR"],
        "locale": ["LANGUAGE", "LC_TIME"],
        "terminal": ["COLUMNS", "NO_COLOR"],
        "truegreen settings": ["TRUEGREEN_TIMEZONE"],
    }
    assert "HOME" not in seal.removed(environ)
    assert seal.assignments(home="/h", tmp="/t") == {
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_SYSTEM": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "TZ": "UTC",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "HOME": "/h",
        "USERPROFILE": "/h",
        "XDG_CONFIG_HOME": "/h/.config",
        "XDG_CACHE_HOME": "/h/.cache",
        "XDG_DATA_HOME": "/h/.local/share",
        "XDG_STATE_HOME": "/h/.local/state",
    }


@pytest.mark.parametrize(
    "value",
    [
        "postgres://app:s3cret@db.example.invalid:5432/app",
        "redis://:s3cret@localhost:6379/0",
        "https://__token__:pypi-AgEI@upload.example.invalid/legacy/",
        "mysql+pymysql://root:pa%40ss@127.0.0.1/db?charset=utf8",
        "https://example.invalid/simple https://me:pw@private.example.invalid/simple",
    ],
)
def test_a_url_with_a_password_is_a_credential(value: str) -> None:
    assert has_password_url(value)


@pytest.mark.parametrize(
    "value",
    [
        "https://example.invalid/path",
        "postgres://app@db.example.invalid/app",
        "http://localhost:8080/a@b",
        "sqlite:///tmp/app.db",
        "postgres://app:@db.example.invalid/app",
        "user:pw@host",
        "/usr/bin:/bin",
    ],
)
def test_a_url_without_a_password_is_not(value: str) -> None:
    assert not has_password_url(value)


def test_a_harmless_name_holding_a_password_url_is_removed_by_value() -> None:
    """Ablation: replace `has_password_url(value)` with `False` in
    `src/truegreen/core/hermetic.py`."""
    environ = {"DATABASE_URL": "postgres://u:pw@host/db", "CACHE_URL": "redis://host/0"}
    # premise: by name alone neither variable is a credential
    assert credential_family("DATABASE_URL") is None
    seal = seal_for(build({}), devnull="/dev/null", windows=False)
    assert seal.describe(environ) == {"credentials (password in a URL)": ["DATABASE_URL"]}
    assert seal.removed(environ) == ["DATABASE_URL"]
    kept = seal_for(build({"keep-env": ["DATABASE_URL"]}), devnull="/dev/null", windows=False)
    assert kept.removed(environ) == []


def test_keep_env_passes_a_credential_through() -> None:
    seal = seal_for(build({"keep-env": ["GH_TOKEN"]}), devnull="nul", windows=False)
    assert seal.removed(["GH_TOKEN", "GITHUB_TOKEN"]) == ["GITHUB_TOKEN"]


def test_set_env_wins_over_the_defaults_and_expands_per_test() -> None:
    table = {
        "set-env": {"TZ": "Asia/Tokyo", "MYAPP_TRACE_DIR": "{tmp}/trace"},
        "clear-env-prefixes": ["MYAPP_"],
    }
    seal = seal_for(build(table), devnull="/dev/null", windows=False)
    values = seal.assignments(home="/h", tmp="/t")
    assert (values["TZ"], values["MYAPP_TRACE_DIR"]) == ("Asia/Tokyo", "/t/trace")
    assert seal.removed(["MYAPP_TRACE_DIR", "MYAPP_URL"]) == ["MYAPP_URL"]


def test_false_leaves_time_locale_and_terminal_alone() -> None:
    seal = seal_for(
        build({"timezone": False, "locale": False, "term": False}),
        devnull="/dev/null",
        windows=False,
    )
    values = seal.assignments(home="/h", tmp="/t")
    assert not {"TZ", "LANG", "TERM"} & set(values)
    assert seal.removed(["LC_ALL", "COLUMNS", "NO_COLOR"]) == []


def test_windows_also_redirects_appdata_under_the_home() -> None:
    seal = seal_for(build({}), devnull="nul", windows=True)
    values = seal.assignments(home="C:\\h", tmp="")
    assert values["APPDATA"] == "C:\\h\\AppData\\Roaming"
    assert values["LOCALAPPDATA"] == "C:\\h\\AppData\\Local"
    assert values["GIT_CONFIG_GLOBAL"] == "nul"
