from dataclasses import dataclass
from typing import Optional

from app.client import Client, connect


class Service:
    def __init__(self, client: Client, retries: int = 3, backup: Optional[Client] = None):
        self.client = client

    def refresh(self):
        return self.client.fetch("all")


def fetch_all(client: "Client", *, backup: "Client | None" = None):
    return client.fetch("all")


def count(things: list):
    return len(things)


@dataclass
class Job:
    client: Client
    name: str


class Plain:
    client: Client
