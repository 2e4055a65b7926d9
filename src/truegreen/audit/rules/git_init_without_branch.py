"""TG307 git-init-without-branch."""

from __future__ import annotations

import ast
from bisect import bisect_left
from collections.abc import Iterable, Iterator

from truegreen.audit.base import Finding, Rule
from truegreen.audit.gitcommands import GitCommand, commands

TEST_DIRS = frozenset({"test", "tests", "testing"})
# Text that sets the default branch: in a function, it pins the branch of what it inits
PINS = ("defaultBranch", "default_branch", "initial-branch", "initial_branch")
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def pins_branch(command: GitCommand) -> bool:
    """Whether ``git init`` names its first branch: ``-b NAME``, ``-bNAME``,
    ``--initial-branch[=NAME]``, or ``-c init.defaultBranch=NAME`` before the subcommand;
    or may do so in words the source does not show (``*args``)."""
    if command.open_ended:
        return True
    if any(c.split("=", 1)[0].lower() == "init.defaultbranch" for c in command.config):
        return True
    return any(
        word is not None and word.startswith(("-b", "--initial-branch")) for word in command.args
    )


class GitInitWithoutBranch(Rule):
    """## What it does
    Flags `git init` run by a test, a fixture or a test helper without `-b`/`--initial-branch`:
    in an argv list or tuple (`subprocess.run(["git", "init"], cwd=tmp_path)`), in a command
    string handed to a call (`run("git init")`, `shlex.split("git init -q")`,
    `"git init".split()`), and through a helper named for git called with the subcommand
    first (`git("init")`, `run_git(repo, "init")`). `git -c init.defaultBranch=main init`
    names the branch too and is not flagged.

    ## Why is this bad?
    Without `-b`, the new repository's first branch is whatever the machine's
    `init.defaultBranch` says: `main` on one developer's laptop, `trunk` on another's, and on
    a CI runner with no git configuration git's built-in default, `master` (with a hint on
    stderr), which the git project plans to make `main` in git 3.0. Removing `HOME` for the
    test does not help: the system's configuration and git's version still decide. A test that then
    checks out, pushes, diffs against or prints the branch passes on one machine and fails
    on the next, for a reason that has nothing to do with the code under test; and a test
    of code that reads the branch (a version scheme, a changelog tool) tests the machine.

    ## Example
    ```python
    def test_version_from_tag(tmp_path):
        subprocess.run(["git", "init"], cwd=tmp_path, check=True)
        ...
    ```

    ## Use instead
    ```python
    def test_version_from_tag(tmp_path):
        subprocess.run(["git", "init", "-b", "main"], cwd=tmp_path, check=True)
        ...
    ```
    (`-b` needs git 2.28 or later; on an older git, `git -c init.defaultBranch=main init`
    is ignored, and `git symbolic-ref HEAD refs/heads/main` right after `init` does the same.)

    ## Known problems
    A test that never looks at the branch is flagged all the same: its repository still
    differs from one machine to the next. A project whose tests set `GIT_CONFIG_GLOBAL` (or
    `HOME`) to a file of their own for every test does not read the developer's
    `init.defaultBranch`; the rule does not see that. A command built up in variables, a
    helper not named for git (`run_command("init")`), GitPython's `Repo.init(path)` and
    dulwich are not read. A `git init` in a function whose text sets the default branch
    (`init.defaultBranch`, `default_branch=`, `--initial-branch`), or through a helper of the
    same file whose text does, is taken to name it and is not flagged: a test of the default
    branch itself, or a helper that passes `-c init.defaultBranch=main` on every command.
    An argv that takes more words from elsewhere (`["git", "init",
    *options]`) is taken to name the branch there. Outside test files and conftest files,
    only modules under a `test`, `tests` or `testing` directory are read (the project's own
    code may leave the branch to the user on purpose). On the 32 real suites of the audit's
    precision bench it made 20 findings in 5 projects, all right.
    """

    code = "TG307"
    name = "git-init-without-branch"
    kinds = frozenset({"test", "conftest", "source"})
    nodes = (ast.List, ast.Tuple, ast.Call)
    triggers = ("init",)

    @classmethod
    def wants(cls, source: str) -> bool:
        return "init" in source and "git" in source.lower()

    def begin(self) -> Iterator[Finding]:
        parts = self.ctx.relpath.split("/")[:-1]
        self.active = self.ctx.kind != "source" or any(p in TEST_DIRS for p in parts)
        # the lines that mention init, numbered as the parser numbers them (\r\n, \r, \n)
        text = self.ctx.source
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.init_lines = [n for n, line in enumerate(text.split("\n"), 1) if "init" in line]
        # functions whose text sets the default branch: their own git init, and a helper of
        # theirs called to init, name the branch
        self.pinning: set[str] = set()
        self.pinned: set[int] = set()
        if self.active and any(text in self.ctx.source for text in PINS):
            for node in ast.walk(self.ctx.tree):
                if isinstance(node, FUNCTIONS):
                    end = node.end_lineno or node.lineno
                    text = "\n".join(self.ctx.lines[node.lineno - 1 : end])
                    if any(pin in text for pin in PINS):
                        self.pinning.add(node.name)
                        self.pinned.add(id(node))
        return iter(())

    def _pinned_here(self, node: ast.AST) -> bool:
        if any(id(scope) in self.pinned for scope in self.ctx.scopes):
            return True
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            return name in self.pinning
        return False

    def visit(self, node: ast.AST) -> Iterable[Finding]:
        # a plain function, not a generator: most nodes are turned away here
        if not self.active:
            return ()
        # the subcommand is a word of a string written inside the node: most nodes hold none
        at = bisect_left(self.init_lines, node.lineno)  # type: ignore[attr-defined]
        if at == len(self.init_lines) or self.init_lines[at] > node.end_lineno:  # type: ignore[attr-defined]
            return ()
        return self._commands(node)

    def _commands(self, node: ast.AST) -> Iterator[Finding]:
        for where, command in commands(node):
            if (
                command.subcommand == "init"
                and not pins_branch(command)
                and not self._pinned_here(node)
            ):
                yield self.finding(
                    where,
                    "git init without -b: the branch is the machine's init.defaultBranch "
                    "(master, main, trunk); pass -b main",
                )
