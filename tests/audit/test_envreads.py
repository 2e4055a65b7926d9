"""The environment reads found in one module's source, every spelling."""

from __future__ import annotations

import ast

import pytest

from truegreen.audit.envreads import reads


def found(source: str) -> list[tuple[str, str, int, str]]:
    return [(s.kind, s.name, s.line, s.how) for s in reads(ast.parse(source), "m.py")]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('import os as o\no.environ["A"]\n', ("variable", "A", 2, "o.environ[...]")),
        ("from os import environ as E\nE.get('A')\n", ("variable", "A", 2, "E.get()")),
        ("import os\nos.environ.setdefault('A', '1')\n",
         ("variable", "A", 2, "os.environ.setdefault()")),
        ("import os\nos.getenv(key='A')\n", ("variable", "A", 2, "os.getenv()")),
        ("from os import getenv\ngetenv('A')\n", ("variable", "A", 2, "getenv()")),
        ("import os\nif 'A' not in os.environ:\n    pass\n",
         ("variable", "A", 2, "not in os.environ")),
        ("import os\ndef f():\n    e = {**os.environ}\n    return e['A']\n",
         ("variable", "A", 4, "e[...]")),
        ("import os\nos.environ[f'{P}_A']\n", ("computed", "f'{P}_A'", 2, "os.environ[...]")),
        ("import os\nimport subprocess\nsubprocess.run([], env={**os.environ, 'A': '1'})\n",
         ("whole", "{**os.environ, 'A': '1'}", 3, "subprocess.run")),
        ("import os\ndef f(env=os.environ):\n    return env.get('A')\n",
         ("variable", "A", 3, "env.get()")),
        ("import os\ndef f(env):\n    return env['A']\nT = f(os.environ)\n",
         ("variable", "A", 3, "env[...]")),
        ("import os\ndef f():\n    key = 'A'\n    return os.getenv(key)\n",
         ("variable", "A", 4, "os.getenv()")),
        ("import os\nfor k, v in os.environ.items():\n    pass\n",
         ("computed", "every name", 2, "os.environ.items()")),
        ("import os\nimport subprocess\nsubprocess.run([], env=scrub(os.environ))\n",
         ("whole", "scrub(os.environ)", 3, "subprocess.run")),
    ],
)  # fmt: skip
def test_each_spelling_of_a_read(source: str, expected: tuple[str, str, int, str]) -> None:
    assert found(source) == [expected]


def test_a_settings_class_names_its_prefix_and_fields_and_a_subclass_inherits_them() -> None:
    source = (
        "from pydantic_settings import BaseSettings\n"
        "from pydantic import Field\n"
        "class Base(BaseSettings):\n"
        "    model_config = {'env_prefix': 'app_'}\n"
        "    port: int = 1\n"
        "    token: str = Field('', validation_alias='OTHER_TOKEN')\n"
        "    _private: int = 0\n"
        "class Child(Base):\n"
        "    mode: str = ''\n"
        "class Exact(BaseSettings):\n"
        "    model_config = {'env_prefix': 'x_', 'case_sensitive': True}\n"
        "    name: str = ''\n"
    )
    assert found(source) == [
        ("prefix", "APP_", 3, "settings class Base, env_prefix"),
        ("variable", "APP_PORT", 3, "settings class Base, field port"),
        ("variable", "OTHER_TOKEN", 3, "settings class Base, field token"),
        ("prefix", "APP_", 8, "settings class Child, env_prefix"),
        ("variable", "APP_MODE", 8, "settings class Child, field mode"),
        ("prefix", "x_", 10, "settings class Exact, env_prefix"),
        ("variable", "x_name", 10, "settings class Exact, field name"),
    ]


def test_neither_a_write_nor_another_mapping_is_a_read() -> None:
    """A write, a removal, and ``.get`` on a mapping that is not the environment: not listed.

    Ablation: replace `node.id in self.environ_names` with `True` in
    `src/truegreen/audit/envreads.py`."""
    source = (
        "import os\n"
        "config = {}\n"
        "os.environ['A'] = '1'\n"
        "os.environ.pop('B', None)\n"
        "del os.environ['C']\n"
        "config.get('D')\n"
        "'E' in config\n"
    )
    assert "os.environ['A']" in source  # premise: the module touches the environment
    assert found(source) == []
