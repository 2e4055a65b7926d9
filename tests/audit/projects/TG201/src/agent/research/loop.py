from ..llm import LLMClient
from agent.llm import fetch


def run_loop():
    from agent.tools import lazy

    lazy()
    return LLMClient().ask(fetch("https://example.invalid"))
