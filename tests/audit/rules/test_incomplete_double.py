"""TG203 incomplete-double over its fixture project."""

from __future__ import annotations

import ast

from tests.audit.rules.harness import audit, marked_and_found, project
from truegreen.audit import graph

IMPORTS = "from devc.cli import DevcontainerCli\nfrom devc.ports import Port\n\n\n"
PARTIAL = "    def probe(self):\n        return True\n"
COMPLETE = "".join(
    f"    def {name}(self):\n        return None\n"
    for name in ("probe", "read_configuration", "up", "exec", "close")
)


def flagged(source: str) -> list[str]:
    findings = audit(project("TG203"), "TG203", "tests/test_x.py", IMPORTS + source)
    return [f.message for f in findings]


def methods(module: str, cls: str) -> list[str]:
    found = graph.graph(project("TG203")).module(module)
    assert found is not None
    body = found.classes[cls].body
    return [f.name for f in body if isinstance(f, ast.FunctionDef)]


def left_alone(message: str) -> list[str]:
    return message.split(" but leaves ")[1].split(" un-overridden")[0].split(", ")


def test_it_flags_exactly_the_marked_doubles() -> None:
    marked, found = marked_and_found(project("TG203"), "TG203")
    assert marked, "the fixture project marks no line"
    assert found == marked


def test_it_lists_what_the_double_leaves_to_the_real_class_and_its_bases() -> None:
    expected = [
        "FakeCli subclasses devc.cli.DevcontainerCli but leaves read_configuration, up, exec, "
        "close un-overridden: override each (raise if unexpected) or wrap the real class instead"
    ]
    assert flagged("class FakeCli(DevcontainerCli):\n" + PARTIAL) == expected


def test_it_stays_silent_for_a_fully_overridden_double() -> None:
    """Ablation: replace `m not in overridden` with `True` in
    `src/truegreen/audit/rules/incomplete_double.py`."""
    assert flagged("class FakeCli(DevcontainerCli):\n" + PARTIAL) != []  # premise
    assert flagged("class FakeCli(DevcontainerCli):\n" + COMPLETE) == []


def test_it_stays_silent_for_a_subclass_not_named_as_a_double() -> None:
    """Ablation: replace `not DOUBLE.search(node.name)` with `False` in
    `src/truegreen/audit/rules/incomplete_double.py`."""
    assert flagged("class FakeCli(DevcontainerCli):\n" + PARTIAL) != []  # premise
    assert flagged("class LoggingCli(DevcontainerCli):\n" + PARTIAL) == []


def test_it_stays_silent_for_methods_that_are_only_stubs() -> None:
    """`Port.receive` is `raise NotImplementedError`: nothing to reach.

    Ablation: replace `_stub(function.body)` with `False` in
    `src/truegreen/audit/rules/incomplete_double.py`."""
    assert methods("devc.ports", "Port") == ["send", "receive"]  # premise
    send = "    def send(self, data):\n        return None\n"
    assert flagged("class FakePort(Port):\n" + send) == []


def test_it_does_not_list_properties() -> None:
    """Ablation: replace `name in SKIPPED` with `False` in
    `src/truegreen/audit/rules/incomplete_double.py`."""
    assert "name" in methods("devc.cli", "DevcontainerCli")  # premise: a public property
    listed = flagged("class FakeCli(DevcontainerCli):\n" + PARTIAL)
    assert [left_alone(message) for message in listed] == [
        ["read_configuration", "up", "exec", "close"]
    ]


def test_it_stays_silent_for_a_data_double_that_overrides_no_method() -> None:
    """Ablation: replace `overridden & replaced` with `True` in
    `src/truegreen/audit/rules/incomplete_double.py`."""
    assert flagged("class DummyCli(DevcontainerCli):\n" + PARTIAL) != []  # premise
    assert flagged("class DummyCli(DevcontainerCli):\n    passed = True\n") == []


def test_what_a_mixin_of_the_same_file_overrides_counts() -> None:
    """Ablation: delete `members |= self._local_members(local[named.id], seen)` in
    `src/truegreen/audit/rules/incomplete_double.py`."""
    mixin = "class Offline:\n    def read_configuration(self):\n        return {}\n\n\n"
    rest = "".join(
        f"    def {name}(self):\n        return None\n" for name in ("up", "exec", "close")
    )
    assert flagged("class FakeCli(DevcontainerCli):\n" + PARTIAL + rest) != []  # premise
    assert flagged(mixin + "class FakeCli(Offline, DevcontainerCli):\n" + PARTIAL + rest) == []
