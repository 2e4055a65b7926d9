from abc import abstractmethod

from .base import Boundary


class DevcontainerCli(Boundary):
    def probe(self):
        return self._spawn("devcontainer", "--version")

    def read_configuration(self):
        return self._spawn("devcontainer", "read-configuration")

    def up(self):
        return self._spawn("devcontainer", "up")

    def exec(self, *argv):
        return self._spawn("devcontainer", "exec", *argv)

    @property
    def name(self):
        return "devcontainer"

    @abstractmethod
    def workspace(self):
        raise NotImplementedError
