"""TG104 sql-numeric-separator."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from truegreen.audit.base import FileContext, Finding, Rule

SEPARATED = re.compile(r"(?<![\w.])\d+(?:_\d+)+(?![\w.])")
# A statement shape, not a lone keyword: "select" alone is an English word. Upper-case
# keywords are SQL by convention; in lower case the grammar around them must hold too.
_SHOUTED = re.compile(
    r"\b(?:SELECT\b[\s\S]*\bFROM|INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM"
    r"|CREATE\s+(?:TEMP\w*\s+)?(?:TABLE|INDEX|VIEW|TRIGGER)|ALTER\s+TABLE|VALUES\s*\()"
)
_LOWER = re.compile(
    r"\bselect\s[\s\S]*?\bfrom\s+\w+(?:\s*$|\s*[;)]|\s+(?:where|join|inner|left|group|order|limit)\b)"
    r"|\binsert\s+(?:or\s+\w+\s+)?into\s+\w+\s*(?:\(|values\b|select\b)"
    r"|\bupdate\s+\w+\s+set\s+\w+\s*="
    r"|\bdelete\s+from\s+\w+(?:\s*$|\s*;|\s+where\b)"
    r"|\bcreate\s+(?:temp\w*\s+)?table\s+(?:if\s+not\s+exists\s+)?\w+\s*\(",
    re.IGNORECASE,
)


def looks_like_sql(text: str) -> bool:
    return _SHOUTED.search(text) is not None or _LOWER.search(text) is not None


QUOTED = re.compile(r"'(?:[^']|'')*'")  # an SQL string literal: its text is data, not SQL
# "_" then a digit: a literal first character lets the regex engine jump between underscores
# instead of trying every position, as a leading \d makes it; the digit before is checked apart.
_UNDERSCORE_DIGIT = re.compile(r"_\d")
_SQL_WORD = re.compile(r"select|insert|update|delete|create|values", re.IGNORECASE)


def _digits_joined(source: str) -> bool:
    """Whether two digits are joined by an underscore anywhere (``\\d_\\d``)."""
    # str.isdecimal is exactly the regex's \d for text: the Unicode category Nd.
    return any(
        match.start() and source[match.start() - 1].isdecimal()
        for match in _UNDERSCORE_DIGIT.finditer(source)
    )


class SqlNumericSeparator(Rule):
    """## What it does
    Flags a Python digit separator (`90_000`) written inside a string that holds an SQL
    statement (`SELECT ... FROM`, `INSERT INTO`, `UPDATE ... SET`, `DELETE FROM`,
    `CREATE TABLE`, `VALUES (`), in any file.

    ## Why is this bad?
    Inside the quotes it is not Python. SQLite accepts underscores in numeric literals only from
    3.46.0, so the statement works on a new machine and fails on an older CI runner with
    `unrecognized token: "90_000"`; other databases reject it outright. Ruff, mypy and review
    all read it as correct Python, and a local run on a new machine cannot catch it.

    ## Example
    ```python
    db.execute("INSERT INTO runs (duration_ms) VALUES (90_000)")
    ```

    ## Use instead
    ```python
    db.execute("INSERT INTO runs (duration_ms) VALUES (?)", (90_000,))
    ```
    Or write the number without separators inside the SQL: `VALUES (90000)`.

    ## Known problems
    SQL assembled from pieces (`"SELECT *" + " FROM t WHERE n > 1_000"`) is checked piece by
    piece, so a piece without a statement shape is not recognised. Digits inside an SQL string
    literal (`'90_000'`) are data and stay silent. Docstrings are not checked.
    """

    code = "TG104"
    name = "sql-numeric-separator"
    kinds = frozenset({"test", "conftest", "source"})
    nodes = (ast.Expr, ast.JoinedStr, ast.Constant)

    @classmethod
    def wants(cls, source: str) -> bool:
        # Two plain scans, far cheaper than SEPARATED's look-arounds over a whole file: no
        # digits joined by an underscore, or no SQL-ish word at all, and there is nothing.
        return _digits_joined(source) and _SQL_WORD.search(source) is not None

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.skip: set[int] = set()  # docstrings and the pieces of f-strings already read

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        if isinstance(node, ast.Expr):  # a bare string statement is documentation
            if isinstance(node.value, ast.Constant):
                self.skip.add(id(node.value))
            return
        if isinstance(node, ast.JoinedStr):
            pieces = []
            for value in node.values:
                self.skip.add(id(value))
                pieces.append(value.value if isinstance(value, ast.Constant) else "{}")
            text = "".join(str(piece) for piece in pieces)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in self.skip:
                return
            text = node.value
        else:
            return
        found = SEPARATED.search(QUOTED.sub("''", text))
        if found and looks_like_sql(text):
            yield self._at_digits(
                node,
                found.group(),
                f"{found.group()} in an SQL string: SQL has no digit separators (SQLite before "
                f"3.46 rejects it); write {found.group().replace('_', '')} or bind a parameter",
            )

    def _at_digits(self, node: ast.AST, digits: str, message: str) -> Finding:
        """The finding on the line of a multi-line string that holds the digits."""
        first, last = getattr(node, "lineno", 1), getattr(node, "end_lineno", None) or 1
        for number in range(first, last + 1):
            column = (
                self.ctx.lines[number - 1].find(digits) if number <= len(self.ctx.lines) else -1
            )
            if column >= 0 and number > first:
                return Finding(self.code, self.name, self.ctx.relpath, number, column + 1, message)
            if column >= 0:
                break
        return self.finding(node, message)
