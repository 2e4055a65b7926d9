import subprocess
from unittest import mock

from app import proc


def test_patches_subprocess_through_the_consumer(monkeypatch):
    monkeypatch.setattr("app.proc.subprocess.run", lambda *a, **k: None)  # expect: TG205


def test_patches_os_through_the_consumer():
    with mock.patch("app.proc.os.getcwd", return_value="/x"):  # expect: TG205
        proc.run(["true"])


def test_patches_a_submodule_through_the_consumer(mocker):
    mocker.patch("app.proc.os.path.exists", return_value=True)  # expect: TG205
    mocker.patch("app.proc.path.exists", return_value=True)  # expect: TG205


def test_patches_a_third_party_module_through_the_consumer(mocker):
    mocker.patch("app.proc.requests.get")  # expect: TG205


def test_patches_an_aliased_module_through_the_consumer(mocker):
    mocker.patch("app.proc.ET.fromstring")  # expect: TG205


def test_patches_by_object_through_the_consumer(monkeypatch):
    monkeypatch.setattr(proc.subprocess, "run", lambda *a, **k: None)  # expect: TG205
    monkeypatch.delattr(proc.os, "getcwd")  # expect: TG205


@mock.patch("app.proc.subprocess.check_call")  # expect: TG205
def test_as_a_decorator(check_call):
    pass


# look-alikes: the consumer's own bindings, the shared module itself, the project's modules,
# a class reached through the consumer, the host's identity (TG301's)


def test_patches_the_consumers_own_binding(mocker):
    mocker.patch("app.proc.which", return_value=None)
    mocker.patch("app.proc.run")
    mocker.patch.object(proc, "subprocess")


def test_patches_the_shared_module_itself(monkeypatch):
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: None)
    monkeypatch.setattr("subprocess.run", lambda *a, **k: None)


def test_patches_a_project_module_through_the_consumer(mocker):
    mocker.patch("app.proc.helpers.tidy")
    mocker.patch("app.proc.tidying.tidy")


def test_patches_a_class_reached_through_the_consumer(mocker):
    mocker.patch("app.proc.JSONDecoder.decode")


def test_patches_the_host_identity(monkeypatch):
    monkeypatch.setattr("app.proc.sys.platform", "win32")


def test_patches_something_the_consumer_never_imported(mocker):
    mocker.patch("app.proc.shlex.split")
