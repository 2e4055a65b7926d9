"""Plugins that do part of truegreen's work: what is said of each, and when it is a problem."""

from __future__ import annotations

from truegreen.core.config import load
from truegreen.core.doctor import Facts, loaded_plugins, problems
from truegreen.core.overlaps import KNOWN, overlaps


def test_each_known_plugin_is_named_with_who_decides() -> None:
    found = overlaps(KNOWN, [])
    assert [o.plugin for o in found] == list(KNOWN.values())
    assert all("truegreen" in o.says for o in found)
    assert not any(o.problem for o in found)


def test_pytest_socket_refusing_sockets_overrides_the_network_guard() -> None:
    """With --disable-socket (or --allow-hosts) in force, pytest-socket refuses a socket before
    truegreen's guard sees the connection: allow-hosts and the owned mode do nothing.

    Ablation: replace `[flag for flag in _SOCKET_ON if flag in words]` with `[]` in
    `src/truegreen/core/overlaps.py`.
    """
    quiet = overlaps(["socket"], ["-q"])
    assert [(o.plugin, o.problem) for o in quiet] == [("pytest-socket", False)]  # premise
    for opts in (["-q --disable-socket"], ["--allow-hosts=127.0.0.1"]):
        (overlap,) = overlaps(["socket"], opts)
        assert overlap.problem
        assert "pytest-socket decides" in overlap.says


def test_plugins_turned_off_by_name_or_autoload_are_not_loaded() -> None:
    """Ablation: replace `n not in off` with `True` in `src/truegreen/core/doctor.py`."""
    names = ["socket", "randomly", "xdist"]
    assert loaded_plugins(names, Facts(None, {}, [])) == names  # premise
    assert loaded_plugins(names, Facts(None, {}, ["-p no:socket", "-pno:randomly"])) == ["xdist"]
    no_autoload = Facts(None, {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}, ["-p xdist"])
    assert loaded_plugins(names, no_autoload) == ["xdist"]


def test_doctor_counts_an_overriding_plugin_as_a_problem(tmp_path) -> None:
    settings = load(tmp_path, {}, [])
    facts = Facts("truegreen.plugin", {"PYTEST_ADDOPTS": "--disable-socket"}, [],
                  plugins=["socket"])  # fmt: skip
    assert [line for line in problems(settings, facts) if "pytest-socket" in line] == [
        overlaps(["socket"], ["--disable-socket"])[0].says
    ]
