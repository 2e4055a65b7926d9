"""The ``[tool.truegreen]`` table: its keys, their layers, and one frozen result.

Layers, later wins: defaults < ``[tool.truegreen]`` < ``TRUEGREEN_*`` variables
< flags (``--truegreen-set KEY=VALUE``). Every bad input becomes one
:class:`ConfigError` line naming where it came from, the key, what was expected
and what was found.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, NamedTuple, Optional, Union

from truegreen.core.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9 and 3.10 only
    import tomli as tomllib

ENV_PREFIX = "TRUEGREEN_"
TABLE = "[tool.truegreen]"
# Sub-tables read and validated by their own feature, not by this module.
SUBTABLES = frozenset({"audit"})
FLAG = "--truegreen-set"

# A value in the table is one of these shapes.
Value = Union[bool, str, tuple[str, ...], tuple[tuple[str, str], ...], None]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_CALLABLE_REF = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*\Z")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
PLACEHOLDERS = ("tmp", "home")
WRITE_MODES = ("off", "warn", "fail", "block")
# ``writes`` speaks for both places; each place's own key wins over it (see ``_places``).
WRITE_PLACES = ("home-writes", "tree-writes")


# NamedTuples rather than frozen dataclasses: every pytest process (and xdist worker) imports
# this module, and building a dataclass compiles its methods, 7 times the cost.


class Option(NamedTuple):
    """One key of the table: its kind, default and one-line meaning."""

    key: str
    kind: str  # see _EXPECTED
    default: Value
    help: str
    choices: tuple[str, ...] = ()

    @property
    def attr(self) -> str:
        return self.key.replace("-", "_")

    @property
    def env_name(self) -> str:
        return ENV_PREFIX + self.key.replace("-", "_").upper()


OPTIONS: tuple[Option, ...] = (
    Option("enabled", "bool", True, "Turn the whole plugin on or off for this project."),
    Option(
        "hermetic",
        "bool",
        True,
        "Seal the pytest process before the first conftest, and every test on top of it.",
    ),
    Option(
        "keep-env",
        "names",
        (),
        "Variables the hermetic environment passes through untouched (credentials included).",
    ),
    Option("clear-env", "names", (), "Project-declared variables unset for every test."),
    Option(
        "clear-env-prefixes",
        "prefixes",
        (),
        "Prefixes of project-declared variables unset for every test, e.g. MYAPP_.",
    ),
    Option(
        "set-env",
        "env-map",
        (),
        "Variables set for every test; {tmp} and {home} expand to the test's own directories.",
    ),
    Option("timezone", "text-or-false", "UTC", "TZ for every test; false leaves TZ as it is."),
    Option(
        "locale",
        "text-or-false",
        "C.UTF-8",
        "LANG for every test (LC_ALL, LC_*, LANGUAGE unset); false leaves the locale as it is.",
    ),
    Option(
        "term",
        "text-or-false",
        "dumb",
        "TERM for every test (colour and size variables unset); false leaves them as they are.",
    ),
    Option(
        "reset-caches",
        "callables",
        (),
        "Callables ('pkg.module:function') called before every test to drop in-process caches.",
    ),
    Option(
        "writes",
        "choice",
        None,
        "Both places at once (home-writes and tree-writes), unless one is given itself at the "
        "same or a later layer.",
        WRITE_MODES,
    ),
    Option(
        "home-writes",
        "choice",
        "block",
        "Writes under the developer's real home: off, warn, fail (the test fails) or block "
        "(PermissionError on the spot, and the test fails).",
        WRITE_MODES,
    ),
    Option(
        "tree-writes",
        "choice",
        "fail",
        "Writes into the project tree: off, warn, fail (the write happens, the test fails) or "
        "block (PermissionError on the spot).",
        WRITE_MODES,
    ),
    Option(
        "reads",
        "choice",
        "warn",
        "Opens for reading of files under the real home or in a directory above the rootdir "
        "(Python's own installation and sys.path excepted): off, warn or fail.",
        ("off", "warn", "fail"),
    ),
    Option(
        "allow-writes",
        "globs",
        (),
        "Globs of paths tests may write (relative to the project root, or starting with ~/).",
    ),
    Option(
        "allow-reads",
        "globs",
        (),
        "Globs of files outside the sandbox tests may read (starting with ~/, or absolute).",
    ),
    Option(
        "network",
        "choice",
        "owned",
        "allow; loopback (nothing else); owned (loopback only to listeners this session "
        "started); block (no connection at all).",
        ("allow", "loopback", "owned", "block"),
    ),
    Option(
        "allow-hosts",
        "hosts",
        (),
        "Addresses tests may always reach, as host or host:port (127.0.0.1:5432, [::1]:8080).",
    ),
    Option(
        "deny-programs",
        "programs",
        (),
        "Programs no test may start, by name (docker, devcontainer, ...).",
    ),
    Option(
        "leftover-processes",
        "choice",
        "warn",
        "A child process a test started (subprocess, asyncio, os.spawn*) still running after "
        "the test: off, warn (reported), fail (the test fails) or kill (killed after the "
        "test); every one still running is killed at the end of the session.",
        ("off", "warn", "fail", "kill"),
    ),
    Option(
        "must-run",
        "globs",
        (),
        "Node-id patterns of gate tests that must be collected, run and pass; a skip, a "
        "deselection or an absence fails the run. A gate outside the run's selection (other "
        "paths, -k, -m, --deselect, --lf) is not required; --truegreen-must-run= (empty) "
        "runs without the gates.",
    ),
    Option(
        "allow-empty",
        "bool",
        False,
        "Let a run that executes no test (everything skipped or deselected) pass.",
    ),
    Option(
        "shard",
        "shard",
        None,
        "Run only shard K of N (1-based), e.g. '2/4'; also --truegreen-shard=K/N.",
    ),
    Option(
        "shard-mode",
        "choice",
        "digest",
        "digest: a unit goes to SHA-256(unit) mod N, stable as the suite changes; duration: "
        "balanced by recorded durations; external: another plugin (pytest-split) splits, "
        "truegreen only names the manifest shard-K-of-N.",
        ("digest", "duration", "external"),
    ),
    Option(
        "durations",
        "path",
        None,
        "JSON file of {node id: seconds} (pytest-split's .test_durations) for duration mode.",
    ),
    Option(
        "manifest",
        "path",
        None,
        "Directory to write this run's shard manifest into (shard-K-of-N.json).",
    ),
    Option(
        "metrics",
        "path",
        None,
        "Directory to record the run's event stream into (one JSON-lines file per process).",
    ),
    Option(
        "lane",
        "text",
        None,
        "This CI job's lane, recorded in the shard manifest for shards verify --lanes; "
        "default <os>-<arch>-<python>, e.g. linux-x86_64-py3.12.",
    ),
    Option(
        "tree-guard",
        "choice",
        "session",
        "Compare git status before and after: off, session (the whole run) or each (every test).",
        ("off", "session", "each"),
    ),
)
OPTIONS_BY_KEY: Mapping[str, Option] = {o.key: o for o in OPTIONS}
OPTIONS_BY_ENV: Mapping[str, Option] = {o.env_name: o for o in OPTIONS}

_EXPECTED = {
    "bool": "true or false",
    "text-or-false": "a non-empty string or false",
    "names": "a list of variable names",
    "prefixes": "a list of non-empty variable-name prefixes",
    "env-map": "a table of variable names to strings using only {tmp} and {home}",
    "callables": "a list of 'pkg.module:callable' references",
    "choice": "one of",
    "globs": "a list of non-empty path globs",
    "hosts": "a list of host or host:port addresses",
    "programs": "a list of program names (no directories)",
    "shard": "a shard K/N with 1 <= K <= N",
    "path": "a non-empty path",
    "text": "a non-empty string",
}
_HOST = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(?::(?P<port>[0-9]{1,5}))?\Z")


class Config(NamedTuple):
    """The effective configuration: one immutable object for the whole run."""

    enabled: bool = True
    hermetic: bool = True
    keep_env: tuple[str, ...] = ()
    clear_env: tuple[str, ...] = ()
    clear_env_prefixes: tuple[str, ...] = ()
    set_env: tuple[tuple[str, str], ...] = ()
    timezone: Optional[str] = "UTC"
    locale: Optional[str] = "C.UTF-8"
    term: Optional[str] = "dumb"
    reset_caches: tuple[str, ...] = ()
    writes: Optional[str] = None
    home_writes: str = "block"
    tree_writes: str = "fail"
    reads: str = "warn"
    allow_writes: tuple[str, ...] = ()
    allow_reads: tuple[str, ...] = ()
    network: str = "owned"
    allow_hosts: tuple[str, ...] = ()
    deny_programs: tuple[str, ...] = ()
    leftover_processes: str = "warn"
    tree_guard: str = "session"
    must_run: tuple[str, ...] = ()
    allow_empty: bool = False
    shard: Optional[str] = None
    shard_mode: str = "digest"
    durations: Optional[str] = None
    manifest: Optional[str] = None
    metrics: Optional[str] = None
    lane: Optional[str] = None
    # Where the table came from, and which layer decided each key.
    source: Optional[Path] = None
    layers: Mapping[str, str] = MappingProxyType({})

    def value(self, key: str) -> Value:
        """The effective value of a kebab-case key."""
        result: Value = getattr(self, OPTIONS_BY_KEY[key].attr)
        return result


def _describe(found: object) -> str:
    kinds = {bool: "a boolean", str: "a string", int: "an integer", float: "a float"}
    kind = kinds.get(type(found))
    if kind is None:
        kind = "a table" if isinstance(found, dict) else f"a {type(found).__name__}"
    return f"{found!r} ({kind})"


def _did_you_mean(word: str, choices: Sequence[str]) -> str:
    import difflib  # for a message only

    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _bad(where: str, option: Option, found: object, detail: str = "") -> ConfigError:
    expected = _EXPECTED[option.kind] + detail
    if option.choices:
        expected += " " + ", ".join(repr(c) for c in option.choices)
        if isinstance(found, str):
            detail = _did_you_mean(found, option.choices)
            return ConfigError(f"{where}: expected {expected}, found {found!r}{detail}")
    return ConfigError(f"{where}: expected {expected}, found {_describe(found)}")


def _valid_item(kind: str, item: str) -> bool:
    if kind == "names":
        return _NAME.match(item) is not None
    if kind == "prefixes":
        return bool(item) and _NAME.match(item) is not None
    if kind == "callables":
        return _CALLABLE_REF.match(item) is not None
    if kind == "globs":
        return bool(item.strip())
    if kind == "programs":
        return bool(item.strip()) and "/" not in item and "\\" not in item
    match = _HOST.match(item)  # hosts
    return match is not None and int(match.group("port") or 0) <= 65535


def _check_names(where: str, option: Option, raw: object) -> tuple[str, ...]:
    if not isinstance(raw, (list, tuple)) or not all(isinstance(x, str) for x in raw):
        raise _bad(where, option, raw)
    for item in raw:
        if not _valid_item(option.kind, item):
            raise _bad(where, option, raw, f"; {item!r} is not one")
    return tuple(raw)


def _check_env_map(where: str, option: Option, raw: object) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, dict):
        raise _bad(where, option, raw)
    pairs = []
    for name, value in raw.items():
        if not isinstance(name, str) or _NAME.match(name) is None or not isinstance(value, str):
            raise _bad(where, option, raw, f"; the entry {name!r} is not one")
        for placeholder in _PLACEHOLDER.findall(value.replace("{{", "").replace("}}", "")):
            if placeholder not in PLACEHOLDERS:
                raise _bad(where, option, raw, f"; {name} uses {{{placeholder}}}")
        try:
            expand(value, tmp="", home="")
        except ValueError:
            raise _bad(where, option, raw, f"; {name} has an unmatched brace") from None
        pairs.append((name, value))
    return tuple(pairs)


def _strings(raw: object) -> list[str]:
    """Every string a TOML-shaped value holds: its own, its items', a table's keys and values."""
    if isinstance(raw, str):
        return [raw]
    if isinstance(raw, dict):
        return [text for pair in raw.items() for item in pair for text in _strings(item)]
    if isinstance(raw, (list, tuple)):
        return [text for item in raw for text in _strings(item)]
    return []


def _check(where: str, option: Option, raw: object) -> Value:
    """Validate one TOML-shaped value for ``option``."""
    # A NUL cannot enter an environment, an argv or a path: every test would fail, far away.
    entries = raw.items() if isinstance(raw, dict) else [(None, raw)]
    for name, value in entries:
        if any("\0" in text for text in _strings([name, value])):
            what = repr(value) if name is None else f"the entry {name!r}"
            raise _bad(where, option, raw, f"; {what} holds a NUL character")
    if option.kind == "bool":
        if not isinstance(raw, bool):
            raise _bad(where, option, raw)
        return raw
    if option.kind == "text-or-false":
        if raw is False:
            return None
        if not isinstance(raw, str) or not raw.strip():
            raise _bad(where, option, raw)
        return raw
    if option.kind == "choice":
        if raw not in option.choices:
            raise _bad(where, option, raw)
        return str(raw)
    if option.kind in {"path", "text"}:
        if not isinstance(raw, str) or not raw.strip():
            raise _bad(where, option, raw)
        return raw
    if option.kind == "shard":
        if not isinstance(raw, str):
            raise _bad(where, option, raw)
        from truegreen.core.shards import parse_shard

        return str(parse_shard(raw, where))
    if option.kind == "env-map":
        return _check_env_map(where, option, raw)
    return _check_names(where, option, raw)


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _from_text(where: str, option: Option, text: str) -> Value:
    """Turn the string form used by variables and flags into a checked value."""
    lowered = text.strip().lower()
    if option.kind == "bool":
        if lowered in _TRUE | _FALSE:
            return lowered in _TRUE
        raise ConfigError(
            f"{where}: expected one of 1/0, true/false, yes/no, on/off, found {text!r}"
        )
    if option.kind == "text-or-false":
        return _check(where, option, False if lowered in _FALSE else text)
    if option.kind in {"choice", "path", "shard", "text"}:
        return _check(where, option, text.strip())
    items = [part.strip() for part in text.split(",") if part.strip()]
    if option.kind == "env-map":
        table: dict[str, str] = {}
        for item in items:
            name, sep, value = item.partition("=")
            if not sep:
                raise ConfigError(
                    f"{where}: expected comma-separated NAME=VALUE pairs, found {item!r}"
                )
            table[name.strip()] = value.strip()
        return _check(where, option, table)
    return _check(where, option, items)


def _unknown(where: str, word: str, choices: Sequence[str]) -> ConfigError:
    return ConfigError(
        f"{where}: expected a known key, found {word!r}{_did_you_mean(word, choices)}"
    )


def read_toml(path: Path) -> dict[str, Any]:
    """Parse one TOML file; any failure is a one-line ConfigError naming it."""
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"{path}: expected a readable file, found {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: expected valid TOML, found {exc}") from None


def read_table(
    path: Path, read: Callable[[Path], dict[str, Any]] = read_toml
) -> Optional[dict[str, Any]]:
    """The ``[tool.truegreen]`` table of one ``pyproject.toml``, or None if it has none;
    ``read`` parses the file (a caller that reads it for more than the table can share it)."""
    data = read(path)
    tool = data.get("tool")
    if not isinstance(tool, dict) or "truegreen" not in tool:
        return None
    table = tool["truegreen"]
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {TABLE}: expected a table, found {_describe(table)}")
    return table


def find_table(
    start: Path, read: Callable[[Path], dict[str, Any]] = read_toml
) -> tuple[Optional[Path], dict[str, Any]]:
    """Walk up from ``start`` to the nearest ``pyproject.toml`` with a truegreen table."""
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            table = read_table(candidate, read)
            if table is not None:
                return candidate, table
    return None, {}


def parse_flag(text: str, flag: str = FLAG) -> tuple[str, str]:
    """Split one ``--truegreen-set KEY=VALUE`` argument."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or key not in OPTIONS_BY_KEY:
        if sep and key:
            raise _unknown(flag, key, list(OPTIONS_BY_KEY))
        raise ConfigError(f"{flag}: expected KEY=VALUE, found {text!r}")
    return key, value


def build(
    table: Mapping[str, Any],
    *,
    source: Optional[Path] = None,
    environ: Mapping[str, str] = {},
    flags: Sequence[tuple[str, Union[str, list[str]], str]] = (),
) -> Config:
    """Layer defaults, the table, ``TRUEGREEN_*`` variables and flags into one Config.

    ``flags`` are ``(key, text, flag)`` in command-line order; ``flag`` names the option
    that carried the value, for the error message and the layer.
    """
    values: dict[str, Value] = {o.attr: o.default for o in OPTIONS}
    layers = {o.key: "default" for o in OPTIONS}
    # When each key was last set: (layer, position among the flags); later wins.
    ranks = {o.key: (0, 0) for o in OPTIONS}
    origin = f"{source or 'pyproject.toml'}: {TABLE}"
    for key, raw in table.items():
        if key in SUBTABLES:  # read and checked by its own feature
            if isinstance(raw, dict):
                continue
            raise ConfigError(f"{origin} {key}: expected a table, found {_describe(raw)}")
        option = OPTIONS_BY_KEY.get(key)
        if option is None:
            raise _unknown(origin, key, list(OPTIONS_BY_KEY))
        values[option.attr] = _check(f"{origin} {key}", option, raw)
        layers[key] = str(source or "pyproject.toml")
        ranks[key] = (1, 0)
    for name in sorted(environ):
        if not name.startswith(ENV_PREFIX):
            continue
        option = OPTIONS_BY_ENV.get(name)
        if option is None:
            raise _unknown("environment", name, list(OPTIONS_BY_ENV))
        values[option.attr] = _from_text(f"environment variable {name}", option, environ[name])
        layers[option.key] = name
        ranks[option.key] = (2, 0)
    for position, (key, text, flag) in enumerate(flags, 1):
        option = OPTIONS_BY_KEY[key]
        dedicated = flag == f"--truegreen-{key}"
        where = flag if dedicated else f"{flag} {key}"
        if isinstance(text, list):  # a repeatable flag: one value per use, never split
            values[option.attr] = _check(where, option, text)
        else:
            values[option.attr] = _from_text(where, option, text)
        layers[key] = flag if dedicated else f"{flag} {key}=..."
        ranks[key] = (3, position)
    _places(values, layers, ranks)
    return Config(**values, source=source, layers=layers)  # type: ignore[arg-type]


def _places(
    values: dict[str, Value], layers: dict[str, str], ranks: dict[str, tuple[int, int]]
) -> None:
    """Let ``writes`` speak for each place whose own key was set earlier than it: in an
    earlier layer, or in an earlier flag. In the same layer (the table, the variables) the
    place's own key wins; a place's key nobody set keeps its default unless ``writes`` is set."""
    if values["writes"] is None:
        return
    for key in WRITE_PLACES:
        if ranks["writes"] > ranks[key]:
            values[OPTIONS_BY_KEY[key].attr] = values["writes"]
            layers[key] = f"{layers['writes']} (writes)"


def load(
    start: Path,
    environ: Mapping[str, str],
    flags: Sequence[str] = (),
    loader: Callable[[Path], tuple[Optional[Path], dict[str, Any]]] = find_table,
    flag: str = FLAG,
    named: Sequence[tuple[str, Union[str, list[str]]]] = (),
) -> Config:
    """Find the table above ``start`` and build the effective Config.

    ``flags`` are ``KEY=VALUE`` texts carried by ``flag`` (so errors name what the user
    typed); ``named`` are ``(key, value)`` from dedicated flags such as
    ``--truegreen-tree-guard``, which win over ``flags``.
    """
    source, table = loader(start)
    triples: list[tuple[str, Union[str, list[str]], str]] = [
        (*parse_flag(f, flag), flag) for f in flags
    ]
    triples += [(key, _flag_value(key, value), f"--truegreen-{key}") for key, value in named]
    return build(table, source=source, environ=environ, flags=triples)


def _flag_value(key: str, value: Union[str, list[str]]) -> Union[str, list[str]]:
    """A dedicated flag's value: ``--truegreen-must-run=`` with nothing after the ``=`` is no
    gate for this run (the other patterns given on the command line stay)."""
    if key == "must-run" and isinstance(value, list):
        return [pattern for pattern in value if pattern]
    return value


def expand(template: str, *, tmp: str, home: str) -> str:
    """Expand ``{tmp}`` and ``{home}`` in a ``set-env`` value (``{{`` is a literal brace)."""
    return template.format_map({"tmp": tmp, "home": home})
