"""TG405 deprecation-posture."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Optional

from truegreen.audit.base import Finding, Project, Rule
from truegreen.audit.iniopts import addopts, config_line, config_path, entries, option_values

ACTIONS = ("default", "always", "all", "ignore", "module", "once", "error")
# The categories the posture makes errors, each with the categories whose filter reaches it:
# itself and its bases (PendingDeprecationWarning is a Warning, not a DeprecationWarning).
_BASES = frozenset({"", "Warning", "builtins.Warning"})
CATEGORIES = {
    "DeprecationWarning": _BASES | {"DeprecationWarning", "builtins.DeprecationWarning"},
    "PendingDeprecationWarning": _BASES
    | {"PendingDeprecationWarning", "builtins.PendingDeprecationWarning"},
}
COVERING = CATEGORIES["DeprecationWarning"]


@dataclass(frozen=True)
class Filter:
    """One ``action:message:category:module:lineno`` entry, as written and as read."""

    text: str
    action: str
    blanket: bool  # no message, module or line narrows it
    category: str
    source: str  # "filterwarnings" or "addopts"


def parse(entry: str, source: str) -> Optional[Filter]:
    """An entry as Python's ``warnings`` reads it (actions may be abbreviated); None when
    the action is not one."""
    parts = [part.strip() for part in entry.split(":")] + [""] * 4
    action = next((a for a in ACTIONS if parts[0] and a.startswith(parts[0].lower())), None)
    if action is None:
        return None
    blanket = not (parts[1] or parts[3] or parts[4])
    return Filter(entry, action, blanket, parts[2], source)


def filters(project: Project) -> list[Filter]:
    """The filters in the order pytest applies them: the ini list, then ``-W`` from addopts
    (command-line filters are applied last); a later match wins."""
    found = [
        parse(e, "filterwarnings") for e in entries(project.pytest_options.get("filterwarnings"))
    ]
    words = addopts(project)
    found += [parse(v, "addopts") for v in option_values(words, "-W", "--pythonwarnings")]
    return [f for f in found if f is not None]


def posture(
    found: list[Filter], covering: frozenset[str] = COVERING
) -> Optional[tuple[str, Optional[Filter]]]:
    """What is wrong, if anything, for one category (``covering``: the categories whose
    filter reaches it): no error for it, or the later blanket entry that overrides it."""
    errors = [i for i, f in enumerate(found) if f.action == "error" and f.category in covering]
    if not errors:
        return "lacks", None
    later = [
        f
        for f in found[errors[-1] + 1 :]
        if f.action != "error" and f.blanket and f.category in covering
    ]
    return ("overridden", later[0]) if later else None


class DeprecationPosture(Rule):
    """## What it does
    Checks that the pytest configuration turns `DeprecationWarning` and
    `PendingDeprecationWarning` into errors: `filterwarnings` must hold
    `error::DeprecationWarning` and `error::PendingDeprecationWarning` (or a plain `error`,
    or `error::Warning`), and no later blanket entry for either category (`ignore`,
    `ignore::DeprecationWarning`, `default::Warning`, ...) may override it. Opt-in.

    ## Why is this bad?
    A deprecation that only prints is read by nobody: the dependency removes the API a
    release later and the suite breaks all at once. As an error, a new deprecation fails the
    test that triggers it, the day it appears: deprecations are errors. pytest
    applies `filterwarnings` so that when a warning matches several entries, the **last**
    matching one decides, and `-W` options after them; so a blanket ignore placed after the
    `error::` line silently makes it inert. `PendingDeprecationWarning` is the earlier notice
    (an API that *will* be deprecated), and it is not a `DeprecationWarning`: an
    `error::DeprecationWarning` entry lets it through, so it needs an entry of its own.

    ## Example
    ```toml
    [tool.pytest.ini_options]
    filterwarnings = ["error::DeprecationWarning", "ignore::DeprecationWarning"]
    ```

    ## Use instead
    ```toml
    [tool.pytest.ini_options]
    filterwarnings = [
        "error::DeprecationWarning",
        "error::PendingDeprecationWarning",
        # one dependency we cannot fix yet, narrowly:
        "ignore:pkg_resources is deprecated:DeprecationWarning:somelib.compat",
    ]
    ```
    A test that expects a deprecation uses `pytest.warns(DeprecationWarning)`.

    ## Known problems
    Only the configuration is read: `-W` on the CI command line, `PYTHONWARNINGS` and
    `@pytest.mark.filterwarnings` on single tests are not. An ignore narrowed by message,
    module or line is taken as the targeted exception it should be, however broad its
    pattern. A configuration that lacks both entries gets one finding naming the two.
    """

    code = "TG405"
    name = "deprecation-posture"
    severity = "warning"
    default = False
    kinds = frozenset()

    @classmethod
    def check_project(cls, project: Project) -> Iterator[Finding]:
        found = filters(project)
        lacking: list[str] = []
        culprits: dict[str, Filter] = {}  # one finding per overriding entry, in order
        for category, covering in CATEGORIES.items():
            verdict = posture(found, covering)
            if verdict is None:
                continue
            _, culprit = verdict
            if culprit is None:
                lacking.append(f"error::{category}")
            else:
                culprits.setdefault(culprit.text, culprit)
        where = config_path(project)
        if lacking:
            them = "it" if len(lacking) == 1 else "them"
            yield cls.project_finding(
                where,
                config_line(project, "filterwarnings"),
                f"filterwarnings lacks {' and '.join(lacking)}: add {them}, so a new "
                "deprecation fails the test that triggers it",
            )
        for culprit in culprits.values():
            key = "addopts" if culprit.source == "addopts" else "filterwarnings"
            yield cls.project_finding(
                where,
                config_line(project, key, culprit.text),
                f"{culprit.text!r} comes after the error entry and overrides it, so "
                "deprecations pass silently: narrow it to a message and module, or remove it",
            )
