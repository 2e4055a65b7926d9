"""TG404 xdist-group-without-loadgroup."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from truegreen.audit.base import Finding, Project, Rule
from truegreen.audit.iniopts import addopts, option_values

MARK = "pytest.mark.xdist_group"


def schedules_by_group(project: Project) -> bool:
    """Whether ``addopts`` asks pytest-xdist for ``--dist loadgroup`` (the last ``--dist`` wins)."""
    values = option_values(addopts(project), "--dist", "-d")
    return bool(values) and values[-1] == "loadgroup"


class XdistGroupWithoutLoadgroup(Rule):
    """## What it does
    Flags `@pytest.mark.xdist_group(...)` (and `pytestmark = pytest.mark.xdist_group(...)`)
    in a project whose pytest configuration does not put `--dist loadgroup` (or
    `--dist=loadgroup`, `-d loadgroup`) in `addopts`.

    ## Why is this bad?
    pytest-xdist honours `xdist_group` only under the `loadgroup` scheduler. Under the default
    `load` scheduler the mark is silently ignored: the tests it was meant to keep on one
    worker run concurrently on several, and whatever they share (a server, a port, a file)
    races. The mark reads as a guarantee and gives none. `--dist loadgroup` is a scheduling
    declaration and belongs in `addopts`, so a local `-n` run schedules as CI does.

    ## Example
    ```toml
    [tool.pytest.ini_options]
    addopts = "-n auto"
    ```
    ```python
    @pytest.mark.xdist_group("real_tmux")
    def test_attach(): ...
    ```

    ## Use instead
    ```toml
    [tool.pytest.ini_options]
    addopts = "-n auto --dist loadgroup"
    ```

    ## Known problems
    A `--dist loadgroup` given only on the CI command line, or through `PYTEST_ADDOPTS`, is
    not seen: put it in `addopts`, where every run gets it.
    """

    code = "TG404"
    name = "xdist-group-without-loadgroup"
    nodes = (ast.Attribute,)
    triggers = ("xdist_group",)

    def begin(self) -> Iterator[Finding]:
        self.grouped = schedules_by_group(self.ctx.project)
        return iter(())

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        assert isinstance(node, ast.Attribute)
        if not self.grouped and node.attr == "xdist_group" and self.ctx.qualname(node) == MARK:
            yield self.finding(
                node,
                "xdist_group is ignored unless pytest-xdist runs with --dist loadgroup: "
                "add it to addopts in the pytest configuration",
            )
