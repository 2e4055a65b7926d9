"""TG001 suppression-without-reason."""

from __future__ import annotations

from collections.abc import Iterator

from truegreen.audit import suppressions
from truegreen.audit.base import Finding, Rule


class SuppressionWithoutReason(Rule):
    """## What it does
    Flags a `# truegreen: ignore[CODE]` comment that gives no reason after the bracket, and a
    `# noqa: TG...` comment that names a truegreen code and gives no reason after its codes.

    ## Why is this bad?
    A suppression is a claim that this one finding is wrong or accepted. Without the reason,
    the next reader cannot tell a considered exception from a silenced warning, and nobody can
    tell when it stops being true. The suppression still silences the finding it names; this
    rule asks for the sentence that justifies it.

    ## Example
    ```python
    def test_backoff():
        time.sleep(0.2)  # truegreen: ignore[TG402]
    ```

    ## Use instead
    ```python
    def test_backoff():
        time.sleep(0.2)  # truegreen: ignore[TG402] measures the real backoff of the OS timer
    ```
    or, in ruff's convention, the reason after the codes (ruff reads it as the description):
    ```python
    def test_backoff():
        time.sleep(0.2)  # noqa: TG402 measures the real backoff of the OS timer
    ```

    ## Known problems
    Any text counts as a reason; a further comment after it (`# noqa`, `# type: ignore`)
    does not. A bare `# noqa` (no codes) silences every truegreen finding on its line, as it
    does every ruff and flake8 finding, and is not flagged: it is mostly written for another
    linter, and has no place for a reason; name the codes to give one. A `# noqa` naming only
    other tools' codes (`# noqa: E501`) is not flagged either. A TG001 finding cannot itself
    be suppressed on its line: give the reason instead.
    """

    code = "TG001"
    name = "suppression-without-reason"
    severity = "warning"
    kinds = frozenset({"test", "conftest", "source"})

    @classmethod
    def wants(cls, source: str) -> bool:
        return suppressions.MARK in source or suppressions.names_ours(source)

    def begin(self) -> Iterator[Finding]:
        for found in suppressions.parse(self.ctx.source):
            if not found.reason:
                message = (
                    f"ignore[{','.join(found.codes)}] gives no reason: write why after the "
                    "bracket, or fix the finding"
                )
                yield self._at(found, message)
        if not suppressions.names_ours(self.ctx.source):
            return
        for found in suppressions.noqa(self.ctx.source):
            ours = [code for code in found.codes if code.startswith("TG")]
            if ours and not found.reason:
                message = (
                    f"noqa: {', '.join(ours)} gives no reason: write why after the codes, or "
                    "fix the finding"
                )
                yield self._at(found, message)

    def _at(self, found: suppressions.Suppression, message: str) -> Finding:
        return Finding(self.code, self.name, self.ctx.relpath, found.line, found.col, message)
