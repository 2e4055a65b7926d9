import unittest
from unittest import mock

from agent import research
from agent.research import search


def test_patches_the_definition_and_calls_its_own_module(mocker):
    # search.search looks query up in agent.research.search, where it is patched
    query = mocker.patch("agent.research.search.query", return_value=["x"])
    assert search.search("x") == ["x"]
    query.assert_called_once()


def test_patches_the_definition_and_calls_the_package(mocker):
    mocker.patch("agent.research.search.query", return_value=["x"])  # expect: TG201
    assert research.first("x") == "x"


def test_patches_the_definition_and_calls_both(mocker):
    mocker.patch("agent.research.search.query", return_value=["x"])  # expect: TG201
    assert search.search("x") == ["x"]
    assert research.first("x") == "x"


def check_the_first_result():
    assert research.first("x") == "x"


def test_patches_the_definition_and_calls_a_helper(mocker):
    mocker.patch("agent.research.search.query", return_value=["x"])  # expect: TG201
    assert search.search("x") == ["x"]
    check_the_first_result()


class TestSearch:
    def check(self):
        assert research.first("x") == "x"

    def test_patches_the_definition_and_calls_a_method(self, mocker):
        mocker.patch("agent.research.search.query", return_value=["x"])  # expect: TG201
        assert search.search("x") == ["x"]
        self.check()


class SearchCase(unittest.TestCase):
    # a unittest class: collected whatever its name
    @mock.patch("agent.research.search.query", return_value=["x"])
    def test_patches_with_a_decorator_and_calls_its_own_module(self, query):
        self.assertEqual(search.search("x"), ["x"])

    @mock.patch("agent.research.search.query", return_value=["x"])  # expect: TG201
    def test_patches_with_a_decorator_and_calls_the_package(self, query):
        self.assertEqual(research.first("x"), "x")
