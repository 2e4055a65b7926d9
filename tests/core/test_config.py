"""The [tool.truegreen] table: layers, discovery, and one clear line for every bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from truegreen.core import config
from truegreen.core.config import Config, ConfigError, build, find_table, load

SOURCE = Path("/project/pyproject.toml")


def test_defaults_seal_time_locale_and_terminal() -> None:
    actual = build({})
    assert (actual.enabled, actual.hermetic) == (True, True)
    assert (actual.timezone, actual.locale, actual.term) == ("UTC", "C.UTF-8", "dumb")
    assert set(actual.layers.values()) == {"default"}


def test_layers_later_wins_and_each_key_remembers_its_layer() -> None:
    actual = build(
        {"timezone": "Europe/Paris", "locale": "en_US.UTF-8", "term": "xterm"},
        source=SOURCE,
        environ={"TRUEGREEN_LOCALE": "de_DE.UTF-8", "TRUEGREEN_TERM": "vt100", "PATH": "/bin"},
        flags=[("term", "false", "--truegreen-set")],
    )
    assert (actual.timezone, actual.locale, actual.term) == ("Europe/Paris", "de_DE.UTF-8", None)
    assert actual.layers["timezone"] == str(SOURCE)
    assert actual.layers["locale"] == "TRUEGREEN_LOCALE"
    assert actual.layers["term"] == "--truegreen-set term=..."
    assert actual.layers["enabled"] == "default"


def test_lists_and_tables_from_variables_and_flags() -> None:
    actual = build(
        {},
        environ={"TRUEGREEN_CLEAR_ENV_PREFIXES": "MYAPP_, OTHER_", "TRUEGREEN_ENABLED": "off"},
        flags=[("set-env", "MYAPP_TRACE_DIR={tmp}/trace, MYAPP_MODE=test", "--truegreen-set")],
    )
    assert actual.clear_env_prefixes == ("MYAPP_", "OTHER_")
    assert actual.enabled is False
    assert actual.set_env == (("MYAPP_TRACE_DIR", "{tmp}/trace"), ("MYAPP_MODE", "test"))


def test_a_dedicated_flag_wins_over_the_generic_one_and_names_itself() -> None:
    actual = load(
        Path("/"),
        {"TRUEGREEN_TREE_GUARD": "off"},
        ["tree-guard=session"],
        loader=lambda _: (None, {"tree-guard": "off"}),
        named=[("tree-guard", "each")],
    )
    assert actual.tree_guard == "each"
    assert actual.layers["tree-guard"] == "--truegreen-tree-guard"
    with pytest.raises(ConfigError, match=r"^--truegreen-tree-guard: expected one of"):
        load(Path("/"), {}, loader=lambda _: (None, {}), named=[("tree-guard", "sometimes")])


def test_guard_settings_from_variables() -> None:
    actual = build(
        {},
        environ={
            "TRUEGREEN_WRITES": "block",
            "TRUEGREEN_ALLOW_HOSTS": "127.0.0.1:5432, [::1]:8080, localhost",
            "TRUEGREEN_DENY_PROGRAMS": "docker,devcontainer",
        },
    )
    assert actual.writes == "block"
    assert actual.allow_hosts == ("127.0.0.1:5432", "[::1]:8080", "localhost")
    assert actual.deny_programs == ("docker", "devcontainer")


def test_the_home_is_blocked_and_the_tree_fails_by_default() -> None:
    actual = build({})
    assert (actual.writes, actual.home_writes, actual.tree_writes) == (None, "block", "fail")
    assert actual.reads == "warn"


def test_writes_sets_both_places_unless_one_is_given_in_the_same_or_a_later_layer() -> None:
    """Ablation: replace `ranks["writes"] > ranks[key]` with `True` in
    `src/truegreen/core/config.py`: the table's home-writes loses to writes. Restored."""
    both = build({"writes": "warn"}, source=SOURCE)
    assert (both.home_writes, both.tree_writes) == ("warn", "warn")
    assert both.layers["home-writes"] == f"{SOURCE} (writes)"
    same_layer = build({"writes": "warn", "home-writes": "block"}, source=SOURCE)
    assert (same_layer.home_writes, same_layer.tree_writes) == ("block", "warn")
    later = build({"home-writes": "fail"}, source=SOURCE, environ={"TRUEGREEN_WRITES": "off"})
    assert (later.home_writes, later.tree_writes) == ("off", "off")
    assert later.layers["tree-writes"] == "TRUEGREEN_WRITES (writes)"
    flags = build(
        {},
        flags=[("writes", "off", "--truegreen-set"), ("tree-writes", "block", "--truegreen-set")],
    )
    assert (flags.home_writes, flags.tree_writes) == ("off", "block")


def test_the_audit_sub_table_is_left_to_the_audit() -> None:
    assert build({"audit": {"select": ["ALL"]}, "writes": "warn"}, source=SOURCE).writes == "warn"


def test_config_is_frozen() -> None:
    settings = build({})
    with pytest.raises(AttributeError):
        settings.enabled = False  # type: ignore[misc]


BAD_TABLES: list[tuple[dict[str, Any], str]] = [
    (
        {"clear-evn": ["X"]},
        r"\[tool.truegreen\]: expected a known key, found 'clear-evn' "
        r"\(did you mean 'clear-env'\?\)",
    ),
    ({"enabled": "yes"}, r"enabled: expected true or false, found 'yes' \(a string\)"),
    (
        {"clear-env": "MYAPP_URL"},
        r"clear-env: expected a list of variable names, "
        r"found 'MYAPP_URL' \(a string\)",
    ),
    ({"clear-env": ["MY-APP"]}, r"clear-env: expected a list of variable names; 'MY-APP' is not"),
    ({"clear-env-prefixes": [""]}, r"clear-env-prefixes: expected a list of non-empty"),
    ({"keep-env": [1]}, r"keep-env: expected a list of variable names, found \[1\] \(a list\)"),
    ({"timezone": 3}, r"timezone: expected a non-empty string or false, found 3 \(an integer\)"),
    ({"timezone": ""}, r"timezone: expected a non-empty string or false, found ''"),
    ({"locale": True}, r"locale: expected a non-empty string or false, found True"),
    ({"set-env": ["A=1"]}, r"set-env: expected a table of variable names to strings"),
    ({"set-env": {"A": 1}}, r"set-env: expected a table .*; the entry 'A' is not one"),
    ({"set-env": {"A": "{temp}/x"}}, r"set-env: expected .*; A uses \{temp\}"),
    ({"set-env": {"A": "x}"}}, r"set-env: expected .*; A has an unmatched brace"),
    (
        {"reset-caches": ["pkg.module.func"]},
        r"reset-caches: expected a list of "
        r"'pkg.module:callable' references; 'pkg.module.func' is not one",
    ),
    (
        {"writes": "fial"},
        r"writes: expected one of 'off', 'warn', 'fail', 'block', found 'fial' "
        r"\(did you mean 'fail'\?\)",
    ),
    (
        {"home-writes": "refuse"},
        r"home-writes: expected one of 'off', 'warn', 'fail', 'block', found 'refuse'",
    ),
    ({"reads": "block"}, r"reads: expected one of 'off', 'warn', 'fail', found 'block'"),
    (
        {"network": True},
        r"network: expected one of 'allow', 'loopback', 'owned', 'block', "
        r"found True \(a boolean\)",
    ),
    (
        {"allow-hosts": ["127.0.0.1:99999"]},
        r"allow-hosts: expected a list of host or host:port "
        r"addresses; '127.0.0.1:99999' is not one",
    ),
    ({"allow-hosts": ["http://x"]}, r"allow-hosts: expected .*; 'http://x' is not one"),
    (
        {"deny-programs": ["/usr/bin/docker"]},
        r"deny-programs: expected a list of program "
        r"names \(no directories\); '/usr/bin/docker' is not one",
    ),
    ({"allow-writes": [" "]}, r"allow-writes: expected a list of non-empty path globs"),
    (
        {"tree-guard": "sesion"},
        r"tree-guard: expected one of 'off', 'session', 'each', "
        r"found 'sesion' \(did you mean 'session'\?\)",
    ),
]


@pytest.mark.parametrize(("table", "message"), BAD_TABLES)
def test_bad_table_values_are_one_line_naming_file_key_expected_and_found(
    table: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        build(table, source=SOURCE)
    assert str(caught.value).startswith(f"{SOURCE}: [tool.truegreen]")
    assert "\n" not in str(caught.value)


NUL_TABLES: list[tuple[dict[str, Any], str]] = [
    ({"set-env": {"A": "x\0y"}}, r"set-env: expected .*; the entry 'A' holds a NUL character"),
    ({"set-env": {"A": "{tmp}\0"}}, r"set-env: expected .*; the entry 'A' holds a NUL character"),
    ({"set-env": {"A\0": "x"}}, r"set-env: expected .*; the entry 'A\\x00' holds a NUL"),
    ({"set-env": {"A=B": "x"}}, r"set-env: expected .*; the entry 'A=B' is not one"),
    ({"timezone": "UTC\0"}, r"timezone: expected .*; 'UTC\\x00' holds a NUL character"),
    ({"allow-writes": ["out/\0"]}, r"allow-writes: expected .*; \['out/\\x00'\] holds a NUL"),
    ({"metrics": "m\0"}, r"metrics: expected a non-empty path; 'm\\x00' holds a NUL"),
]


@pytest.mark.parametrize(("table", "message"), NUL_TABLES)
def test_a_nul_in_any_value_is_refused_where_it_is_configured(
    table: dict[str, Any], message: str
) -> None:
    """A NUL cannot enter an environment, an argv or a path: it passed `doctor`, then failed
    every test as the environment was set. It is one line naming the file, key and entry.

    Ablation: replace `_strings([name, value])` with `[]` in `src/truegreen/core/config.py`.
    """
    with pytest.raises(ConfigError, match=message) as caught:
        build(table, source=SOURCE)
    assert str(caught.value).startswith(f"{SOURCE}: [tool.truegreen]")
    assert "\n" not in str(caught.value)


BAD_VARIABLES = [
    (
        {"TRUEGREEN_HERMETC": "0"},
        r"environment: expected a known key, found 'TRUEGREEN_HERMETC' "
        r"\(did you mean 'TRUEGREEN_HERMETIC'\?\)",
    ),
    (
        {"TRUEGREEN_ENABLED": "maybe"},
        r"environment variable TRUEGREEN_ENABLED: expected one of "
        r"1/0, true/false, yes/no, on/off, found 'maybe'",
    ),
    (
        {"TRUEGREEN_SET_ENV": "A"},
        r"TRUEGREEN_SET_ENV: expected comma-separated NAME=VALUE "
        r"pairs, found 'A'",
    ),
    ({"TRUEGREEN_TIMEZONE": " "}, r"TRUEGREEN_TIMEZONE: expected a non-empty string or false"),
]


@pytest.mark.parametrize(("environ", "message"), BAD_VARIABLES)
def test_bad_variables_name_the_variable(environ: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build({}, environ=environ)


def test_bad_flags_name_the_flag() -> None:
    with pytest.raises(ConfigError, match=r"--truegreen-set: expected KEY=VALUE, found 'term'"):
        load(Path("/"), {}, ["term"], loader=lambda _: (None, {}))
    with pytest.raises(ConfigError, match=r"found 'timezon' \(did you mean 'timezone'\?\)"):
        load(Path("/"), {}, ["timezon=UTC"], loader=lambda _: (None, {}))
    with pytest.raises(ConfigError, match=r"--truegreen-set hermetic: expected one of 1/0"):
        load(Path("/"), {}, ["hermetic=sometimes"], loader=lambda _: (None, {}))


def test_find_table_takes_the_nearest_pyproject_that_has_a_truegreen_table(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.truegreen]\ntimezone = "Asia/Tokyo"\n')
    nested = tmp_path / "pkg" / "sub"
    nested.mkdir(parents=True)
    (tmp_path / "pkg" / "pyproject.toml").write_text('[project]\nname = "pkg"\n')
    source, table = find_table(nested)
    assert (source, table) == (tmp_path / "pyproject.toml", {"timezone": "Asia/Tokyo"})


def test_find_table_without_any_table_gives_defaults(tmp_path: Path) -> None:
    assert find_table(tmp_path) == (None, {})


def test_unreadable_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.truegreen\n")
    with pytest.raises(ConfigError, match=rf"^{path}: expected valid TOML, found .*line 1"):
        find_table(tmp_path)


def test_a_table_that_is_not_a_table_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool]\ntruegreen = 3\n")
    with pytest.raises(ConfigError, match=r"\[tool.truegreen\]: expected a table, found 3"):
        find_table(tmp_path)


def test_set_env_expands_tmp_and_home_and_keeps_doubled_braces() -> None:
    assert config.expand("{tmp}/t-{{x}}-{home}", tmp="/T", home="/H") == "/T/t-{x}-/H"


toml_scalars = st.one_of(
    st.booleans(), st.integers(), st.text(max_size=12), st.floats(allow_nan=False)
)
toml_values = st.recursive(
    toml_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)
keys = st.sampled_from([o.key for o in config.OPTIONS]) | st.text(max_size=12)


@given(st.dictionaries(keys, toml_values, max_size=4))
def test_any_table_loads_or_fails_with_one_line_naming_the_file(table: dict[str, Any]) -> None:
    try:
        result = build(table, source=SOURCE)
    except ConfigError as exc:
        message = str(exc)
        assert message.startswith(f"{SOURCE}: [tool.truegreen]")
        assert "\n" not in message
        assert "expected" in message
        assert "found" in message
    else:
        assert isinstance(result, Config)
        assert set(table) <= {o.key for o in config.OPTIONS} | config.SUBTABLES
