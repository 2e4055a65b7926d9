"""TG205 patches-shared-module over its fixture project."""

from __future__ import annotations

from tests.audit.rules.harness import audit, marked_and_found, project

PATCH = "\n\ndef test_it(mocker):\n    mocker.patch({target!r})\n"


def patched(target: str) -> str:
    return PATCH.format(target=target)


def test_it_flags_exactly_the_marked_patches() -> None:
    marked, found = marked_and_found(project("TG205"), "TG205")
    assert marked, "the fixture project marks no line"
    assert found == marked


def test_it_names_the_shared_module_and_the_way_out() -> None:
    findings = audit(project("TG205"), "TG205", "tests/test_x.py", patched("app.proc.os.getcwd"))
    assert [f.message for f in findings] == [
        '"app.proc.os.getcwd" patches os.getcwd for the whole process, not for app.proc alone: '
        "app.proc shares the one os module with every other caller; patch app.proc's own "
        "function that calls it, or patch os itself with a fake that passes other calls through"
    ]


def test_a_module_of_the_project_is_not_reached_through_its_package() -> None:
    """`app/__init__.py` does `import json` and `import os`, and `app/json.py` is a module of
    the project: `app.json.dumps` is that module's function, not the standard json's.

    Ablation: replace `project.module(found.owner) is not None` with `False` in
    `src/truegreen/audit/rules/patches_shared_module.py`."""
    whole = project("TG205")
    premise = audit(whole, "TG205", "tests/test_x.py", patched("app.os.getcwd"))
    assert len(premise) == 1  # premise: a module app imported is seen through app
    assert audit(whole, "TG205", "tests/test_x.py", patched("app.json.dumps")) == []


def test_a_project_module_reached_through_the_consumer_is_not_shared() -> None:
    """`import app.helpers as tidying` in app.proc: app.helpers is the project's own.

    Ablation: replace `self.ctx.project.owns(bound)` with `False` in
    `src/truegreen/audit/rules/patches_shared_module.py`."""
    whole = project("TG205")
    premise = audit(whole, "TG205", "tests/test_x.py", patched("app.proc.ET.fromstring"))
    assert len(premise) == 1  # premise: a module bound by `import ... as` is seen through
    assert audit(whole, "TG205", "tests/test_x.py", patched("app.proc.tidying.tidy")) == []


def test_a_class_reached_through_the_consumer_is_not_a_module() -> None:
    """Ablation: replace `(known and not tail) or _standard_module(shared)` with
    `True` in `src/truegreen/audit/rules/patches_shared_module.py`."""
    whole = project("TG205")
    premise = audit(whole, "TG205", "tests/test_x.py", patched("app.proc.os.path.exists"))
    assert len(premise) == 1  # premise: a standard submodule reached through the consumer
    assert audit(whole, "TG205", "tests/test_x.py", patched("app.proc.JSONDecoder.decode")) == []


def test_the_host_identity_is_left_to_tg301() -> None:
    """Ablation: replace `f"{shared}.{found.attribute}" in HOST_NAMES` with `False` in
    `src/truegreen/audit/rules/patches_shared_module.py`."""
    whole = project("TG205")
    assert len(audit(whole, "TG205", "tests/test_x.py", patched("app.proc.sys.exit"))) == 1
    assert audit(whole, "TG205", "tests/test_x.py", patched("app.proc.sys.platform")) == []
