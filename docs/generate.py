"""Regenerate the parts of docs/ that are derived from the code: python docs/generate.py."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from truegreen.core.config import OPTIONS
from truegreen.core.doctor import toml_value

DOCS = Path(__file__).resolve().parent
BEGIN, END = "<!-- generated: keys -->", "<!-- end generated -->"


def keys_table() -> str:
    rows = ["| key | default | `TRUEGREEN_*` variable | meaning |", "| --- | --- | --- | --- |"]
    for option in OPTIONS:
        default = toml_value(option, option.default).replace("|", "\\|")
        rows.append(f"| `{option.key}` | `{default}` | `{option.env_name}` | {option.help} |")
    return "\n".join(rows)


def render(text: str) -> str:
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    return pattern.sub(lambda _: f"{BEGIN}\n{keys_table()}\n{END}", text)


def main() -> int:
    path = DOCS / "config.md"
    path.write_text(render(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
