"""TG601 call-outside-seam."""

from __future__ import annotations

import ast
import fnmatch
import io
import re
import tokenize
from collections.abc import Iterator, Mapping
from typing import Any, Optional

from truegreen.audit.base import Finding, Rule
from truegreen.core.errors import ConfigError

SPAWNS = frozenset(
    {f"subprocess.{n}" for n in ("run", "call", "check_call", "check_output", "Popen")}
    | {"subprocess.getoutput", "subprocess.getstatusoutput"}
    | {"os.system", "os.popen", "os.posix_spawn", "os.posix_spawnp"}
    | {f"os.exec{s}" for s in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")}
    | {f"os.spawn{s}" for s in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")}
    | {"asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell"}
)
ENVIRON = frozenset({"os.environ", "os.environb", "os.getenv", "os.getenvb", "os.putenv"})
FAMILIES: dict[str, frozenset[str]] = {
    "subprocess": SPAWNS,
    "environ": ENVIRON | {"os.unsetenv"},
}
# the modules whose dynamic import (`__import__("subprocess")`) is itself a use of the family
IMPORTED: dict[str, frozenset[str]] = {
    "subprocess": frozenset({"subprocess"}),
    "environ": frozenset(),
}
DYNAMIC = frozenset({"__import__", "importlib.import_module"})
MARKER = re.compile(r"#\s*truegreen:\s*seam\b([^#]*)")  # the reason ends at another comment


class CallOutsideSeam(Rule):
    """## What it does
    On the project's *source* (not its tests), flags a use of a call family outside the
    modules configured as its seam. `[tool.truegreen.audit.seams]` maps a family to path
    globs (relative to the project root) of the modules allowed to use it:

    ```toml
    [tool.truegreen.audit.seams]
    subprocess = ["src/app/proc.py"]
    environ = ["src/app/envvars.py"]
    "os.kill" = ["src/app/process_host.py"]
    ```

    Families: `subprocess` (a call of, or reference to, `subprocess.run`/`call`/`check_call`/
    `check_output`/`Popen`/`getoutput`/`getstatusoutput`, `os.system`, `os.popen`,
    `os.exec*`, `os.spawn*`, `os.posix_spawn*`, `asyncio.create_subprocess_*`), `environ`
    (`os.environ`, `os.environb`, `os.getenv`, `os.putenv`, `os.unsetenv`), and any dotted
    name (`os.kill`; a module name such as `socket` covers its attributes). Recognized access
    forms: `import subprocess as sp` then `sp.run`, `from subprocess import run as r`,
    `from os import environ` then `environ["X"]`, `os.environ.get`, `getattr(os, "kill")`,
    `__import__("subprocess")` and `importlib.import_module("subprocess")`. A line that
    carries `# truegreen: seam <reason>` is allowed; the reason is required, and a bare
    marker is itself a finding. The rule is opt-in (`select = ["TG601"]`).

    ## Why is this bad?
    Spawns, environment reads and process control scattered across a code base cannot be
    patched in one place, so tests either miss them (and run real processes, read the
    developer's environment) or patch each call site and drift. Keeping them behind a few
    seams is what makes them patchable at all, and what makes a portability review cheap: a
    reviewer reads the seams, not every call site.

    ## Example
    ```python
    # src/app/deploy.py
    import subprocess


    def deploy(tag):
        subprocess.run(["git", "push", "origin", tag], check=True)
    ```

    ## Use instead
    ```python
    # src/app/deploy.py
    from app import proc


    def deploy(tag):
        proc.git("push", "origin", tag)
    ```

    ## Known problems
    Names are resolved through the module's imports, not through data flow:
    `__import__("os").environ`, a module passed around as a value, or a function parameter
    that shadows an imported `environ` are not told apart. Annotations are not uses
    (`proc: subprocess.Popen`), but `isinstance(p, subprocess.Popen)` is one. Only configured
    families are checked.
    """

    code = "TG601"
    name = "call-outside-seam"
    severity = "warning"
    default = False
    kinds = frozenset({"source"})
    nodes = (
        ast.Name,
        ast.Attribute,
        ast.Call,
        ast.arg,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.AnnAssign,
    )

    def begin(self) -> Iterator[Finding]:
        seams = seams_of(self.ctx.project.settings)
        relpath = self.ctx.relpath
        self.families = {
            family: FAMILIES.get(family, frozenset({family}))
            for family, globs in seams.items()
            if not any(_matches(relpath, glob) for glob in globs)
        }
        self.imported = {
            family: IMPORTED.get(family, frozenset({family})) for family in self.families
        }
        self.seams = seams
        self.covered: set[int] = set()
        self.marked: dict[int, str] = _markers(self.ctx.source)
        for line, reason in sorted(self.marked.items()):
            if not reason:
                yield self.finding(
                    line, "`# truegreen: seam` without a reason: say why this line may bypass it"
                )

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        if not self.families or id(node) in self.covered:
            return
        annotation = _annotation(node)
        if annotation is not None or not isinstance(node, (ast.Name, ast.Attribute, ast.Call)):
            if annotation is not None:
                self._cover(annotation)  # a type is not a use: `p: subprocess.Popen`
            return
        if isinstance(node, ast.Call) and self.ctx.qualname(node.func) in DYNAMIC:
            dotted = _text(node.args[0]) if node.args else None
            matches = {f: {dotted} & self.imported[f] for f in self.families}
        else:
            dotted = self._reference(node)
            matches = {
                f: {m for m in ms if dotted and _under(dotted, m)}
                for f, ms in self.families.items()
            }
        if dotted is None:
            return
        for family, matched in matches.items():
            if matched:
                self._cover(node)
                if self.marked.get(getattr(node, "lineno", 0)):
                    return
                where = ", ".join(self.seams[family]) or "no module"
                yield self.finding(
                    node,
                    f"{dotted} outside the {family} seam ({where}): go through the seam, or "
                    f"mark the line `# truegreen: seam <reason>`",
                )
                return

    def _reference(self, node: ast.AST) -> Optional[str]:
        if isinstance(node, ast.Call):
            name = self.ctx.qualname(node.func)
            args = node.args
            if name == "getattr" and len(args) >= 2 and _text(args[1]) is not None:
                owner = self.ctx.qualname(args[0])
                return f"{owner}.{_text(args[1])}" if owner is not None else None
            return None
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
            root: ast.expr = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if not isinstance(root, ast.Name) or root.id not in self.ctx.aliases:
                return None  # rooted in a local or global variable, not in an import
            return self.ctx.qualname(node)
        return None

    def _cover(self, node: ast.AST) -> None:
        """The inner parts of a flagged chain (``os`` in ``os.environ``) are not flagged again."""
        self.covered.update(id(n) for n in ast.walk(node))


def _matches(relpath: str, glob: str) -> bool:
    """A glob as every audit setting reads one: against the POSIX path from the root; a
    directory covers what is under it; a glob without ``/`` also matches a file's or a
    directory's own name."""
    glob = glob.rstrip("/")
    if fnmatch.fnmatchcase(relpath, glob) or fnmatch.fnmatchcase(relpath, glob + "/*"):
        return True
    return "/" not in glob and any(fnmatch.fnmatchcase(p, glob) for p in relpath.split("/"))


def _annotation(node: ast.AST) -> Optional[ast.expr]:
    if isinstance(node, (ast.arg, ast.AnnAssign)):
        return node.annotation
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.returns
    return None


def _under(dotted: str, member: str) -> bool:
    return dotted == member or dotted.startswith(f"{member}.")


def _text(node: ast.expr) -> Optional[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _markers(source: str) -> dict[int, str]:
    """Line -> reason of every `# truegreen: seam` comment (read by the tokenizer, so a string
    that mentions the marker is not one)."""
    if "truegreen:" not in source:
        return {}
    found: dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                match = MARKER.search(token.string)
                if match:
                    found[token.start[0]] = match.group(1).strip()
    except (tokenize.TokenError, SyntaxError):
        return found
    return found


def seams_of(settings: Mapping[str, Any]) -> dict[str, list[str]]:
    """``settings["seams"]`` checked: a table of family -> list of path globs."""
    seams = settings.get("seams", {})
    if not isinstance(seams, Mapping):
        raise ConfigError(
            f"[tool.truegreen.audit] seams must be a table of call family -> list of path "
            f"globs (got {seams!r})"
        )
    for family, globs in seams.items():
        if not isinstance(globs, (list, tuple)) or not all(isinstance(g, str) for g in globs):
            raise ConfigError(
                f"[tool.truegreen.audit.seams] {family} must be a list of path globs "
                f"relative to the project root (got {globs!r})"
            )
    return {str(family): list(globs) for family, globs in seams.items()}
