"""What ``truegreen doctor`` knows to be wrong, decided from facts it is handed."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Optional

from truegreen.core.config import Config, Option, Value
from truegreen.core.overlaps import overlaps


@dataclass(frozen=True)
class Facts:
    """What the command line gathered about this machine and project."""

    entry_point: Optional[str]  # "truegreen.plugin" when pytest will autoload us
    environ: Mapping[str, str]
    addopts: Sequence[str]  # addopts from the pytest configuration, as strings
    unknown_zone: bool = False
    missing_locale: bool = False
    unresolved_callables: Sequence[str] = ()
    plugins: Sequence[str] = ()  # pytest11 entry points pytest will load besides ours


def toml_value(option: Option, value: Value) -> str:
    """Render an effective value the way it would be written in ``[tool.truegreen]``."""
    if value is None and option.kind == "choice":
        return "(not set)"
    if value is None or isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    data = json_value(option, value)
    if isinstance(data, dict):
        pairs = ", ".join(f"{name} = {json.dumps(v)}" for name, v in data.items())
        return "{ " + pairs + " }" if pairs else "{}"
    return json.dumps(data)


def json_value(option: Option, value: Value) -> object:
    """The effective value as JSON data: lists for lists, objects for tables."""
    if not isinstance(value, tuple):
        return value
    if option.kind == "env-map":
        return {str(pair[0]): str(pair[1]) for pair in value}
    return list(value)


def plugin_active(config: Config, facts: Facts) -> tuple[bool, str]:
    """Whether pytest will run the plugin here, and why (not)."""
    if facts.entry_point is None:
        return False, "no pytest11 entry point named truegreen: install the package (pip install)"
    opts = " ".join([facts.environ.get("PYTEST_ADDOPTS", ""), *facts.addopts])
    if "no:truegreen" in opts.replace("-p ", "-p"):
        return False, "-p no:truegreen is in PYTEST_ADDOPTS or the pytest addopts"
    autoload_off = facts.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    if autoload_off and "truegreen" not in facts.environ.get("PYTEST_PLUGINS", "") + opts:
        return False, "PYTEST_DISABLE_PLUGIN_AUTOLOAD is set: pass -p truegreen to load it"
    if not config.enabled:
        return False, f"enabled = false (from {config.layers.get('enabled', 'default')})"
    return True, f"entry point truegreen = {facts.entry_point!r}"


def problems(config: Config, facts: Facts) -> list[str]:
    """Everything doctor can tell is wrong or self-defeating, one line each."""
    found = []
    active, why = plugin_active(config, facts)
    if not active:
        found.append(f"the plugin will not run: {why}")
    elif not config.hermetic:
        found.append("hermetic = false: tests run in the ambient environment")
    both = sorted(set(config.keep_env) & set(config.clear_env))
    if both:
        found.append(f"in both keep-env and clear-env (keep-env wins): {', '.join(both)}")
    if facts.unknown_zone:
        found.append(
            f"timezone {config.timezone!r} is not a zone this machine knows; "
            "the C library silently treats it as UTC"
        )
    if facts.missing_locale:
        found.append(
            f"locale {config.locale!r} is not installed here; programs fall back to 'C' "
            "(pick one from `locale -a` or set locale = false)"
        )
    for ref in facts.unresolved_callables:
        found.append(f"reset-caches: {ref}")
    found.extend(o.says for o in overlaps(facts.plugins, pytest_options(facts)) if o.problem)
    return found


def pytest_options(facts: Facts) -> list[str]:
    """The options every pytest run here gets: PYTEST_ADDOPTS and the configuration's addopts."""
    return [facts.environ.get("PYTEST_ADDOPTS", ""), *facts.addopts]


def loaded_plugins(entry_points: Sequence[str], facts: Facts) -> list[str]:
    """The pytest11 entry points pytest will load: all of them unless ``-p no:NAME`` or
    PYTEST_DISABLE_PLUGIN_AUTOLOAD (then only those named with ``-p NAME``)."""
    words = " ".join(pytest_options(facts)).replace("-p ", "-p").split()
    off = {w[len("-pno:") :] for w in words if w.startswith("-pno:")}
    named = {w[len("-p") :] for w in words if w.startswith("-p") and not w.startswith("-pno:")}
    autoload = not facts.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    return [n for n in entry_points if n not in off and (autoload or n in named)]
