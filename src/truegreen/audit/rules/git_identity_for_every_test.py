"""TG306 git-identity-for-every-test."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Optional

from truegreen.audit.base import Finding, Rule
from truegreen.audit.gitcommands import commands

IDENTITY_VARIABLES = frozenset({"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                                "GIT_COMMITTER_EMAIL"})  # fmt: skip
IDENTITY_KEYS = frozenset({"user.name", "user.email"})
# conftest hooks that run once for the whole session, before any test
SESSION_HOOKS = frozenset({"pytest_configure", "pytest_sessionstart"})
# calls that put a variable into the process environment: monkeypatch.setenv, os.putenv,
# os.environ.setdefault / .update, mock.patch.dict(os.environ, ...)
SETTERS = frozenset({"setenv", "putenv", "setdefault", "update", "dict"})


def _strings(node: ast.AST) -> Iterator[str]:
    """String literals among a call's arguments: positional, dict literal keys, keyword names."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.Dict):
        for key in node.keys:
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                yield key.value


class GitIdentityForEveryTest(Rule):
    """## What it does
    In a conftest file, flags a git identity given to every test: `git config user.name` or
    `user.email` (with or without `--global`) run by an autouse fixture, and
    `GIT_AUTHOR_NAME`, `GIT_AUTHOR_EMAIL`, `GIT_COMMITTER_NAME` or `GIT_COMMITTER_EMAIL` set
    there (`monkeypatch.setenv`, `os.environ[...] = ...`, `os.environ.update(...)`,
    `mock.patch.dict(os.environ, ...)`, `os.putenv`); also at the conftest's module level and
    in the session hooks `pytest_configure` and `pytest_sessionstart`, which reach every test
    the same way. Opt-in.

    ## Why is this bad?
    Most tests need no git identity; the few that commit do. Given to all of them, the
    identity hides which is which, and it hides the product's behaviour on a machine where
    the user has none (a fresh CI runner, a container, a new laptop): git refuses to commit
    ("Author identity unknown", "Please tell me who you are"), and whatever the product does
    then (a clear message, a traceback, a silent half-done release) is never exercised. The
    suite is green because of a setting no user has.

    ## Example
    ```python
    # conftest.py
    @pytest.fixture(autouse=True)
    def git_user(monkeypatch):
        monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
        monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.invalid")
    ```

    ## Use instead
    A fixture the committing tests ask for by name, and a test of the case with no identity:
    ```python
    # conftest.py
    @pytest.fixture
    def git_user(monkeypatch):
        monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
        monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.invalid")
        ...


    # test_release.py
    def test_release_commits_the_changelog(repo, git_user): ...
    def test_release_without_an_identity_says_how_to_set_one(repo): ...
    ```
    Under truegreen, `hermetic.git_identity(name, email)` gives one test an identity.

    ## Known problems
    Opt-in: on the 32 real suites of the audit's precision bench no conftest gives every test
    an identity, so its precision there is not measured (those suites set the identity in the
    repository fixtures that need it, the practice this rule asks for). An autouse fixture of
    a test module (not a conftest) is not read: it reaches that module's tests only, which is
    narrower and often deliberate. An identity given through a helper the fixture calls, a
    configuration file the fixture writes (`~/.gitconfig`, `GIT_CONFIG_GLOBAL`), or
    `-c user.name=...` on each git command is not seen.
    """

    code = "TG306"
    name = "git-identity-for-every-test"
    severity = "warning"
    default = False
    kinds = frozenset({"conftest"})
    nodes = (ast.Call, ast.Assign, ast.List, ast.Tuple)
    triggers = ("user.name", "user.email", "GIT_AUTHOR_", "GIT_COMMITTER_")

    def _every_test(self) -> Optional[str]:
        """Where the current node reaches every test from, if it does."""
        outer = next(
            (s for s in self.ctx.scopes if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))),
            None,
        )
        if not self.ctx.scopes:
            return "the conftest's module level"
        if outer is None or outer is not self.ctx.scopes[0]:
            return None  # in a class, a lambda at module level
        if outer.name in SESSION_HOOKS:
            return outer.name
        if self.ctx.is_fixture(outer) and _autouse(outer):
            return f"the autouse fixture {outer.name}"
        return None

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        what = self._identity(node)
        if what is None:
            return
        where = self._every_test()
        if where is None:
            return
        yield self.finding(
            node,
            f"{what} in {where} gives every test a git identity: give it to the tests that "
            "commit, by a fixture they request, and test what happens without one",
        )

    def _identity(self, node: ast.AST) -> Optional[str]:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (
                    isinstance(target, ast.Subscript)
                    and self.ctx.qualname(target.value) == "os.environ"
                    and isinstance(target.slice, ast.Constant)
                    and target.slice.value in IDENTITY_VARIABLES
                ):
                    return str(target.slice.value)
            return None
        if isinstance(node, ast.Call):
            func = node.func
            callee = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if callee in SETTERS:
                names = [k.arg for k in node.keywords if k.arg in IDENTITY_VARIABLES]
                for arg in node.args:
                    names.extend(s for s in _strings(arg) if s in IDENTITY_VARIABLES)
                if names:
                    return str(names[0])
        for _, command in commands(node):
            keys = [w for w in command.args if w is not None and w.lower() in IDENTITY_KEYS]
            if command.subcommand == "config" and keys:
                return f"git config {keys[0]}"
        return None


def _autouse(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call):
            for keyword in decorator.keywords:
                if (
                    keyword.arg == "autouse"
                    and isinstance(keyword.value, ast.Constant)
                    and keyword.value.value is True
                ):
                    return True
    return False
