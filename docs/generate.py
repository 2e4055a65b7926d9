"""Regenerate the parts of docs/ that are derived from the code: python docs/generate.py.

The keys table of config.md, the protocol table of architecture.md (from core/protocol.py),
the event table of events.md (from core/events.py), the table of JSON documents and their
versions in formats.md and the shard manifest's fields in sharding.md (from core/formats.py),
the rule index in rules.md, and one page per audit rule in docs/rules/, each from the rule's
docstring (a rule merged later appears without any change here; a page whose rule is gone is
removed).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from truegreen.audit import pages, registry
from truegreen.core import events, formats, protocol
from truegreen.core.config import OPTIONS
from truegreen.core.doctor import toml_value

DOCS = Path(__file__).resolve().parent
BEGIN, END = "<!-- generated: keys -->", "<!-- end generated -->"
RULES_BEGIN = "<!-- generated: rules -->"
PROTOCOL_BEGIN = "<!-- generated: protocol -->"
EVENTS_BEGIN = "<!-- generated: events -->"
FORMATS_BEGIN = "<!-- generated: formats -->"
MANIFEST_BEGIN = "<!-- generated: manifest -->"


def keys_table() -> str:
    rows = ["| key | default | `TRUEGREEN_*` variable | meaning |", "| --- | --- | --- | --- |"]
    for option in OPTIONS:
        default = toml_value(option, option.default).replace("|", "\\|")
        rows.append(f"| `{option.key}` | `{default}` | `{option.env_name}` | {option.help} |")
    return "\n".join(rows)


def _replace(text: str, begin: str, body: str) -> str:
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(END), re.S)
    return pattern.sub(lambda _: f"{begin}\n{body}\n{END}", text)


def render(text: str) -> str:
    return _replace(text, BEGIN, keys_table())


def _bounds(field: events.Field) -> str:
    low, high = field.minimum, field.maximum
    if low is None and high is None:
        return ""
    return f" >= {low:g}" if high is None else f" from {low:g} to {high:g}"


def _field(field: events.Field) -> str:
    notes = field.expected() + _bounds(field) + ("" if field.required else ", optional")
    meaning = f": {field.meaning}" if field.meaning else ""
    return f"`{field.name}` ({notes}{meaning})".replace("|", "\\|")


def events_table() -> str:
    rows = ["| event | fields | meaning |", "| --- | --- | --- |"]
    for kind in events.KINDS.values():
        fields = "; ".join(_field(f) for f in kind.fields)
        rows.append(f"| `{kind.name}` | {fields} | {kind.meaning} |")
    return "\n".join(rows)


def render_events(text: str) -> str:
    return _replace(text, EVENTS_BEGIN, events_table())


def formats_table() -> str:
    rows = ["| document | key | version |", "| --- | --- | --- |"]
    rows += [f"| {what} | `{key}` | {version} |" for what, key, version in formats.DOCUMENTS]
    return "\n".join(rows)


def render_formats(text: str) -> str:
    return _replace(text, FORMATS_BEGIN, formats_table())


def manifest_table() -> str:
    rows = ["| field | type | required | meaning |", "| --- | --- | --- | --- |"]
    for field in formats.MANIFEST_FIELDS[formats.SHARD_MANIFEST]:
        required = "always" if field.required else "once `complete`"
        if field.name in formats.MANIFEST_LATER:
            required = "no (older manifests lack it)"
        kind = (field.expected() + _bounds(field)).replace("|", "\\|")
        meaning = field.meaning.replace("|", "\\|")
        rows.append(f"| `{field.name}` | {kind} | {required} | {meaning} |")
    return "\n".join(rows)


def render_sharding(text: str) -> str:
    return _replace(text, MANIFEST_BEGIN, manifest_table())


def rules_table() -> str:
    rows = ["| code | name | | what it flags |", "| --- | --- | --- | --- |"]
    for rule in registry.all_rules():
        state = f"{'default' if rule.default else 'opt-in'}, {rule.severity}"
        summary = pages.summary(rule).replace("|", "\\|")
        rows.append(
            f"| [{rule.code}](rules/{rule.code}.md) | `{rule.name}` | {state} | {summary} |"
        )
    return "\n".join(rows)


def render_rules(text: str) -> str:
    return _replace(text, RULES_BEGIN, rules_table())


def protocol_table() -> str:
    rows = ["| option | meaning |", "| --- | --- |"]
    for option in protocol.HIDDEN:
        rows.append(f"| `{option.flag}={option.metavar}` | {option.meaning} |")
    record = protocol.COLLECT_RECORD
    rows.append(
        f"| `-p {protocol.COLLECT_RECORD_PLUGIN} {record.flag}={record.metavar}` | "
        f"{record.meaning} |"
    )
    return "\n".join(rows)


def render_architecture(text: str) -> str:
    return _replace(text, PROTOCOL_BEGIN, protocol_table())


def rule_pages() -> dict[str, str]:
    """File name in docs/rules/ -> its text, for every rule."""
    return {f"{rule.code}.md": pages.page(rule) for rule in registry.all_rules()}


def main() -> int:
    path = DOCS / "config.md"
    path.write_text(render(path.read_text(encoding="utf-8")), encoding="utf-8")
    path = DOCS / "events.md"
    path.write_text(render_events(path.read_text(encoding="utf-8")), encoding="utf-8")
    path = DOCS / "formats.md"
    path.write_text(render_formats(path.read_text(encoding="utf-8")), encoding="utf-8")
    path = DOCS / "sharding.md"
    path.write_text(render_sharding(path.read_text(encoding="utf-8")), encoding="utf-8")
    path = DOCS / "rules.md"
    path.write_text(render_rules(path.read_text(encoding="utf-8")), encoding="utf-8")
    path = DOCS / "architecture.md"
    path.write_text(render_architecture(path.read_text(encoding="utf-8")), encoding="utf-8")
    folder = DOCS / "rules"
    folder.mkdir(exist_ok=True)
    wanted = rule_pages()
    for stale in folder.glob("TG*.md"):
        if stale.name not in wanted:
            stale.unlink()
    for name, text in wanted.items():
        (folder / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
