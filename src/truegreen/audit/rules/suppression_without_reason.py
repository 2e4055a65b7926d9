"""TG001 suppression-without-reason."""

from __future__ import annotations

from collections.abc import Iterator

from truegreen.audit import suppressions
from truegreen.audit.base import Finding, Rule


class SuppressionWithoutReason(Rule):
    """## What it does
    Flags a `# truegreen: ignore[CODE]` comment that gives no reason after the bracket.

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

    ## Known problems
    Any text counts as a reason; a further comment after it (`# noqa`) does not. A TG001
    finding cannot itself be suppressed on its line: give the reason instead.
    """

    code = "TG001"
    name = "suppression-without-reason"
    kinds = frozenset({"test", "conftest", "source"})
    triggers = (suppressions.MARK,)

    def begin(self) -> Iterator[Finding]:
        for found in suppressions.parse(self.ctx.source):
            if not found.reason:
                message = (
                    f"ignore[{','.join(found.codes)}] gives no reason: write why after the "
                    "bracket, or fix the finding"
                )
                yield Finding(
                    self.code, self.name, self.ctx.relpath, found.line, found.col, message
                )
