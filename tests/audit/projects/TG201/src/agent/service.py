from agent.clients import HttpClient
from vendored.http import get


def status():
    return HttpClient().get("https://example.invalid/status")


def ping():
    return get("https://example.invalid/ping")
