"""The protocol between the command and the plugin: one spelling of each option and file."""

from __future__ import annotations

import argparse
import importlib.util

import pytest
from hypothesis import given
from hypothesis import strategies as st

from truegreen.core import protocol
from truegreen.core.errors import DataError


def parsed(argv: list[str]) -> argparse.Namespace:
    """What pytest's parser makes of the hidden options: the plugin adds them this way."""
    parser = argparse.ArgumentParser()
    for option in protocol.HIDDEN:
        parser.add_argument(option.flag, dest=option.dest)
    return parser.parse_args(argv)


def test_a_request_reads_back_as_it_was_built() -> None:
    request = protocol.Request(plan_out="u.json", only_file="tests/test_a.py", order="o.json")
    options = parsed(request.argv())
    assert protocol.Request.from_options(lambda dest: getattr(options, dest)) == request


def test_an_empty_request_adds_no_argument() -> None:
    assert protocol.Request().argv() == []
    assert protocol.Request.from_options(lambda dest: None) == protocol.Request()


def test_every_hidden_option_is_in_the_request_and_spelled_once() -> None:
    assert {o.flag for o in protocol.HIDDEN} == {o.flag for o in protocol.OPTIONS.values()}
    assert len({o.flag for o in protocol.HIDDEN}) == len(protocol.HIDDEN)
    assert all(o.flag == "--" + o.dest.replace("_", "-") for o in protocol.HIDDEN)


@given(st.lists(st.text()))
def test_node_ids_of_any_spelling_survive_the_file(ids: list[str]) -> None:
    assert protocol.read_ids(protocol.ids_text(ids), "order.json") == ids


def test_units_survive_the_file_in_collection_order() -> None:
    units = {"t.py::B::b": "t.py::B", "t.py::a": "t.py::a"}
    text = protocol.json.dumps(protocol.units_document(units))
    assert list(protocol.read_units(text, "units.json").items()) == list(units.items())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", r"^units\.json: expected JSON, found Expecting value"),
        ('{"format": 2, "units": {}}', r"^units\.json: expected a units document of format 1"),
        ('{"format": 1, "units": ["t.py::a"]}', r"^units\.json: 'units' expected an object"),
        ('{"format": 1, "units": {"t.py::a": 1}}', r"^units\.json: 'units' expected an object"),
    ],
)
def test_a_units_file_that_is_not_one_is_a_data_error(text: str, message: str) -> None:
    with pytest.raises(DataError, match=message):
        protocol.read_units(text, "units.json")


def test_an_ids_file_that_is_not_a_list_of_strings_is_a_data_error() -> None:
    with pytest.raises(DataError, match=r"^o\.json: expected a JSON list of node ids, found "):
        protocol.read_ids('["t.py::a", 3]', "o.json")


def test_the_basetemp_file_reads_back_and_refuses_what_lacks_a_field() -> None:
    written = protocol.Basetemp("/tmp/pytest-of-me/pytest-3", False, "failed")
    assert protocol.Basetemp.read(written.text(), "b.json") == written
    with pytest.raises(DataError, match=r"^b\.json: expected basetemp, given and policy"):
        protocol.Basetemp.read('{"basetemp": "/tmp/x"}', "b.json")


def test_every_module_a_fork_server_imports_ahead_exists() -> None:
    missing = [m for m in protocol.PLUGIN_MODULES if importlib.util.find_spec(m) is None]
    assert missing == []


def test_the_plugin_adds_exactly_the_protocol_s_hidden_options(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfig(*protocol.Request(plan_out="u.json", order="o.json").argv())
    request = protocol.Request.from_options(config.getoption)
    assert request == protocol.Request(plan_out="u.json", order="o.json")


def test_documents_survive_the_file_and_an_older_file_names_none() -> None:
    documents = {"m.py::m.a": "DoctestModule:m.py", "m.py::m.b": "DoctestModule:m.py"}
    text = protocol.json.dumps(protocol.units_document({"m.py::m.a": "m.py::m.a"}, documents))
    assert protocol.read_documents(text, "units.json") == documents
    older = '{"format": 1, "units": {"t.py::a": "t.py::a"}}'
    assert protocol.read_documents(older, "units.json") == {}
    with pytest.raises(DataError, match=r"^units\.json: 'documents' expected an object"):
        protocol.read_documents('{"format": 1, "units": {}, "documents": ["m.py"]}', "units.json")
