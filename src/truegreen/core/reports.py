"""pytest options that write a report or coverage data: the user's CI run's, never a probe's.

truegreen's verbs start pytest many times to probe a suite (each ablated run, each reordered
or resealed run). A ``--junitxml`` or ``--cov`` the CI put in ``PYTEST_ADDOPTS`` for its own run
would make every probe overwrite the CI's report with its own, and write coverage data into the
checkout; these options are left out of the probes. No option here changes an outcome.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

# Options followed by a value (``--junitxml=FILE`` or ``--junitxml FILE``).
VALUED = (
    "--junitxml", "--junit-xml", "--report-log", "--html", "--json-report-file", "--alluredir",
    "--cov-report", "--cov-config", "--cov-fail-under", "--cov-context",
)  # fmt: skip
# Options that stand alone.
FLAGS = ("--json-report", "--self-contained-html", "--cov-append", "--cov-branch",
         "--no-cov-on-fail")  # fmt: skip
# pytest-cov's ``--cov`` takes its source optionally: ``--cov``, ``--cov=src`` or ``--cov src``.
OPTIONAL = ("--cov",)
ADDOPTS = "PYTEST_ADDOPTS"


def without_reports(args: Sequence[str]) -> list[str]:
    """``args`` without the options that write a report or coverage data."""
    kept: list[str] = []
    words = iter(args)
    for arg in words:
        name = arg.split("=", 1)[0]
        if "=" in arg and name in (*VALUED, *OPTIONAL):
            continue
        if arg in VALUED:
            next(words, None)
        elif arg in OPTIONAL:
            following = next(words, None)
            if following is not None and following.startswith("-"):
                kept.append(following)  # not a value: the next option
        elif arg not in FLAGS:
            kept.append(arg)
    return kept


def probe_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` for a probing pytest run: ``PYTEST_ADDOPTS`` without report options (the
    variable left out when nothing else was in it)."""
    env = dict(environ)
    addopts = env.get(ADDOPTS)
    if not addopts:
        return env
    try:
        words = shlex.split(addopts)
    except ValueError:
        return env  # pytest will say what is wrong with it, in the user's own terms
    kept = without_reports(words)
    if kept == words:
        return env
    if kept:
        env[ADDOPTS] = shlex.join(kept)
    else:
        del env[ADDOPTS]
    return env
