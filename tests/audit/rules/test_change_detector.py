"""TG102 change-detector over its fixture project."""

from __future__ import annotations

import ast

from tests.audit.rules.harness import audit, marked_and_found, project
from truegreen.audit import graph

IMPORTS = "from catalog.models import DEFAULT_CONFIG, MODELS, VERSION\n\n\n"


def flagged(body: str) -> list[str]:
    source = IMPORTS + "def test_it():\n    " + body + "\n"
    return [f.message for f in audit(project("TG102"), "TG102", "tests/test_x.py", source)]


def test_it_flags_exactly_the_marked_assertions() -> None:
    marked, found = marked_and_found(project("TG102"), "TG102")
    assert marked, "the fixture project marks no line"
    assert found == marked


def test_it_says_what_the_assertion_pins() -> None:
    expected = [
        "asserts a literal count of catalog.models.MODELS: pin a relationship the code must "
        "keep (a computed value, a bound), not data expected to change"
    ]
    assert flagged('assert len(MODELS["gemini"]) == 8') == expected


def test_it_stays_silent_on_a_comparison_of_two_pieces_of_data() -> None:
    """Ablation: replace `not _literal(value)` with `False` in
    `src/truegreen/audit/rules/change_detector.py`."""
    assert flagged('assert DEFAULT_CONFIG["_config_version"] == 21') != []  # premise
    assert flagged('assert raw["_config_version"] == DEFAULT_CONFIG["_config_version"]') == []


def test_it_stays_silent_on_a_module_value_computed_at_import() -> None:
    """Ablation: replace `value is not None and _literal(value)` with `value is not None` in
    `src/truegreen/audit/rules/change_detector.py`."""
    models = graph.graph(project("TG102")).module("catalog.models")
    assert models is not None
    assert isinstance(models.assigned["VERSION"], ast.Call)  # premise: resolved, not a literal
    assert flagged('assert VERSION == "1.0"') == []


def test_it_stays_silent_on_the_plumbing_check() -> None:
    """Ablation: replace `_also_indexed(whole, right, left)` with `False` in
    `src/truegreen/audit/rules/change_detector.py`."""
    assert flagged('assert "gemini" in MODELS') != []  # premise
    assert flagged('assert "gemini" in MODELS and len(MODELS["gemini"]) >= 1') == []


def test_it_stays_silent_on_a_bound() -> None:
    """Ablation: replace `not isinstance(op, ast.Eq)` with `False` in
    `src/truegreen/audit/rules/change_detector.py`."""
    assert flagged('assert len(MODELS["gemini"]) == 1') != []  # premise
    assert flagged('assert len(MODELS["gemini"]) >= 1') == []


def test_it_stays_silent_outside_a_test_function() -> None:
    """Ablation: replace `self.ctx.test_function is None` with `False` in
    `src/truegreen/audit/rules/change_detector.py`."""
    assert flagged("assert len(MODELS) == 2") != []  # premise
    source = IMPORTS + "def check_catalog():\n    assert len(MODELS) == 2\n"
    assert audit(project("TG102"), "TG102", "tests/test_x.py", source) == []


def test_it_stays_silent_on_a_class_attribute() -> None:
    """Ablation: replace `modules.resolve(module, owner) is not None` with `False` in
    `src/truegreen/audit/rules/change_detector.py`."""
    models = graph.graph(project("TG102")).module("catalog.models")
    assert models is not None
    assert "Color" in models.classes  # premise: Color.RED is a class attribute in the source
    source = "from catalog.models import Color\n\n\ndef test_it():\n    assert Color.RED == 1\n"
    assert audit(project("TG102"), "TG102", "tests/test_x.py", source) == []


def star_flagged(body: str) -> list[str]:
    source = "import catalog\n\n\ndef test_it():\n    " + body + "\n"
    return [f.message for f in audit(project("TG102"), "TG102", "tests/test_x.py", source)]


def test_an_enum_member_a_star_import_re_exports_is_a_class_attribute() -> None:
    """httpx's `codes` comes into the package by `from ._status_codes import *`: its members
    are a class's attributes, not module-level constants (`assert httpx.codes.NOT_FOUND ==
    404` compares an IntEnum member with its number).

    Ablation: replace `found.stars` with `()` in
    `src/truegreen/audit/graph.py`."""
    package = graph.graph(project("TG102")).module("catalog")
    assert package is not None
    assert package.stars == ("catalog.status",)  # premise: the package star-imports it
    assert star_flagged("assert catalog.codes.NOT_FOUND == 404") == []


def test_a_star_import_binds_only_what_all_lists() -> None:
    """`from x import *` binds the names of x's `__all__`, or its public names without one.

    Ablation: replace `e.value == name` with `True` in `src/truegreen/audit/graph.py`."""
    modules = graph.graph(project("TG102"))
    assert modules.resolve("catalog", "LIMITS") is not None  # premise: listed in __all__
    assert modules.resolve("catalog", "TIMEOUT") is None
