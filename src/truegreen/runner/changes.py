"""What changed in a checkout since a revision: ``collect-gate`` and ``ablate --changed-since``."""

from __future__ import annotations

import os
from pathlib import Path

from truegreen.core.errors import UsageError
from truegreen.guards.git import GitError, git


def changed_files(cwd: Path, base: str, *, who: str, flag: str, deleted: bool = False) -> list[str]:
    """Real paths of the files added or changed since ``base``'s merge base with HEAD,
    committed or not, untracked included; deleted files only with ``deleted``. ``who`` and
    ``flag`` name the verb and the option in the one-line errors."""
    try:
        top = git(["rev-parse", "--show-toplevel"], str(cwd))
        if not top.ok:
            raise UsageError(
                f"{who}: expected a git checkout, found none at {str(cwd)!r}; "
                "run it inside the repository"
            )
        root = top.text()
        if not git(["rev-parse", "--verify", "--quiet", f"{base}^{{commit}}"], root).ok:
            raise UsageError(
                f"{who}: {flag} expected a git revision, found {base!r}; "
                "name a branch, tag or commit"
            )
        merge_base = git(["merge-base", base, "HEAD"], root)
        since = merge_base.text() if merge_base.ok else base
        diff = ["diff", "--name-only", "-z", *([] if deleted else ["--diff-filter=d"]), since]
        names: set[str] = set()
        for args in ([*diff, "--"], ["ls-files", "--others", "--exclude-standard", "-z"]):
            done = git(args, root)
            if not done.ok:
                raise UsageError(f"{who}: git {args[0]} failed: {done.complaint()}")
            names.update(done.names())
    except GitError as exc:
        raise UsageError(f"{who}: {exc}") from None
    return sorted(os.path.realpath(os.path.join(root, name)) for name in names)
