from unittest import mock
from unittest.mock import MagicMock, Mock, create_autospec, patch

import requests

from app import service
from app.client import Client
from app.service import Job, Plain, Service, count, fetch_all


def test_patches_the_class_where_it_is_used():
    with mock.patch("app.service.Client"):  # expect: TG206
        Service(Client("x")).refresh()


def test_patches_the_class_where_it_is_defined(mocker):
    mocker.patch("app.client.Client")  # expect: TG206


def test_patches_the_class_by_object(mocker):
    mocker.patch.object(service, "Client")  # expect: TG206


@patch("app.service.Client")  # expect: TG206
def test_patches_it_as_a_decorator(client):
    pass


def test_patches_it_with_a_specless_replacement():
    with patch("app.service.Client", new=MagicMock()):  # expect: TG206
        pass


def test_monkeypatches_it_with_a_specless_mock(monkeypatch):
    monkeypatch.setattr("app.service.Client", Mock())  # expect: TG206
    monkeypatch.setattr(service, "Client", MagicMock())  # expect: TG206


def test_passes_one_for_an_annotated_parameter():
    Service(Mock())  # expect: TG206
    Service(client=MagicMock())  # expect: TG206
    Service(Client("x"), backup=Mock())  # expect: TG206
    fetch_all(Mock())  # expect: TG206
    fetch_all(Client("x"), backup=Mock())  # expect: TG206
    Job(client=Mock(), name="x")  # expect: TG206


def test_passes_a_name_assigned_one(mocker):
    client = mocker.MagicMock()
    Service(client)  # expect: TG206


def test_annotates_one():
    client: Client = Mock()  # expect: TG206
    assert client


# look-alikes: a spec, autospec, a function or a method patched, a class outside the
# project, an unannotated or non-class parameter, a call the rule cannot read


def test_patches_with_a_spec(mocker):
    mocker.patch("app.service.Client", autospec=True)
    mocker.patch("app.service.Client", spec=True)
    mocker.patch("app.service.Client", new_callable=lambda: create_autospec(Client))
    mocker.patch("app.service.Client", new=create_autospec(Client))
    mocker.patch("app.service.Client", Mock(spec=Client))


def test_patches_a_function_or_a_method(mocker):
    mocker.patch("app.service.connect")
    mocker.patch.object(Client, "fetch")
    mocker.patch("app.service.fetch_all")


def test_patches_a_class_outside_the_project(mocker):
    mocker.patch("requests.Session")
    mocker.patch.object(requests, "Session")


def test_monkeypatches_it_with_a_fake(monkeypatch):
    class FakeClient:
        pass

    monkeypatch.setattr(service, "Client", FakeClient)


def test_passes_one_with_a_spec():
    Service(Mock(spec=Client))
    Service(create_autospec(Client, instance=True))
    Service(MagicMock(Client))
    Service(Mock(wraps=Client("x")))


def test_passes_one_for_another_parameter():
    Service(Client("x"), retries=Mock())
    count(Mock())
    Plain()


def test_passes_a_name_assigned_twice():
    client = Mock()
    client = create_autospec(Client)
    Service(client)


def test_passes_one_to_a_method():
    Service(Client("x")).refresh(Mock())
