from typing import Protocol


class Port(Protocol):
    def send(self, data: bytes) -> None:
        ...

    def receive(self) -> bytes:
        """The next message."""
        raise NotImplementedError
