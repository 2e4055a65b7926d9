"""TG501 issue-number-filename."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Optional

from truegreen.audit.base import Finding, Rule

# Words that say "this number is a tracker id" when a number follows them.
TRACKER_WORDS = ("issue", "issues", "gh", "bug", "bugs", "pr", "ticket", "regression", "jira")
_TAGGED = re.compile(rf"^(?:{'|'.join(TRACKER_WORDS)})-?#?(\d+)$")
_NUMBER = re.compile(r"^#?(\d{2,})$")


def issue_number(filename: str) -> Optional[str]:
    """The issue number a test file is named for (``test_issue_1234.py``, ``test_gh1234.py``,
    ``test_bug_987.py``, ``test_1234.py``, ``issue_12_test.py``), or None."""
    stem = filename[:-3] if filename.endswith(".py") else filename
    if stem.startswith("test_"):
        core = stem[5:]
    elif stem.endswith("_test"):
        core = stem[:-5]
    else:
        return None
    words = core.lower().split("_")
    for index, word in enumerate(words):
        tagged = _TAGGED.match(word)
        if tagged:
            return tagged.group(1)
        following = words[index + 1] if index + 1 < len(words) else ""
        if word in TRACKER_WORDS and re.fullmatch(r"#?\d+", following):
            return following.lstrip("#")
    leading = _NUMBER.match(words[0])
    return leading.group(1) if leading else None


class IssueNumberFilename(Rule):
    """## What it does
    Flags a test file named for an issue number: `test_issue_1234.py`, `test_gh1234.py`,
    `test_bug_987.py`, `test_pr_55.py`, `test_1234.py`, `test_1234_crash.py`. Numbers that
    are part of a name (`test_http2.py`, `test_py311.py`, `test_sha256.py`,
    `test_base64.py`) are not issue ids and stay silent.

    ## Why is this bad?
    A file named for a ticket says when a test was written, not what it protects. The next
    reader has to open the tracker to learn what breaks if it fails, the tests for one
    behaviour end up scattered across a dozen ticket files, and nobody knows which of them
    may go when the behaviour changes. Tests live with the behaviour they pin; the issue is a
    reference in a docstring.

    ## Example
    ```text
    tests/test_issue_1234.py
    ```

    ## Use instead
    ```python
    # tests/test_upload.py
    def test_a_retried_upload_keeps_its_original_timestamp():
        \"\"\"Regression test for #1234.\"\"\"
    ```

    ## Known problems
    A bare number of two or more digits right after `test_` is taken for an issue id, so a
    file named for a year (`test_2024_rates.py`) is flagged too: rename it for what it tests.
    """

    code = "TG501"
    name = "issue-number-filename"
    severity = "note"
    kinds = frozenset({"test"})

    def begin(self) -> Iterator[Finding]:
        number = issue_number(self.ctx.path.name)
        if number is not None:
            yield self.finding(
                1,
                f"{self.ctx.path.name} is named for issue {number}: name the file for the "
                "behaviour it tests and cite the issue in a docstring",
            )
