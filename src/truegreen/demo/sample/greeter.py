"""A tiny app with the habits that make tests pass for the wrong reason."""

import os
from pathlib import Path

NICKNAMES = {}


def style():
    # GREETER_STYLE is part of the app's configuration: whoever exports it changes the app.
    return os.environ.get("GREETER_STYLE", "plain")


def history_file():
    return Path.home() / ".cache" / "greeter" / "history.txt"


def settings():
    """The user's settings, one ``key = value`` a line, from ~/.greeterrc."""
    text = (Path.home() / ".greeterrc").read_text(encoding="utf-8")
    return dict(line.split(" = ", 1) for line in text.splitlines() if " = " in line)


def call_me(name, nickname):
    NICKNAMES[name] = nickname


def greet(name):
    if not name:
        raise ValueError("no name")
    if not name.isprintable():
        raise ValueError("one line")  # a line break would forge a line of the history
    name = NICKNAMES.get(name, name)
    text = f"Hello, {name[0].upper()}{name[1:]}."
    if style() == "shout":
        text = text.upper().replace(".", "!")
    path = history_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as history:
        history.write(name + "\n")
    return text


def farewell(name):
    # Added later, and nobody declared FAREWELL_WORD to truegreen.
    return f"{os.environ.get('FAREWELL_WORD', 'Goodbye')}, {name}."
