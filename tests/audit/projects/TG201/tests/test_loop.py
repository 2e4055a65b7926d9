from unittest import mock

import agent.llm
from agent import llm
from agent.llm import LLMClient
from agent.research.loop import run_loop


def test_patches_the_class_where_it_is_defined(mocker):
    client = mocker.patch("agent.llm.LLMClient")  # expect: TG201
    run_loop()
    client.return_value.ask.assert_called_once()


@mock.patch("agent.llm.fetch")  # expect: TG201
def test_patches_a_function_where_it_is_defined(fetch):
    run_loop()
    fetch.assert_called_once()


def test_monkeypatches_the_definition(monkeypatch):
    monkeypatch.setattr("agent.llm.LLMClient", object)  # expect: TG201
    assert run_loop()


def test_monkeypatches_the_defining_module_object(monkeypatch):
    monkeypatch.setattr(llm, "LLMClient", object)  # expect: TG201
    assert run_loop()


def test_patches_the_defining_module_object():
    with mock.patch.object(agent.llm, "LLMClient"):  # expect: TG201
        assert run_loop()


def test_patches_where_it_is_used(mocker):
    client = mocker.patch("agent.research.loop.LLMClient")
    run_loop()
    client.return_value.ask.assert_called_once()


def test_patches_a_name_nobody_imports_by_from(mocker):
    lonely = mocker.patch("agent.tools.lonely")
    assert lonely() is not None


def test_patches_a_name_imported_inside_a_function(mocker):
    lazy = mocker.patch("agent.tools.lazy")
    run_loop()
    lazy.assert_called_once()


def test_patches_a_method_of_the_class(mocker):
    ask = mocker.patch("agent.llm.LLMClient.ask")
    run_loop()
    ask.assert_called_once()


def test_patches_the_class_object(mocker):
    ask = mocker.patch.object(LLMClient, "ask")
    run_loop()
    ask.assert_called_once()


def test_patches_a_name_outside_the_project(mocker):
    get = mocker.patch("requests.get")
    run_loop()
    get.assert_not_called()


def test_patches_a_name_the_defining_module_uses(mocker):
    client = mocker.patch("agent.clients.HttpClient")
    assert agent.clients.default_client() is client.return_value
