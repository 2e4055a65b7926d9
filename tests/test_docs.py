"""The docs that are derived from code are current, and the README keeps its promises."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _generate_module() -> object:
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_config_reference_lists_every_key_as_the_code_defines_it() -> None:
    generate = _generate_module()
    current = (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    assert generate.render(current) == current, "run: python docs/generate.py"  # type: ignore[attr-defined]


def test_event_table_is_generated_from_the_schema() -> None:
    generate = _generate_module()
    current = (ROOT / "docs" / "events.md").read_text(encoding="utf-8")
    assert generate.EVENTS_BEGIN in current  # type: ignore[attr-defined]
    assert generate.render_events(current) == current, "run: python docs/generate.py"  # type: ignore[attr-defined]


def test_json_documents_and_their_versions_are_generated_from_the_code() -> None:
    generate = _generate_module()
    current = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    assert generate.FORMATS_BEGIN in current  # type: ignore[attr-defined]
    assert generate.render_formats(current) == current, "run: python docs/generate.py"  # type: ignore[attr-defined]


def test_the_manifest_fields_are_generated_from_the_schema() -> None:
    generate = _generate_module()
    current = (ROOT / "docs" / "sharding.md").read_text(encoding="utf-8")
    assert generate.MANIFEST_BEGIN in current  # type: ignore[attr-defined]
    assert generate.render_sharding(current) == current, "run: python docs/generate.py"  # type: ignore[attr-defined]


def test_rule_index_and_pages_are_generated_from_the_rules() -> None:
    generate = _generate_module()
    index = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert generate.render_rules(index) == index, "run: python docs/generate.py"  # type: ignore[attr-defined]
    pages = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "docs" / "rules").glob("*.md")}
    assert pages == generate.rule_pages(), "run: python docs/generate.py"  # type: ignore[attr-defined]


def test_the_protocol_table_is_generated_from_the_protocol() -> None:
    generate = _generate_module()
    current = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert generate.render_architecture(current) == current, "run: python docs/generate.py"  # type: ignore[attr-defined]


def test_every_verb_has_its_page() -> None:
    from truegreen.cli import build_parser

    parser = build_parser()
    verbs = next(a for a in parser._actions if a.dest == "verb").choices
    assert verbs
    for verb in verbs:
        assert (ROOT / "docs" / f"{verb}.md").is_file(), verb


def test_readme_starts_with_the_demo_and_the_test_command_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", readme, re.S)
    assert block is not None
    first, second = block.group(1).strip().splitlines()
    assert first.endswith("truegreen demo")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert f" {second}\n" in ci or f" {second} " in ci
    assert "pip install -e '.[dev]'" in first
    assert "pip install --quiet --disable-pip-version-check -e '.[dev]'" in ci
