"""TG000 syntax-error."""

from __future__ import annotations

from truegreen.audit.base import Rule


class SyntaxErrorRule(Rule):
    """## What it does
    Reports a file the audit could not parse (or decode) as Python, at the place the parser
    stopped; a file it could not read at all (a dangling symbolic link, no permission); and a
    file nested too deeply for the parser or a rule to descend (a generated expression
    thousands of levels deep), at its first line. The audit goes on to the next file.

    ## Why is this bad?
    A file that does not parse is a file no rule looked at: the audit would otherwise be clean
    for it without having checked anything. pytest cannot import it either, so its tests do
    not run. The audit reports it whatever `--select` names; only `ignore` silences it.

    ## Example
    ```python
    def test_total(:
        assert total([1, 2]) == 3
    ```

    ## Use instead
    ```python
    def test_total():
        assert total([1, 2]) == 3
    ```

    Only files pytest would collect or import are read (see the audit's page): invalid Python
    kept as test data, which pytest never imports, is skipped and counted, not reported.

    ## Known problems
    The audit parses with the Python it runs on: a file written for a newer Python (a `match`
    statement under Python 3.9) is reported. Exclude such files or run the audit on the newest
    Python the project supports.
    """

    code = "TG000"
    name = "syntax-error"
    kinds = frozenset({"test", "conftest", "source"})
