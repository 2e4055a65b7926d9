"""TG202 patches-private-symbol over its fixture project."""

from __future__ import annotations

from tests.audit.rules.harness import audit, marked_and_found, project


def patched(target: str) -> str:
    return f"def test_it(mocker):\n    mocker.patch({target!r})\n"


def test_it_flags_exactly_the_marked_patches() -> None:
    marked, found = marked_and_found(project("TG202"), "TG202")
    assert marked, "the fixture project marks no line"
    assert found == marked


def test_it_says_what_to_patch_instead() -> None:
    findings = audit(project("TG202"), "TG202", "tests/test_x.py", patched("store.db._connect"))
    expected = [
        'patches private "store.db._connect": patch a public function of the project that '
        "reaches it, or make it a public seam"
    ]
    assert [f.message for f in findings] == expected


def test_it_stays_silent_for_a_dunder() -> None:
    """Ablation: replace `not (name.startswith("__") and name.endswith("__"))` with `True` in
    `src/truegreen/audit/rules/patches_private_symbol.py`."""
    assert audit(project("TG202"), "TG202", "tests/test_x.py", patched("store.db._cache")) != []
    assert (
        audit(project("TG202"), "TG202", "tests/test_x.py", patched("store.db.Store.__call__"))
        == []
    )


def test_it_stays_silent_for_a_private_name_outside_the_project() -> None:
    """Ablation: replace `self.ctx.project.owns(found.owner)` with `True` in
    `src/truegreen/audit/rules/patches_private_symbol.py`."""
    assert audit(project("TG202"), "TG202", "tests/test_x.py", patched("store.db._cache")) != []
    assert audit(project("TG202"), "TG202", "tests/test_x.py", patched("os._exit")) == []
