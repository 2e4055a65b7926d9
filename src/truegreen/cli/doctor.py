"""``truegreen doctor``: the effective configuration, where each value came from, what is wrong."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Any, Optional

from truegreen import __version__
from truegreen.cli import add_set, add_verb
from truegreen.core import config as tgconfig
from truegreen.core import formats
from truegreen.core.doctor import (
    Facts,
    json_value,
    loaded_plugins,
    plugin_active,
    problems,
    pytest_options,
    toml_value,
)
from truegreen.core.hermetic import seal_for
from truegreen.core.overlaps import overlaps

EXAMPLE = """\
  truegreen doctor
  truegreen doctor --set timezone=Europe/Paris --format json
"""


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "doctor",
        summary="show the effective configuration and what the seal would remove",
        description="Print each [tool.truegreen] key's effective value and the layer it came "
        "from, whether the pytest plugin is active, the names (never the values) of the ambient "
        "variables the hermetic environment would remove, and anything known to be wrong. "
        "Exit 1 when something is wrong.",
        example=EXAMPLE,
    )
    add_set(parser)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(run=run)


def installed_plugins() -> dict[str, str]:
    """The installed pytest plugins' entry points: name (what ``-p no:NAME`` takes), value."""
    eps: Any = metadata.entry_points()
    group = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
    return {ep.name: ep.value for ep in group}


def _pytest_addopts(source: Optional[Path], start: Path) -> list[str]:
    """addopts from the [tool.pytest.ini_options] next to our table (or above ``start``)."""
    candidates = [source] if source else [d / "pyproject.toml" for d in (start, *start.parents)]
    for path in candidates:
        if path is not None and path.is_file():
            data = tgconfig.read_toml(path)
            addopts = data.get("tool", {}).get("pytest", {}).get("ini_options", {}).get("addopts")
            if isinstance(addopts, str):
                return [addopts]
            return [str(a) for a in addopts or ()]
    return []


def _zone_unknown(zone: Optional[str]) -> bool:
    if zone is None or zone.upper() in {"UTC", "GMT", "UTC0", "GMT0"}:
        return False
    try:
        import zoneinfo

        zoneinfo.ZoneInfo(zone)
    except (ImportError, ValueError, zoneinfo.ZoneInfoNotFoundError):
        return not any(ch.isdigit() for ch in zone)  # a POSIX rule such as EST5EDT is fine
    return False


def _locale_missing(name: Optional[str]) -> bool:
    if name is None or name in {"C", "POSIX"}:
        return False
    import locale

    saved = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, name)
    except locale.Error:
        return True
    finally:
        locale.setlocale(locale.LC_CTYPE, saved)
    return False


def _unresolved(refs: tuple[str, ...]) -> list[str]:
    from truegreen.core.references import resolve_callable

    bad = []
    for ref in refs:
        try:
            resolve_callable(ref)
        except Exception as exc:  # report, whatever the import did
            bad.append(f"{ref!r} cannot be resolved ({type(exc).__name__}: {exc})")
    return bad


def guard_modes(settings: tgconfig.Config) -> str:
    """One line: what the guards do with each place a test may reach."""
    return (
        f"guards: writes under the real home {settings.home_writes}, into the project tree "
        f"{settings.tree_writes}; reads outside the sandbox {settings.reads}; "
        f"network {settings.network}"
    )


def run(args: argparse.Namespace) -> int:
    cwd = Path.cwd()
    settings = tgconfig.load(cwd, os.environ, args.flags, flag="--set")
    plugins = installed_plugins()
    facts = Facts(
        entry_point=plugins.get("truegreen"),
        environ=os.environ,
        addopts=_pytest_addopts(settings.source, cwd),
        unknown_zone=_zone_unknown(settings.timezone),
        missing_locale=sys.platform != "win32" and _locale_missing(settings.locale),
        unresolved_callables=_unresolved(settings.reset_caches),
    )
    others = [name for name in plugins if name != "truegreen"]
    facts = dataclasses.replace(facts, plugins=loaded_plugins(others, facts))
    beside = overlaps(facts.plugins, pytest_options(facts))
    seal = seal_for(settings, devnull=os.devnull, windows=sys.platform == "win32")
    removed = seal.describe(os.environ)
    setting = sorted({name for name, _ in seal.fixed} | {name for name, _ in seal.templated})
    active, why = plugin_active(settings, facts)
    sealed = active and settings.hermetic  # both layers go on and off together
    found = problems(settings, facts)
    if args.format == "json":
        document = {
            "format": formats.DOCTOR,
            "version": __version__,
            "config_file": str(settings.source) if settings.source else None,
            "plugin": {"active": active, "reason": why},
            "keys": {
                o.key: {
                    "value": json_value(o, settings.value(o.key)),
                    "layer": settings.layers[o.key],
                }
                for o in tgconfig.OPTIONS
            },
            "layers": {"process": sealed, "test": sealed},
            "removes": removed,
            "sets": setting,
            "beside": [{"plugin": o.plugin, "says": o.says} for o in beside],
            "problems": found,
        }
        print(json.dumps(document, indent=2))
        return 1 if found else 0
    where = settings.source or f"no [tool.truegreen] table above {cwd}; defaults apply"
    print(f"truegreen {__version__} doctor")
    print(f"configuration: {where}")
    print(f"plugin: {'active' if active else 'NOT active'} ({why})")
    print()
    width = max(len(o.key) for o in tgconfig.OPTIONS)
    print(f"{'key':<{width}}  {'value':<24}  from")
    for option in tgconfig.OPTIONS:
        value = toml_value(option, settings.value(option.key))
        print(f"{option.key:<{width}}  {value:<24}  {settings.layers[option.key]}")
    print()
    print(guard_modes(settings))
    print()
    layer = "on" if sealed else "off"
    print(f"seal layers: the whole process (from before the first conftest): {layer}; "
          f"each test (a fresh home, undone at its end): {layer}")  # fmt: skip
    if not settings.hermetic:
        print("hermetic = false: no variable is removed or set")
    elif removed:
        print("the hermetic environment removes these ambient variables (names only):")
        for reason, names in removed.items():
            print(f"  {reason}: {', '.join(names)}")
    else:
        print("the hermetic environment removes no ambient variable here")
    if settings.hermetic:
        print(f"and sets, for the process and every test: {', '.join(setting)}")
    print()
    if beside:
        print("other plugins that do part of truegreen's work:")
        for overlap in beside:
            print(f"  - {overlap.says}")
        print()
    if found:
        print("problems:")
        for line in found:
            print(f"  - {line}")
        return 1
    print("no problems found")
    return 0
