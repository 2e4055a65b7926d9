from typing import Generic, Protocol, TypeVar

T = TypeVar("T")


class Port(Protocol):
    def send(self, data: bytes) -> None:
        ...

    def receive(self) -> bytes:
        """The next message."""
        raise NotImplementedError


class Repository(Generic[T]):
    def get(self, key: str) -> T:
        raise LookupError(key)

    def put(self, key: str, value: T) -> None:
        raise PermissionError(key)
