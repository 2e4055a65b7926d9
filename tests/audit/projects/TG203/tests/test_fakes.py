import socketserver

from devc import cli
from devc.cli import DevcontainerCli
from devc.ports import Port, Repository


class FakeCli(DevcontainerCli):  # expect: TG203
    def probe(self):
        return True

    def read_configuration(self):
        return {}

    def up(self):
        return "container-1"


class StubCli(cli.DevcontainerCli):  # expect: TG203
    def exec(self, *argv):
        return ""


class InMemoryCli(DevcontainerCli):  # expect: TG203
    def up(self):
        return "container-1"


class DummyCli(DevcontainerCli):
    workspace_folder = "/workspace"


class FakeRepository(Repository[int]):  # expect: TG203
    def get(self, key):
        return 1


class CompleteFake(DevcontainerCli):
    def probe(self):
        return True

    def read_configuration(self):
        return {}

    def up(self):
        return "container-1"

    def exec(self, *argv):
        raise AssertionError(f"unexpected exec {argv}")

    def workspace(self):
        return "/workspace"

    close = up


class OfflineMixin:
    def exec(self, *argv):
        raise AssertionError(f"unexpected exec {argv}")

    def close(self):
        return None


class MixedFake(OfflineMixin, DevcontainerCli):
    def probe(self):
        return True

    def read_configuration(self):
        return {}

    def up(self):
        return "container-1"


class LoggingCli(DevcontainerCli):
    def up(self):
        return super().up()


class FakePort(Port):
    def send(self, data):
        return None


class FakeServer(socketserver.TCPServer):
    pass


class Faker:
    pass


class Fakeroot(DevcontainerCli):
    pass


def test_uses_the_fakes():
    assert FakeCli().probe()
