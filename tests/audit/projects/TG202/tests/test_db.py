import os
from unittest import mock

from store import db
from store.db import Store


def test_patches_a_private_function(mocker):
    mocker.patch("store.db._connect")  # expect: TG202
    assert db.connect("x")


def test_resets_a_private_cache(monkeypatch):
    monkeypatch.setattr(db, "_cache", {})  # expect: TG202
    assert db.connect("x")


def test_patches_a_private_method():
    with mock.patch.object(Store, "_flush"):  # expect: TG202
        Store().save(1)


def test_deletes_a_private_function(monkeypatch):
    monkeypatch.delattr("store.db._connect")  # expect: TG202
    assert db.connect


def test_patches_the_public_function(mocker):
    mocker.patch("store.db.connect")
    assert db.connect("x")


def test_patches_a_dunder(mocker):
    mocker.patch.object(Store, "__call__")
    assert Store()()


def test_patches_a_private_name_outside_the_project(mocker):
    exit_ = mocker.patch("os._exit")
    os._exit(0)
    exit_.assert_called_once()


def test_patches_a_private_attribute_of_its_own_object(monkeypatch):
    class Recorder:
        _calls = 0

    recorder = Recorder()
    monkeypatch.setattr(recorder, "_calls", 1)
    assert recorder._calls == 1
