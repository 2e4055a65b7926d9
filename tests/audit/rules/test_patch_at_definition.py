"""TG201 patch-at-definition over its fixture project."""

from __future__ import annotations

from tests.audit.rules.harness import audit, marked_and_found, project
from truegreen.audit import graph

PATCHES = """
from agent.research.loop import run_loop


def test_it(mocker):
    mocker.patch({target!r})
    run_loop()
"""


def patched(target: str) -> str:
    return PATCHES.format(target=target)


def test_it_flags_exactly_the_marked_patches() -> None:
    marked, found = marked_and_found(project("TG201"), "TG201")
    assert marked, "the fixture project marks no line"
    assert found == marked


def test_it_names_the_module_to_patch_instead() -> None:
    findings = audit(project("TG201"), "TG201", "tests/test_loop.py", patched("agent.llm.fetch"))
    expected = [
        'patch "agent.research.loop.fetch", where it is used: "agent.llm.fetch" is where it is '
        "defined, and a `from` import bound it before the test ran"
    ]
    assert [f.message for f in findings] == expected


def test_it_points_at_the_target_string() -> None:
    findings = audit(project("TG201"), "TG201", "tests/test_loop.py", patched("agent.llm.fetch"))
    assert [(f.line, f.col) for f in findings] == [(6, 18)]


def test_it_stays_silent_on_a_patch_at_the_usage_site() -> None:
    """Ablation: replace `origin[0] is not module` with `False` in
    `src/truegreen/audit/rules/patch_at_definition.py`."""
    at_definition = audit(
        project("TG201"), "TG201", "tests/test_x.py", patched("agent.llm.LLMClient")
    )
    assert len(at_definition) == 1  # premise: the same name patched at its definition is flagged
    usage = patched("agent.research.loop.LLMClient")
    assert audit(project("TG201"), "TG201", "tests/test_x.py", usage) == []


def test_it_stays_silent_when_no_module_imports_the_name_by_from() -> None:
    """Ablation: replace `not bypassed` with `False` in
    `src/truegreen/audit/rules/patch_at_definition.py`."""
    tools = graph.graph(project("TG201")).module("agent.tools")
    assert tools is not None
    assert "lonely" in tools.functions  # premise
    assert audit(project("TG201"), "TG201", "tests/test_x.py", patched("agent.tools.lonely")) == []


def test_it_stays_silent_when_the_import_runs_inside_a_function() -> None:
    """A function-level `from` import runs at call time and sees the patch.

    Ablation: replace `_top_level(tree.body)` with `ast.walk(tree)` in
    `src/truegreen/audit/graph.py`."""
    modules = graph.graph(project("TG201"))
    loop = modules.module("agent.research.loop")
    assert loop is not None
    assert modules.reads(loop, "lazy")  # premise: loop calls it, after importing it in a function
    assert audit(project("TG201"), "TG201", "tests/test_x.py", patched("agent.tools.lazy")) == []


def test_it_stays_silent_for_names_outside_the_project() -> None:
    """`vendored` sits in src/ but is not one of the project's packages.

    Ablation: replace `self.project.owns(name)` with `True` in `src/truegreen/audit/graph.py`."""
    whole = project("TG201")
    assert (
        len(audit(whole, "TG201", "tests/test_x.py", patched("vendored.http.get"))) == 1
    )  # premise
    agent_only = project("TG201", packages=frozenset({"agent"}))
    assert audit(agent_only, "TG201", "tests/test_x.py", patched("vendored.http.get")) == []


def test_it_stays_silent_when_the_defining_module_uses_the_name_itself() -> None:
    """`agent.clients` calls HttpClient itself, and this test does not import agent.service.

    Ablation: replace `reached and not self._imports_any(importer for importer, local in
    bypassed if self._binds(importer, local))` with `False` in
    `src/truegreen/audit/rules/patch_at_definition.py`."""
    source = "def test_it(mocker):\n    mocker.patch('agent.clients.HttpClient')\n"
    premise = "from agent.service import status\n" + source
    assert len(audit(project("TG201"), "TG201", "tests/test_x.py", premise)) == 1
    assert audit(project("TG201"), "TG201", "tests/test_x.py", source) == []


def test_importing_a_submodule_is_not_importing_a_name_of_its_package() -> None:
    """`agent.research` imports `query` (and calls it), which `agent.research.search` also
    calls itself.

    Ablation: replace `project.module(origin) is not None` with `False` in
    `src/truegreen/audit/rules/patch_at_definition.py`."""
    patch = "\n\ndef test_it(mocker):\n    mocker.patch.object(search, 'query')\n"
    by_name = "from agent.research import query\nfrom agent.research import search" + patch
    assert len(audit(project("TG201"), "TG201", "tests/test_x.py", by_name)) == 1  # premise
    submodule = "from agent.research import search" + patch
    assert audit(project("TG201"), "TG201", "tests/test_x.py", submodule) == []


def test_a_package_that_only_re_exports_the_name_is_not_a_bypass() -> None:
    """click's shape: `click/__init__.py` re-exports `termui.getchar`, `termui.pause` calls it,
    and a test patches `click.termui.getchar` then calls `click.pause()`.

    Ablation: replace `self._binds(importer, local)` with `True` in
    `src/truegreen/audit/rules/patch_at_definition.py`."""
    patch = "\n\ndef test_it(monkeypatch):\n    monkeypatch.setattr(prompts, 'getchar', str)\n"
    through = "import agent\nfrom agent import prompts" + patch + "    agent.getchar()\n"
    assert len(audit(project("TG201"), "TG201", "tests/test_x.py", through)) == 1  # premise
    calls_pause = "import agent\nfrom agent import prompts" + patch + "    agent.pause()\n"
    assert audit(project("TG201"), "TG201", "tests/test_x.py", calls_pause) == []


def flagged_in_search() -> list[int]:
    return [f.line for f in audit(project("TG201"), "TG201", "tests/test_search.py")]


def test_it_stays_silent_when_the_test_calls_only_the_defining_module() -> None:
    """black patches `black.files.find_user_pyproject_toml` and calls
    `black.files.find_pyproject_toml`, which looks the name up in black.files, where it is
    patched; black's `__init__` bound it by `from` too, but the test never goes through it.

    Ablation: replace `reached and self._exercises_only(defining.name)` with `False` in
    `src/truegreen/audit/rules/patch_at_definition.py`."""
    flagged = flagged_in_search()
    assert 16 in flagged  # premise: the same patch is flagged when the test calls the package
    assert 10 not in flagged


def test_a_helper_the_test_calls_may_reach_the_other_module() -> None:
    """A function of the test file, or a method of its class, is not followed: it may call
    the package, so the patch stays flagged.

    Ablation: replace `_calls_a_helper(node.func, helpers, self.ctx.aliases)` with `False` in
    `src/truegreen/audit/rules/patch_at_definition.py`."""
    flagged = flagged_in_search()
    assert 10 not in flagged  # premise: calling only the defining module is silent
    assert {31, 41} <= set(flagged)


def test_a_unittest_method_is_the_test_whatever_its_class_is_named() -> None:
    """A `unittest.TestCase` class is collected whatever its name (black's `BlackTestCase`):
    the method around a `@mock.patch` decorator is the test whose calls settle it.

    Ablation: replace `functions[0] if functions else None` with `self.ctx.test_function` in
    `src/truegreen/audit/rules/patch_at_definition.py`."""
    flagged = flagged_in_search()
    assert 52 in flagged  # premise: the same decorator is flagged when the method calls the package
    assert 48 not in flagged
