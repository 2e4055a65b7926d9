class LLMClient:
    def ask(self, prompt):
        raise RuntimeError("would reach the network")


def fetch(url):
    raise RuntimeError("would reach the network")
