from catalog.versions import compute_version

MODELS = {"gemini": ["gemini-2.5-pro", "gemini-2.5-flash"], "moonshot": ["kimi-k2"]}
DEFAULT_CONFIG: dict = {"_config_version": 21, "theme": "dark"}
PROVIDERS = ("gemini", "moonshot")
VERSION = compute_version()
max_tokens = 8


def build_models():
    return dict(MODELS)


class Color:
    RED = 1
