"""A tiny app with the two habits that make tests pass for the wrong reason."""

import os
from pathlib import Path


def style():
    # GREETER_STYLE is part of the app's configuration: whoever exports it changes the app.
    return os.environ.get("GREETER_STYLE", "plain")


def history_file():
    return Path.home() / ".cache" / "greeter" / "history.txt"


def greet(name):
    text = f"Hello, {name}."
    if style() == "shout":
        text = text.upper().replace(".", "!")
    path = history_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as history:
        history.write(name + "\n")
    return text
