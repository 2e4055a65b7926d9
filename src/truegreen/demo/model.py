"""What the demo's sections are made of: a command, what it did, what a section showed."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

# The demo puts the address of the loopback daemon it started where this stands.
SERVICE = "{service}"


@dataclass(frozen=True)
class Command:
    """One command of a section, as the user would type it in the sample project."""

    words: tuple[str, ...]  # starts with "pytest" or "truegreen"
    env: tuple[tuple[str, str], ...] = ()  # exported for this command only
    label: str = ""  # which machine it plays, when a section runs one command on two
    home: str = "home"  # its home directory, under the section's directory
    home_files: tuple[tuple[str, str], ...] = ()  # (path under the home, text) made first

    def shown(self, service: str = "") -> str:
        env = []
        for name, value in self.env:
            if value.startswith("~/"):  # left for the shell to expand, as the user would type it
                env.append(f"{name}=~/{shlex.quote(value[2:])}")
            else:
                env.append(shlex.quote(f"{name}={value.replace(SERVICE, service)}"))
        return "$ " + " ".join([*env, *(shlex.quote(w) for w in self.words)])


@dataclass(frozen=True)
class Ran:
    """What one command did: its status, its output with the section's paths made short
    (the project's path removed, the home's shown as ``~``), and the files that appeared in
    its home."""

    command: Command
    shown: str  # the command line as printed
    status: int
    output: str
    written: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        return self.output.splitlines()


@dataclass(frozen=True)
class Shown:
    """What a section prints under its heading, the line saying what it proved (or what went
    wrong), and whether it behaved as promised."""

    lines: tuple[str, ...]
    verdict: str
    ok: bool
