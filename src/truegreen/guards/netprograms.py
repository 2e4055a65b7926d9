"""Programs that reach the network, read from their command line before they start.

A non-Python child is not guarded from inside, but what it will dial is often on its command
line: ``git clone https://...``, ``curl``, ``wget``, ``pip install NAME``, ``ssh``, ``scp``.
:func:`destinations` names the hosts; the subprocess guard judges them as the network guard
judges a connection. Only what the words say: a git remote by name (``git fetch origin``), a
URL without its scheme (``curl example.com``) or a requirements file's contents are not read.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from typing import Any, Optional

_PORTS = {"http": 80, "https": 443, "ssh": 22, "git": 9418, "ftp": 21, "ftps": 990,
          "sftp": 22, "scp": 22, "rsync": 873, "git+ssh": 22, "ssh+git": 22,
          "git+https": 443, "git+http": 80, "hg+https": 443, "hg+http": 80}  # fmt: skip
_GIT_NETWORK = frozenset({"clone", "fetch", "pull", "push", "ls-remote"})
_PIP_NETWORK = frozenset({"install", "download", "wheel"})
# pip's options whose value is the next word, when not written ``--name=value``.
_PIP_VALUED = frozenset({
    "-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-t", "--target",
    "--platform", "--python-version", "--implementation", "--abi", "--root", "--prefix", "--src",
    "--upgrade-strategy", "-C", "--config-settings", "--global-option", "--no-binary",
    "--only-binary", "--progress-bar", "--root-user-action", "--report", "-i", "--index-url",
    "--extra-index-url", "-f", "--find-links", "-d", "--dest", "--log", "--proxy", "--cache-dir",
    "--python", "--timeout", "--retries", "--exists-action", "--trusted-host", "--cert",
    "--client-cert", "--keyring-provider", "--use-feature", "--use-deprecated", "-w",
    "--wheel-dir",
})  # fmt: skip
_SSH_VALUED = "BbcDEeFIiJLlmOoPpQRSWw"  # ssh's one-letter options that take a value
_SCP_VALUED = "cDFiJloPSX"
_ARCHIVES = (".whl", ".tar.gz", ".tgz", ".zip", ".tar.bz2", ".tar.xz")


def url_host(word: str) -> Optional[tuple[str, Optional[int]]]:
    """(host, port) of a URL to another machine (``https://h/x``, ``git+ssh://u@h:2/x``);
    None for ``file://``, a path, or a word that is no URL."""
    scheme, sep, _ = word.partition("://")
    scheme = scheme.lower()
    if not sep or not scheme or scheme == "file" or not scheme.replace("+", "").isalnum():
        return None
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(word)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not host:
        return None
    return host, port if port is not None else _PORTS.get(scheme)


def scp_host(word: str) -> Optional[tuple[str, Optional[int]]]:
    """(host, None) of scp-like ``user@host:path`` (the port is ssh's to say); None for a
    path or a drive letter."""
    if "://" in word:
        return url_host(word)
    head, sep, _ = word.partition(":")
    if not sep or "/" in head or "\\" in head:
        return None
    _, at, host = head.rpartition("@")
    if not host or (not at and len(host) < 2):  # ``C:\\x`` is a drive, not a host
        return None
    return host.strip("[]"), None


def _git(words: list[str]) -> list[tuple[str, Optional[int]]]:
    from truegreen.guards.spawns import git_verb

    verb = git_verb(words)
    if verb not in _GIT_NETWORK:
        return []
    after = words[words.index(verb) + 1 :]
    found: list[tuple[str, Optional[int]]] = []
    for word in after:
        if word.startswith("-"):
            continue
        where = url_host(word) or (scp_host(word) if "@" in word.partition(":")[0] else None)
        if where is not None:
            found.append((where[0], 22 if where[1] is None else where[1]))
    return found


def _url_words(words: list[str]) -> list[tuple[str, Optional[int]]]:
    """curl, wget: every word that is a URL to another machine (``--url=...`` too)."""
    found = []
    for word in words[1:]:
        where = url_host(word.partition("=")[2] if word.startswith("--") else word)
        if where is not None:
            found.append(where)
    return found


def _pip(args: list[str], env: Any) -> list[tuple[str, Optional[int]]]:
    """``pip install NAME``: the index it will ask, unless every requirement is local."""
    words = iter(args)
    verb = None
    for word in words:
        if not word.startswith("-"):
            verb = word
            break
        if word in _PIP_VALUED:
            next(words, None)
    if verb not in _PIP_NETWORK:
        return []
    rest = list(words)
    environ: Any = env if hasattr(env, "get") else os.environ
    no_index = str(environ.get("PIP_NO_INDEX") or "").lower() in ("1", "true", "yes", "on")
    if "--no-index" in rest or no_index:
        return []
    indexes: list[str] = []
    direct: list[tuple[str, Optional[int]]] = []
    from_index = False
    items = iter(rest)
    for word in items:
        name, eq, value = word.partition("=")
        if word.startswith("-"):
            if name in _PIP_VALUED and not eq:
                value = next(items, "")
            if name in ("-i", "--index-url", "--extra-index-url"):
                indexes.append(value)
            elif name in ("-r", "--requirement"):
                from_index = True  # its lines are not read: they name packages on an index
            elif name in ("-e", "--editable"):
                where = url_host(value.partition("@")[0] if "://" not in value else value)
                if where is not None:
                    direct.append(where)
            continue
        where = url_host(word.rpartition(" @ ")[2].strip())
        if where is not None:
            direct.append(where)
        elif not _local(word):
            from_index = True
    if from_index:
        indexes = indexes or [str(environ.get("PIP_INDEX_URL") or "https://pypi.org/simple")]
        direct += [w for w in map(url_host, indexes) if w is not None]
    return direct


def _local(word: str) -> bool:
    """A requirement that names a directory or an archive on this machine."""
    return (
        word.startswith((".", "/", "~", "file:"))
        or os.sep in word
        or "/" in word
        or word.endswith(_ARCHIVES)
    )


def _ssh(words: list[str], valued: str, every: bool) -> list[tuple[str, Optional[int]]]:
    """ssh: its one destination (``-p`` gives the port); scp (``every``): each remote path."""
    port: Optional[int] = None
    found: list[tuple[str, Optional[int]]] = []
    rest = iter(words[1:])
    for word in rest:
        if word.startswith("-") and len(word) > 1:
            for index, letter in enumerate(word[1:]):
                if letter in valued:
                    value = word[index + 2 :] or next(rest, "")
                    if letter in "pP" and value.isdigit():
                        port = int(value)
                    break
            continue
        if every:
            where = scp_host(word)
            if where is not None:
                found.append(where)
            continue
        where = url_host(word) if "://" in word else (word.rpartition("@")[2], None)
        if where is not None:
            found.append(where)
        break
    return [(host, p if p is not None else (port or 22)) for host, p in found]


def destinations(words: list[str], env: Any = None) -> list[tuple[str, Optional[int]]]:
    """The hosts (and ports, where known) the command ``words`` will reach over the network."""
    if not words:
        return []
    from truegreen.guards.spawns import basename

    name = basename(words[0])
    if name == "git":
        return _git(words)
    if name in ("curl", "wget"):
        return _url_words(words)
    if name in ("ssh", "scp"):
        return _ssh(words, _SSH_VALUED if name == "ssh" else _SCP_VALUED, name == "scp")
    if name == "pip" or (name.startswith("pip") and name[3:].replace(".", "").isdigit()):
        return _pip(words[1:], env)
    from truegreen.guards.children import is_python_name

    if is_python_name(name) and "-m" in words:
        index = words.index("-m")
        if words[index + 1 : index + 2] == ["pip"]:
            return _pip(words[index + 2 :], env)
    return []
