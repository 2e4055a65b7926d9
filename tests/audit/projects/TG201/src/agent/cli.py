from agent import LLMClient


def main():
    return LLMClient().ask("hello")
