"""TG101 reads-source-code."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

from truegreen.audit.base import FileContext, Finding, Rule

SOURCE_SUFFIXES = (".py", ".ts", ".tsx", ".js")
OPENERS = frozenset({"open", "io.open", "builtins.open", "codecs.open", "tokenize.open"})
GETSOURCE = frozenset({"inspect.getsource", "inspect.getsourcelines"})
PATH_TYPES = frozenset({"Path", "PurePath", "pathlib.Path", "pathlib.PurePath", "os.path.join",
                        "os.path.abspath", "os.path.realpath", "os.path.normpath",
                        "os.path.expanduser"})  # fmt: skip
FILE_OF = frozenset({"inspect.getsourcefile", "inspect.getfile"})
LAST_PARTS = frozenset(n.rsplit(".", 1)[-1] for n in OPENERS | GETSOURCE | PATH_TYPES | FILE_OF)
SEARCHES = frozenset({"search", "match", "fullmatch", "findall", "finditer", "count", "find",
                      "rfind", "index", "startswith", "endswith"})  # fmt: skip
PARSERS = frozenset({"search", "match", "fullmatch", "findall", "finditer", "sub", "split",
                     "compile", "parse"})  # fmt: skip
SAME_PATH = frozenset({"resolve", "absolute", "expanduser"})
# Calls that build a new class at run time: its source, and its methods', is generated code
# (attrs' make_class compiles an __init__), never a file of the project.
CLASS_FACTORIES = frozenset({"make_class", "make_dataclass", "namedtuple", "NamedTuple",
                             "new_class"})  # fmt: skip
# Calls on a path that write the file it names: what the test reads back from it afterwards
# is what the test or the code under test wrote, not the project's source.
WRITERS = frozenset({"write_text", "write_bytes", "touch", "symlink_to", "hardlink_to"})
COPIES = frozenset({"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.move"})
# Calls that move the working directory for the rest of the test: a relative path after one
# into a directory the test made (``monkeypatch.chdir(tmp_path)``) names a file there.
CHDIRS = frozenset({"chdir", "as_cwd", "isolated_filesystem"})
# The home directory: what a test reads under it (a completion script, a config file the code
# under test installed there) is never a file of the project.
HOMES = frozenset({"Path.home", "pathlib.Path.home", "PosixPath.home", "pathlib.PosixPath.home",
                   "WindowsPath.home", "pathlib.WindowsPath.home"})  # fmt: skip
EFFECTS = frozenset(n.rsplit(".", 1)[-1] for n in OPENERS | COPIES)


@dataclass(frozen=True)
class Where:
    """What the audit knows about a path expression: whether it is anchored in the project
    (not built from a fixture or parameter such as ``tmp_path``) and names a source file."""

    anchored: bool
    source: bool


Findings = Sequence[Finding]
UNKNOWN = Where(anchored=True, source=False)
GENERATED = Where(anchored=False, source=False)


class ReadsSourceCode(Rule):
    """## What it does
    Flags a test that reads the text of a project source file (`.py`, `.ts`, `.tsx`, `.js`)
    through `open`, `Path.read_text`, `Path.read_bytes` or `inspect.getsource` and checks that
    text: in an `assert`, an `in` test, a regex, a string search such as `.count()`,
    `ast.parse`, a unittest assertion, or by returning it from a fixture or helper.

    ## Why is this bad?
    Such a test checks the *shape of the source*, not what the program does. It passes when
    the implementation is subtly broken (a regex matches a mis-wired call site), fails on a
    correct refactor, cannot run against a built artifact, and blocks structural cleanup while
    giving false confidence. Run the code; never read it in a test.

    ## Example
    ```python
    def test_children_are_hidden_on_windows():
        source = Path("src/app/spawn.py").read_text()
        assert "creationflags=CREATE_NO_WINDOW" in source
    ```

    ## Use instead
    ```python
    def test_children_are_hidden_on_windows():
        options = hidden_child_options({}, is_windows=True)
        assert options["creationflags"] == CREATE_NO_WINDOW
    ```
    Extract the logic into a function the test can call; if the logic lives inline in a large
    module, that is the signal to extract it, not to match text around it.

    ## Known problems
    Paths and text are followed through names assigned in the same function or at module
    level, `with ... as`, `/`, `Path(...)`, `os.path.join`, `with_suffix`, `joinpath`,
    `.parent` and `glob`/`rglob` loops; a path built by a helper function is not. A `.py` file
    the test or the code under test wrote stays silent: a path built from a parameter or
    fixture (`tmp_path`, `tmpdir`, `tmp_path_factory`, a workspace or output directory), from
    `tempfile`, or from a name unpacked or looped over from such a path (`(src,) =
    (tmp_path / "src").iterdir()`); a name the test wrote through earlier in the function
    (`write_text`, `write_bytes`, `touch`, `open(..., "w")`, `shutil.copy` to it); and a
    relative path after the test moved into a directory it made (`monkeypatch.chdir(tmp_path)`,
    `os.chdir`, `contextlib.chdir`, `tmpdir.as_cwd()`, click's `isolated_filesystem()`). So
    does a path rooted in the home directory (`Path.home()`, `os.path.expanduser("~")`,
    `Path("~/...").expanduser()`): a completion script or config file the code under test
    installed there is its output, never the project's source. Files
    opened for writing and source that is only run, compiled or handed to other code stay
    silent too. `inspect.getsource` of a class or function the test
    defines itself (its own code, or code a library generated for it, such as attrs'
    `__init__`) stays silent, and so does one of a class the test builds with a class
    factory (`make_class`, `make_dataclass`, `namedtuple`, `NamedTuple`, `new_class`,
    three-argument `type`); of one returned by any other call (`getattr(app, "start")`) it
    is flagged, since that may be the project's own object. A test of a tool that reads code
    (a formatter, an `inspect` feature) reads `.py` files as data and is flagged: suppress it
    on its line with the reason.
    """

    code = "TG101"
    name = "reads-source-code"
    nodes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign,
             ast.For, ast.With, ast.AsyncWith, ast.Assert, ast.Compare, ast.Call,
             ast.Return)  # fmt: skip
    triggers = ("open", "read_text", "read_bytes", "getsource")

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        # (id of the defining function or 0 for the module, name) -> what the name holds
        self.names: dict[tuple[int, str], Where] = {}
        self.handles: dict[tuple[int, str], ast.Call] = {}  # open files of source: the open()
        self.texts: dict[tuple[int, str], ast.Call] = {}  # source text: the call that read it
        self.reported: set[int] = set()
        # (id of the function, name) of classes and functions a test defines: their source is
        # the test's own, or code generated at run time (attrs' __init__), not the project's
        self.defined: set[tuple[int, str]] = set()
        # ids of the functions that moved the working directory into a directory they made
        self.moved: set[int] = set()

    # One method per node type (the engine calls each for its type alone). Source text used
    # where a test checks text: in an assert, an ``in`` comparison, a regex, a string search,
    # ``ast.parse``, a unittest assertion, or handed back.

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Findings:
        if self.ctx.function is not None:
            self.defined.add((self._scope(), node.name))
        args = node.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None:
                self.names[(id(node), arg.arg)] = GENERATED
        return ()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> Findings:
        if self.ctx.function is not None:
            self.defined.add((self._scope(), node.name))
        return ()

    def visit_Assign(self, node: ast.Assign) -> Findings:
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self._bind(node.targets[0].id, node.value)
            if self.ctx.function is not None and self._builds_a_class(node.value):
                self.defined.add((self._scope(), node.targets[0].id))
        elif len(node.targets) == 1:
            self._unpack(node.targets[0], self.where(node.value))
        return ()

    def visit_AnnAssign(self, node: ast.AnnAssign) -> Findings:
        if node.value is not None and isinstance(node.target, ast.Name):
            self._bind(node.target.id, node.value)
        return ()

    def visit_For(self, node: ast.For) -> Findings:
        if isinstance(node.target, ast.Name):
            self.names[(self._scope(), node.target.id)] = self._iterated(node.iter)
        else:
            self._unpack(node.target, self._iterated(node.iter))
        return ()

    def _unpack(self, target: ast.AST, where: Where) -> None:
        """``(src,) = tmp_path.iterdir()``, ``wheel, info = unpack(dist, tmp_path)``: each name
        is anchored as the value is, and no longer holds text or an open file."""
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                key = (self._scope(), node.id)
                self.names[key] = Where(where.anchored, source=False)
                self.handles.pop(key, None)
                self.texts.pop(key, None)

    def visit_With(self, node: ast.With | ast.AsyncWith) -> Findings:
        for item in node.items:
            if isinstance(item.optional_vars, ast.Name):
                self._bind(item.optional_vars.id, item.context_expr)
        return ()

    visit_AsyncWith = visit_With

    def visit_Assert(self, node: ast.Assert) -> Findings:
        return self._report(_operands(node.test))

    def visit_Compare(self, node: ast.Compare) -> Findings:
        for op in node.ops:
            if isinstance(op, (ast.In, ast.NotIn)):
                return self._report([node.left, *node.comparators])
        return ()

    def visit_Return(self, node: ast.Return) -> Findings:
        return () if node.value is None else self._report([node.value])

    def visit_Call(self, node: ast.Call) -> Findings:
        self._note_effects(node)
        if not self._checks_text(node.func):
            return ()
        candidates: list[ast.AST] = [*node.args, *(k.value for k in node.keywords)]
        if isinstance(node.func, ast.Attribute):
            candidates.append(node.func.value)
        return self._report(candidates)

    def _note_effects(self, node: ast.Call) -> None:
        """A write to a path held by a name, or a move of the working directory into a
        directory the test made: what is read there afterwards is no project source."""
        func = node.func
        written: Optional[ast.AST] = None
        name = (self.ctx.qualname(func) or "") if self.ctx.may_name(func, EFFECTS) else ""
        if name in OPENERS:
            written = node.args[0] if node.args and self._writes(node, 1) else None
        elif name in COPIES:
            written = node.args[1] if len(node.args) > 1 else None
        elif isinstance(func, ast.Attribute):
            if func.attr in WRITERS or (func.attr == "open" and self._writes(node, 0)):
                written = func.value
            elif func.attr in CHDIRS and self.ctx.function is not None:
                target = node.args[0] if node.args else func.value
                if func.attr == "isolated_filesystem" or not self.where(target).anchored:
                    self.moved.add(id(self.ctx.function))
        if isinstance(written, ast.Name):
            self.names[(self._scope(), written.id)] = GENERATED

    def _report(self, candidates: list[ast.AST]) -> Findings:
        """A finding for each candidate that holds source text not reported yet."""
        found: list[Finding] = []
        for candidate in candidates:
            read = self._text(candidate)
            if read is not None and id(read) not in self.reported:
                self.reported.add(id(read))
                found.append(
                    self.finding(
                        read,
                        f"{self._shown(read)} reads source code to check its shape: call the "
                        "code and assert on what it does (extract the logic into a function if "
                        "need be)",
                    )
                )
        return found

    def _checks_text(self, func: ast.AST) -> bool:
        if isinstance(func, ast.Attribute) and (
            func.attr.startswith("assert") or func.attr in SEARCHES
        ):
            return True
        name = (self.ctx.qualname(func) or "") if self.ctx.may_name(func, PARSERS) else ""
        return name.startswith("re.") or name == "ast.parse"

    def _shown(self, read: ast.Call) -> str:
        name = self._name(read.func)
        if name:
            return f"{name}()"
        return f".{read.func.attr}()" if isinstance(read.func, ast.Attribute) else "a read"

    def _bind(self, name: str, value: ast.AST) -> None:
        key = (self._scope(), name)
        self.names[key] = self.where(value)
        handle, text = self._handle(value), self._text(value)
        for table, found in ((self.handles, handle), (self.texts, text)):
            if found is not None:
                table[key] = found
            else:
                table.pop(key, None)

    def _builds_a_class(self, call: ast.AST) -> bool:
        """Whether ``call`` builds a new class: what the test binds it to is its own."""
        if not isinstance(call, ast.Call):
            return False
        if self.ctx.may_name(call.func, CLASS_FACTORIES):
            name = self.ctx.qualname(call.func) or ""
            return name.rsplit(".", 1)[-1] in CLASS_FACTORIES
        return self.ctx.qualname(call.func) == "type" and len(call.args) == 3

    def _text(self, node: ast.AST) -> Optional[ast.Call]:
        """The call that read the source text ``node`` holds or derives from, if any."""
        if isinstance(node, ast.Name):
            return self._lookup_in(self.texts, node.id)
        if isinstance(node, ast.Subscript):
            return self._text(node.value)
        if not isinstance(node, ast.Call):
            return None
        func = node.func
        if self._name(func) in GETSOURCE:
            return None if node.args and self._defined_here(node.args[0]) else node
        if not isinstance(func, ast.Attribute):
            return None
        if func.attr in ("read_text", "read_bytes"):
            return node if self._is_source(func.value) else None
        if func.attr in ("read", "readline", "readlines"):
            return self._handle(func.value)
        return self._text(func.value)  # text.splitlines(), text.decode(), ...

    def _handle(self, node: ast.AST) -> Optional[ast.Call]:
        """The ``open()`` of a source file that ``node`` is the open file of, if any."""
        if isinstance(node, ast.Name):
            return self._lookup_in(self.handles, node.id)
        if not isinstance(node, ast.Call):
            return None
        if node.args and self._name(node.func) in OPENERS:
            return None if self._writes(node, 1) or not self._is_source(node.args[0]) else node
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "open" and not self._writes(node, 0):
            return node if self._is_source(func.value) else None
        return None

    def _defined_here(self, node: ast.AST) -> bool:
        """Whether ``node`` (``Point``, ``Point.__init__``) is a class or function that the
        enclosing function defines itself."""
        while isinstance(node, ast.Attribute):
            node = node.value
        if not isinstance(node, ast.Name):
            return False
        return any((id(scope), node.id) in self.defined for scope in self.ctx.scopes)

    def _lookup_in(self, table: dict[tuple[int, str], ast.Call], name: str) -> Optional[ast.Call]:
        for scope in reversed(self.ctx.scopes):
            found = table.get((id(scope), name))
            if found is not None:
                return found
        return table.get((0, name))

    def _scope(self) -> int:
        function = self.ctx.function
        return id(function) if function is not None else 0

    def _lookup(self, name: str) -> Where:
        if name == "__file__":
            return Where(anchored=True, source=True)
        for scope in reversed(self.ctx.scopes):
            found = self.names.get((id(scope), name))
            if found is not None:
                return found
        return self.names.get((0, name), UNKNOWN)

    def where(self, node: ast.AST) -> Where:
        """Follow a path expression to what it names."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.startswith("~"):  # expanded to the home directory, never the project
                return Where(anchored=False, source=node.value.endswith(SOURCE_SUFFIXES))
            return Where(self._anchored(node.value), source=node.value.endswith(SOURCE_SUFFIXES))
        if isinstance(node, ast.JoinedStr):
            last = node.values[-1] if node.values else None
            first = self.where(node.values[0]) if node.values else UNKNOWN
            tail = isinstance(last, ast.Constant) and str(last.value).endswith(SOURCE_SUFFIXES)
            return Where(anchored=first.anchored, source=tail)
        if isinstance(node, ast.FormattedValue):
            return self.where(node.value)
        if isinstance(node, ast.Name):
            return self._lookup(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return Where(self.where(node.left).anchored, self.where(node.right).source)
        if isinstance(node, ast.Attribute):
            if node.attr == "__file__":
                return Where(anchored=True, source=True)
            return Where(self.where(node.value).anchored, source=False)
        if isinstance(node, ast.Subscript):
            return Where(self.where(node.value).anchored, source=False)
        if isinstance(node, ast.Call):
            return self._called(node)
        return UNKNOWN

    def _anchored(self, text: str) -> bool:
        """A literal path is the project's unless it is relative and the test moved the
        working directory into a directory it made."""
        function = self.ctx.function
        if function is None or id(function) not in self.moved:
            return True
        return text.startswith(("/", "\\")) or (len(text) > 1 and text[1] == ":")

    def _called(self, node: ast.Call) -> Where:
        name = self._name(node.func)
        if name in FILE_OF:
            return Where(anchored=True, source=True)
        if name.startswith("tempfile.") or self._is_home(node.func):
            return GENERATED
        if name in PATH_TYPES:
            if not node.args:
                return UNKNOWN
            return Where(self.where(node.args[0]).anchored, self.where(node.args[-1]).source)
        if isinstance(node.func, ast.Attribute):
            base = self.where(node.func.value)
            method = node.func.attr
            if method in SAME_PATH:
                return base
            if method == "with_suffix" and node.args:
                return Where(base.anchored, self.where(node.args[0]).source)
            if method == "joinpath" and node.args:
                return Where(base.anchored, self.where(node.args[-1]).source)
            if not base.anchored:
                return GENERATED
        # Anything else built from a parameter (a project made in tmp_path) is generated.
        values = [*node.args, *(k.value for k in node.keywords)]
        return UNKNOWN if all(self.where(v).anchored for v in values) else GENERATED

    def _is_home(self, func: ast.AST) -> bool:
        """Whether ``func`` is ``Path.home``: the home directory, not the project."""
        return (
            isinstance(func, ast.Attribute)
            and func.attr == "home"
            and self.ctx.qualname(func) in HOMES
        )

    def _iterated(self, node: ast.AST) -> Where:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("glob", "rglob")
            and node.args
        ):
            return Where(self.where(node.func.value).anchored, self.where(node.args[0]).source)
        if isinstance(node, ast.Call) and self.ctx.qualname(node.func) in ("sorted", "list"):
            return self._iterated(node.args[0]) if node.args else UNKNOWN
        # the items of anything built from a fixture or parameter (unpack(tmp_path)) are too
        return UNKNOWN if self.where(node).anchored else GENERATED

    def _name(self, func: ast.AST) -> str:
        """The dotted name of a callee this rule knows, or "" (cheaply, for the rest)."""
        if self.ctx.may_name(func, LAST_PARTS) or (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and self.ctx.aliases.get(func.value.id) == "tempfile"
        ):
            return self.ctx.qualname(func) or ""
        return ""

    def _is_source(self, node: ast.AST) -> bool:
        where = self.where(node)
        return where.anchored and where.source

    def _writes(self, node: ast.Call, position: int) -> bool:
        mode: Optional[ast.AST] = node.args[position] if len(node.args) > position else None
        for keyword in node.keywords:
            if keyword.arg == "mode":
                mode = keyword.value
        if mode is None:
            return False
        if not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)):
            return True  # a mode the audit cannot read: not taken for a read
        return any(flag in mode.value for flag in "wax+")


def _operands(node: ast.AST) -> list[ast.AST]:
    """What an assertion compares or tests for truth, through ``and``/``or``/``not``."""
    if isinstance(node, ast.BoolOp):
        return [part for value in node.values for part in _operands(value)]
    if isinstance(node, ast.UnaryOp):
        return _operands(node.operand)
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    return [node]
