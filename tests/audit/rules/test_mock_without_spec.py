"""TG206 mock-without-spec over its fixture project."""

from __future__ import annotations

from tests.audit.rules.harness import audit, marked_and_found, project

HEAD = "from unittest import mock\nfrom unittest.mock import Mock\n"


def test_it_flags_exactly_the_marked_mocks() -> None:
    marked, found = marked_and_found(project("TG206"), "TG206")
    assert marked, "the fixture project marks no line"
    assert found == marked


def test_it_names_the_class_and_the_way_out() -> None:
    source = HEAD + "\n\ndef test_it():\n    mock.patch('app.service.Client')\n"
    findings = audit(project("TG206"), "TG206", "tests/test_x.py", source)
    assert [f.message for f in findings] == [
        '"app.service.Client" is patched with a mock without a spec, standing in for '
        "app.client.Client, a class of the project: any call and attribute pass, and a "
        "changed signature goes unnoticed; add autospec=True"
    ]


def test_a_patched_function_is_not_a_class() -> None:
    """Ablation: replace `found[1] not in found[0].classes` with `False` in
    `src/truegreen/audit/rules/mock_without_spec.py`."""
    patch = HEAD + "\n\ndef test_it():\n    mock.patch({!r})\n"
    whole = project("TG206")
    premise = audit(whole, "TG206", "tests/test_x.py", patch.format("app.service.Client"))
    assert len(premise) == 1  # premise: the class itself is flagged
    assert audit(whole, "TG206", "tests/test_x.py", patch.format("app.service.connect")) == []


def test_a_spec_keyword_silences_it() -> None:
    """Ablation: replace `found is None or any(k.arg in SPECS for k in node.keywords)` with
    `found is None` in
    `src/truegreen/audit/rules/mock_without_spec.py`."""
    patch = HEAD + "\n\ndef test_it():\n    mock.patch('app.service.Client'{})\n"
    whole = project("TG206")
    assert len(audit(whole, "TG206", "tests/test_x.py", patch.format(""))) == 1  # premise
    assert audit(whole, "TG206", "tests/test_x.py", patch.format(", autospec=True")) == []


def test_a_mock_with_a_spec_passed_in_is_not_flagged() -> None:
    """Ablation: replace `bool(node.args)` with `False` in
    `src/truegreen/audit/rules/mock_without_spec.py`."""
    call = "from unittest.mock import Mock\nfrom app.service import Service\nfrom app.client "
    call += "import Client\n\n\ndef test_it():\n    Service(Mock({}))\n"
    whole = project("TG206")
    assert len(audit(whole, "TG206", "tests/test_x.py", call.format(""))) == 1  # premise
    assert audit(whole, "TG206", "tests/test_x.py", call.format("Client")) == []


def test_a_parameter_of_another_type_is_not_flagged() -> None:
    """`retries: int` and `things: list` take a mock without standing for a project class.

    Ablation: replace `self._annotated_class(home, parameter.annotation)` with
    `"app.client.Client"` in `src/truegreen/audit/rules/mock_without_spec.py`."""
    call = "from unittest.mock import Mock\nfrom app.service import Service\n\n\n"
    call += "def test_it(client):\n    Service({})\n"
    whole = project("TG206")
    premise = audit(whole, "TG206", "tests/test_x.py", call.format("Mock()"))
    assert len(premise) == 1  # premise: client's parameter is annotated with Client
    assert audit(whole, "TG206", "tests/test_x.py", call.format("client, retries=Mock()")) == []
