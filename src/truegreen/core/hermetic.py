"""The hermetic environment as data: which variables a test loses, gains, or has redirected.

A :class:`Seal` is decided once per session from the configuration; for each
test it turns the current environment and that test's home directory into the
exact set of changes to make. Nothing here touches ``os.environ``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Optional

from truegreen.core.config import Config, expand
from truegreen.core.record import Record

# Variables that point git at another repository, index or object store than the tree's own.
GIT_REPOSITORY = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_NAMESPACE",
    }
)
# Variables that make git read or write somewhere other than the test's own tree, or give it
# configuration or an identity from outside it.
GIT_UNSET = GIT_REPOSITORY | {"GIT_CONFIG", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "EMAIL"}
GIT_UNSET_PREFIXES = ("GIT_AUTHOR_", "GIT_COMMITTER_", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")

TERMINAL_UNSET = frozenset(
    {
        "COLUMNS",
        "LINES",
        "NO_COLOR",
        "FORCE_COLOR",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "PY_COLORS",
        "PYTHON_COLORS",
    }
)
LOCALE_UNSET = frozenset({"LANGUAGE"})
LOCALE_UNSET_PREFIXES = ("LC_",)

# truegreen's own settings are a configuration layer too: a test that runs pytest
# inside (pytester, a subprocess) must not inherit the developer's TRUEGREEN_*.
OWN_PREFIXES = ("TRUEGREEN_",)

# Credentials, by family. Exact names and prefixes come first; the suffix pattern
# catches the long tail (MYAPP_API_KEY, DB_PASSWORD, ...).
CREDENTIAL_FAMILIES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("AWS", (), ("AWS_",)),
    ("Azure", (), ("AZURE_", "ARM_CLIENT_", "ARM_ACCESS_KEY")),
    (
        "Google",
        ("GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_API_KEY", "GOOGLE_OAUTH_ACCESS_TOKEN"),
        ("CLOUDSDK_AUTH_", "GOOGLE_GHA_CREDS"),
    ),
    (
        "GitHub/GitLab",
        ("GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_PAT", "GITLAB_TOKEN"),
        ("GITLAB_", "CI_JOB_TOKEN"),
    ),
    (
        "package registries",
        ("NPM_TOKEN", "NODE_AUTH_TOKEN", "PYPI_TOKEN", "TWINE_USERNAME", "TWINE_PASSWORD"),
        ("UV_PUBLISH_", "POETRY_PYPI_TOKEN_", "POETRY_HTTP_BASIC_", "HATCH_INDEX_"),
    ),
    (
        "model providers",
        (
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "GEMINI_API_KEY",
            "MISTRAL_API_KEY",
            "COHERE_API_KEY",
            "GROQ_API_KEY",
            "HF_TOKEN",
            "HUGGING_FACE_HUB_TOKEN",
        ),
        ("OPENAI_", "ANTHROPIC_"),
    ),
    (
        "SSH, netrc and other stores",
        (
            "SSH_AUTH_SOCK",
            "SSH_AGENT_PID",
            "NETRC",
            "GIT_ASKPASS",
            "SSH_ASKPASS",
            "KRB5CCNAME",
            "PGPASSWORD",
            "PGPASSFILE",
            "MYSQL_PWD",
            "REDISCLI_AUTH",
            "DOCKER_AUTH_CONFIG",
            "VAULT_TOKEN",
        ),
        (),
    ),
)
SECRET_SUFFIX = re.compile(
    r"(?:^|_)(?:TOKEN|SECRET|SECRETS|PASSWORD|PASSWD|PASS|PASSPHRASE|PWD_SECRET|PAT|"
    r"API_?KEY|ACCESS_KEY|ACCESS_KEY_ID|SECRET_KEY|SECRET_ACCESS_KEY|PRIVATE_KEY|"
    r"CREDENTIALS?|AUTH|CLIENT_SECRET|SESSION_KEY)\Z"
)


# A URL that carries a password (postgres://user:pw@host, redis://:pw@host/0): a credential
# whatever the variable that holds it is called (DATABASE_URL, PIP_INDEX_URL, ...).
PASSWORD_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]*:[^\s/?#@]+@")
PASSWORD_URL_REASON = "credentials (password in a URL)"


def has_password_url(value: str) -> bool:
    """Whether ``value`` holds a URL with a password in it (``scheme://user:password@``)."""
    return "://" in value and PASSWORD_URL.search(value) is not None


def credential_family(name: str) -> Optional[str]:
    """The credential family a variable name belongs to, or None if it looks harmless."""
    for family, exact, prefixes in CREDENTIAL_FAMILIES:
        if name in exact or name.startswith(prefixes):
            return family
    if SECRET_SUFFIX.search(name.upper()):
        return "secret-looking name"
    return None


class Seal(Record):
    """The hermetic environment decided for one session.

    ``fixed`` variables get the same value in every test; ``templated`` ones
    are expanded with the test's ``{home}`` and ``{tmp}``. Any other variable
    for which :meth:`reason` answers is removed.
    """

    # A Record, not a dataclass: see core/record.py. Its clear mapping is mutable: unhashable.
    __slots__ = ("_memo", "clear", "clear_prefixes", "fixed", "keep", "templated")

    def __init__(
        self,
        keep: frozenset[str],
        clear: Mapping[str, str],  # name -> reason
        clear_prefixes: tuple[tuple[str, str], ...],  # (prefix, reason)
        fixed: tuple[tuple[str, str], ...],
        templated: tuple[tuple[str, str], ...],
    ) -> None:
        self.keep = keep
        self.clear = clear
        self.clear_prefixes = clear_prefixes
        self.fixed = fixed
        self.templated = templated
        self._memo: dict[str, Optional[str]] = {}

    def _fields(self) -> tuple[object, ...]:
        return (self.keep, self.clear, self.clear_prefixes, self.fixed, self.templated)

    def __repr__(self) -> str:
        keep, clear, clear_prefixes, fixed, templated = self._fields()
        return (
            f"Seal(keep={keep!r}, clear={clear!r}, clear_prefixes={clear_prefixes!r}, "
            f"fixed={fixed!r}, templated={templated!r})"
        )

    def reason(self, name: str, value: Optional[str] = None) -> Optional[str]:
        """Why the seal removes ``name`` ("git", "credentials (AWS)", ...), or None.

        Given the variable's ``value``, a name that looks harmless still goes when the value
        is a URL with a password in it."""
        try:
            why = self._memo[name]
        except KeyError:
            why = self._memo[name] = self._reason(name)
        unnamed = why is None and value is not None and name not in self.keep
        if unnamed and has_password_url(value):  # type: ignore[arg-type]
            return PASSWORD_URL_REASON
        return why

    def _reason(self, name: str) -> Optional[str]:
        if name in self.keep:
            return None
        why = self.clear.get(name)
        if why is not None:
            return why
        for prefix, why in self.clear_prefixes:
            if name.startswith(prefix):
                return why
        if name.startswith(OWN_PREFIXES):
            return "truegreen settings"
        if name in GIT_UNSET or name.startswith(GIT_UNSET_PREFIXES):
            return "git"
        family = credential_family(name)
        if family is not None:
            return f"credentials ({family})"
        return None

    def removed(self, names: Iterable[str]) -> list[str]:
        """The names among ``names`` that the seal removes (and does not set again). Given an
        environment (a mapping), its values count too (:meth:`reason`)."""
        setting = {name for name, _ in self.fixed} | {name for name, _ in self.templated}
        values: Mapping[str, str] = names if isinstance(names, Mapping) else {}
        return [n for n in names if n not in setting and self.reason(n, values.get(n)) is not None]

    def assignments(self, *, home: str, tmp: str) -> dict[str, str]:
        """Every variable the seal sets for a test whose home is ``home``."""
        values = dict(self.fixed)
        for name, template in self.templated:
            values[name] = expand(template, tmp=tmp, home=home)
        return values

    def describe(self, environ: Mapping[str, str]) -> dict[str, list[str]]:
        """The names (never values) of ``environ`` the seal removes, grouped by reason."""
        groups: dict[str, list[str]] = {}
        for name in sorted(self.removed(environ)):
            reason = self.reason(name, environ[name])
            assert reason is not None
            groups.setdefault(reason, []).append(name)
        return groups


def seal_for(config: Config, *, devnull: str, windows: bool) -> Seal:
    """Decide the session's seal from the effective configuration."""
    clear = dict.fromkeys(config.clear_env, "declared (clear-env)")
    prefixes = [(p, f"declared (clear-env-prefixes {p})") for p in config.clear_env_prefixes]
    fixed = [
        ("GIT_CONFIG_GLOBAL", devnull),
        ("GIT_CONFIG_SYSTEM", devnull),
        ("GIT_CONFIG_NOSYSTEM", "1"),
    ]
    if config.timezone is not None:
        fixed.append(("TZ", config.timezone))
    if config.locale is not None:
        fixed.append(("LANG", config.locale))
        clear.update(dict.fromkeys(LOCALE_UNSET, "locale"))
        prefixes.extend((p, "locale") for p in LOCALE_UNSET_PREFIXES)
    if config.term is not None:
        fixed.append(("TERM", config.term))
        clear.update(dict.fromkeys(TERMINAL_UNSET, "terminal"))
    sep = "\\" if windows else "/"
    templated = [
        ("HOME", "{home}"),
        ("USERPROFILE", "{home}"),
        ("XDG_CONFIG_HOME", f"{{home}}{sep}.config"),
        ("XDG_CACHE_HOME", f"{{home}}{sep}.cache"),
        ("XDG_DATA_HOME", f"{{home}}{sep}.local{sep}share"),
        ("XDG_STATE_HOME", f"{{home}}{sep}.local{sep}state"),
    ]
    if windows:
        templated += [
            ("APPDATA", f"{{home}}{sep}AppData{sep}Roaming"),
            ("LOCALAPPDATA", f"{{home}}{sep}AppData{sep}Local"),
        ]
    declared = dict(config.set_env)
    fixed = [(n, v) for n, v in fixed if n not in declared]
    templated = [(n, v) for n, v in templated if n not in declared] + sorted(declared.items())
    return Seal(
        keep=frozenset(config.keep_env),
        clear=clear,
        clear_prefixes=tuple(prefixes),
        fixed=tuple(fixed),
        templated=tuple(templated),
    )
