"""Whether a git command needs an author identity, and whether one reached it.

Imported only when a test starts git, so a child's start-up never pays for it. Read by
the failure hints: a sealed test has no identity until it establishes one.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, Optional

# Verbs that write a commit (or a reflog entry with a committer), whatever their options.
_WRITERS = frozenset(
    {"commit", "commit-tree", "merge", "rebase", "am", "cherry-pick", "revert", "pull", "notes"}
)
# git tag makes a tag object, which names a tagger, with any of these.
_TAG_SHORT = frozenset("asmFu")
_TAG_LONG = frozenset({"--annotate", "--sign", "--message", "--file", "--local-user"})
_STASH_WRITERS = frozenset({"push", "save", "create", "store"})
_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"})
_IDENTITY_VARS = (
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "EMAIL",
)


def split_command(words: Sequence[str]) -> tuple[list[str], Optional[str], list[str]]:
    """A git command line as (options before the verb, the verb, the words after it)."""
    options: list[str] = []
    rest = iter(words[1:])
    for word in rest:
        if word in _VALUED:
            options += [word, next(rest, "")]
        elif word.startswith("-"):
            options.append(word)
        else:
            return options, word, list(rest)
    return options, None, []


def needs_identity(verb: Optional[str], after: Sequence[str]) -> bool:
    """Whether ``git <verb> <after...>`` writes an object or reflog entry that names a person."""
    if verb in _WRITERS:
        return True
    if verb == "tag":
        for word in after:
            if word.startswith("--"):
                if word.split("=", 1)[0] in _TAG_LONG:
                    return True
            elif word.startswith("-") and _TAG_SHORT.intersection(word[1:]):
                return True
        return False
    if verb == "stash":
        sub = next((w for w in after if not w.startswith("-")), None)
        return sub is None or sub in _STASH_WRITERS
    return False


def _environ_gives(env: Mapping[Any, Any], devnull: str) -> bool:
    if any(env.get(name) for name in _IDENTITY_VARS):
        return True
    if env.get("GIT_CONFIG_COUNT") or "user." in str(env.get("GIT_CONFIG_PARAMETERS", "")):
        return True
    # Under the seal git's global configuration is the null device; anything else (the
    # file hermetic.git_identity() writes, a test's own) may hold an identity.
    return env.get("GIT_CONFIG_GLOBAL") != devnull


def names_a_user(config: str) -> bool:
    """Whether a git configuration file sets ``user.name`` or ``user.email``."""
    section = ""
    for raw in config.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line[1:].split("]", 1)[0].strip().lower()
        elif section == "user" and line.split("=", 1)[0].strip().lower() in ("name", "email"):
            return True
    return False


def _repository_gives(start: str) -> bool:
    """Whether the repository around ``start`` names a user in its own ``.git/config``."""
    here = os.path.abspath(start)
    while True:
        dotgit = os.path.join(here, ".git")
        if os.path.isdir(dotgit):
            try:
                with open(os.path.join(dotgit, "config"), encoding="utf-8") as handle:
                    return names_a_user(handle.read())
            except (OSError, ValueError):
                return True  # cannot tell: say nothing rather than something wrong
        if os.path.exists(dotgit):
            return True  # a worktree or submodule: its configuration lives elsewhere
        parent = os.path.dirname(here)
        if parent == here:
            return False
        here = parent


def anonymous(
    words: Sequence[str], env: Optional[Mapping[Any, Any]], cwd: Any, *, devnull: str = os.devnull
) -> bool:
    """Whether this git command needs an identity and starts with none configured.

    ``env`` is the child's environment (None: this process's); ``cwd`` its directory.
    """
    options, verb, after = split_command(words)
    if not needs_identity(verb, after):
        return False
    for index, word in enumerate(options[:-1]):
        if word == "-c" and options[index + 1].startswith(("user.name", "user.email")):
            return False
    if _environ_gives(os.environ if env is None else env, devnull):
        return False
    where = os.fsdecode(os.fspath(cwd)) if cwd is not None else os.getcwd()
    for index, word in enumerate(options[:-1]):
        if word == "-C":
            where = os.path.join(where, options[index + 1])
    return not _repository_gives(where)
