"""The demo's sections as data: the commands each runs, and the judge of its output."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable

from truegreen.demo import judges
from truegreen.demo.model import SERVICE, Command, Ran, Shown

SHELL = "your shell (GREETER_STYLE=shout exported)"
CLEAN = "a clean CI machine"

Stages = tuple[tuple[Command, ...], ...]  # stages run one after the other, commands side by side


@dataclass(frozen=True)
class Section:
    name: str
    title: str
    stages: Stages
    judge: Callable[[Sequence[Ran]], Shown]


# -- the catalogue ------------------------------------------------------------------------


def _pytest(
    *words: str,
    env: tuple[tuple[str, str], ...] = (),
    label: str = "",
    home: str = "home",
    home_files: tuple[tuple[str, str], ...] = (),
) -> Command:
    return Command(("pytest", *words), env, label, home, home_files)


def _truegreen(*words: str, env: tuple[tuple[str, str], ...] = ()) -> Command:
    return Command(("truegreen", *words), env)


_PLAIN = ("-p", "no:truegreen")
_GREETER = "tests/test_greeter.py"
_SHOUT = (("GREETER_STYLE", "shout"),)
_MANIFESTS = "--truegreen-manifest=manifests"
_RC = ((".greeterrc", "guest = friend\n"),)

SECTIONS = (
    Section(
        "hermetic",
        "the same verdict on every machine (tests/test_greeter.py, plain and sealed)",
        (
            (
                _pytest(*_PLAIN, _GREETER, env=_SHOUT, label=SHELL, home="home-plain-shell"),
                _pytest(*_PLAIN, _GREETER, label=CLEAN, home="home-plain-clean"),
                _pytest(_GREETER, env=_SHOUT, label=SHELL, home="home-sealed-shell"),
                _pytest(_GREETER, label=CLEAN, home="home-sealed-clean"),
            ),
        ),
        judges.hermetic,
    ),
    Section(
        "guards",
        "writes outside the sandbox and a dial to a daemon on this machine fail the test",
        (
            (
                _pytest(
                    "caught/test_guards.py",
                    env=(("HISTORY_CACHE", "~/.greeter-cache"), ("GREETING_SERVICE", SERVICE)),
                ),
            ),
        ),
        judges.guards,
    ),
    Section(
        "hints",
        "a test that fails sealed says what the seal took away",
        ((_pytest("-p", "no:truegreen", "caught/test_settings.py", home_files=_RC),
          _pytest("caught/test_settings.py", home_files=_RC)),),
        judges.hints,
    ),
    Section(
        "audit",
        "tests that can pass for the wrong reason, found without running them",
        ((_truegreen("audit", "tests", "caught"),),),
        judges.audit,
    ),
    Section(
        "ablate",
        "does each negative test fail without the gate it claims to test?",
        ((_truegreen("ablate", "--records", "tests/test_bad_names.py"),),),
        judges.ablate,
    ),
    Section(
        "discover",
        "negative tests with no records, found by tracing, and one that cannot fail",
        ((_truegreen("ablate", "--discover", "unrecorded"),),),
        judges.discover,
    ),
    Section(
        "leaks",
        "the variable a test's verdict hangs on, found by bisecting your shell",
        ((_truegreen("leaks", "--", "tests", env=(("FAREWELL_WORD", "Cheerio"),)),),),
        judges.leaks,
    ),
    Section(
        "flakes",
        "an order-dependent test, found and its polluter named",
        ((_truegreen("flakes", "--runs", "2", "--", "tests"),),),
        judges.flakes,
    ),
    Section(
        "run",
        "a sealed run, one process per file, and where its time went",
        (
            (_truegreen("run", "--isolate-files", "--metrics", ".metrics", "--", "tests"),),
            (_truegreen("metrics", ".metrics"),),
        ),
        judges.run,
    ),
    Section(
        "shards",
        "a suite split in two, and proof that the shards add up",
        (
            tuple(_pytest(f"--truegreen-shard={k}/2", _MANIFESTS) for k in (1, 2)),
            (_truegreen("shards", "verify", "manifests", "--count", "2"),),
        ),
        judges.shards,
    ),
    Section(
        "diff",
        "a dependency's flipped default, green both ways, and what it changed",
        (
            (_pytest("--truegreen-metrics=.metrics-base", "changed", home="home-base"),
             _pytest("--truegreen-metrics=.metrics-head", "changed", home="home-head",
                     env=(("ARCHIVER_VERSION", "2"),))),
            (_truegreen("diff", ".metrics-base", ".metrics-head", "--fail-on", "new-programs"),),
        ),
        judges.diff,
    ),
)  # fmt: skip

NAMES = tuple(section.name for section in SECTIONS)
