"""Overhead of the guards on a synthetic suite, and the network guard against pytest-socket.

2,000 tests in 100 files: tmp_path file I/O, imports, loopback connections to a server the
module starts, and a few subprocesses (a shell command and a Python child in some files). Four
configurations run side by side, alternating, in one invocation (the machines are shared and
noisy); the figures are ratios of median wall-clock times:

- everything on (hermetic, writes, network "owned", programs, tree guard) / plain pytest,
  target <= 1.15;
- truegreen network guard only ("loopback") / pytest-socket ``--disable-socket
  --allow-hosts=127.0.0.1``, target <= 1.0;
- for scale, pytest-socket with a do-nothing builtin audit hook installed: what CPython charges
  for any audit hook at all (pytest itself raises about 37 audited events a test here).

Needs pytest-socket (``pip install -e '.[bench]'``).

    python bench/guard_overhead.py [--files 100] [--rounds 5]

``--startup`` measures the plugin's fixed start-up instead: a one-test run outside a git
checkout, plain pytest against ``-p truegreen`` (both ``--disable-plugin-autoload``), paired
rounds; it prints the median of the rounds' CPU differences (whole process tree) and, with
``--callgrind``, the difference in instructions. Target: <= +10 ms of CPU.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import compare, print_ratios, run_pytest

MODULE = """
import importlib
import json
import socket
import subprocess
import sys
import threading

import pytest

MODULES = ["csv", "decimal", "fractions", "statistics", "textwrap", "uuid", "heapq", "bisect"]


@pytest.fixture(scope="module")
def server():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)

    def serve():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    yield listener.getsockname()[1]
    listener.close()
"""

IO = """

def test_io_{n}(tmp_path):
    path = tmp_path / "data.json"
    path.write_text(json.dumps({{"n": {n}, "items": list(range(20))}}))
    assert json.loads(path.read_text())["n"] == {n}
"""
IMPORT = """

def test_import_{n}():
    assert importlib.import_module(MODULES[{n} % len(MODULES)]).__name__
"""
SOCKET = """

def test_socket_{n}(server):
    socket.create_connection(("127.0.0.1", server), timeout=5).close()
"""
SHELL = """

def test_shell_{n}():
    assert subprocess.run(["true"]).returncode == 0
"""
PYTHON = """

def test_python_child_{n}():
    assert subprocess.run([sys.executable, "-c", "pass"]).returncode == 0
"""

# Only the plugins each comparison needs are loaded (``--disable-plugin-autoload``, then
# ``-p`` for truegreen and pytest-socket), as a user who installed just the one would run:
# every other installed plugin's start-up and hooks would dilute the ratios.
ONLY = ["--disable-plugin-autoload"]
TRUEGREEN = [*ONLY, "-p", "truegreen"]
PYTEST_SOCKET = [*ONLY, "-p", "socket"]
CONFIGS = {
    "plain": [*ONLY],
    "all guards": [*TRUEGREEN],
    "truegreen network only": [
        *TRUEGREEN, "--truegreen-tree-guard=off",
        "--truegreen-set", "hermetic=false", "--truegreen-set", "writes=off",
        "--truegreen-set", "reads=off",
        "--truegreen-set", "network=loopback",
    ],
    "pytest-socket": [*PYTEST_SOCKET, "--disable-socket", "--allow-hosts=127.0.0.1"],
    "pytest-socket + an audit hook": [
        *PYTEST_SOCKET, "-p", "tg_bench_audit_hook",
        "--disable-socket", "--allow-hosts=127.0.0.1",
    ],
}  # fmt: skip

# A plugin whose only work is a do-nothing audit hook (a builtin: no Python frame per event).
AUDIT_HOOK_PLUGIN = "import sys\n\nsys.addaudithook({}.get)\n"


def make_suite(root: Path, files: int) -> int:
    """Write the suite; return its number of tests."""
    count = 0
    for index in range(files):
        parts = [MODULE]
        for n in range(20):
            if n == 0 and index < 10:
                template = SHELL
            elif n == 1 and index < 5:
                template = PYTHON
            else:
                template = [IO, IO, IO, IMPORT, SOCKET][n % 5]
            parts.append(template.format(n=n))
            count += 1
        (root / f"test_m{index:03}.py").write_text("".join(parts))
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    (root / "tg_bench_audit_hook.py").write_text(AUDIT_HOOK_PLUGIN)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "suite"], cwd=root, check=True)
    return count


def startup(rounds: int, callgrind: bool, baseline: str | None) -> int:
    """The fixed start-up: a one-test run, plain against truegreen, paired rounds."""
    import statistics

    configs = {"plain": ONLY, "truegreen": TRUEGREEN}
    envs = {}
    if baseline:
        configs["truegreen, baseline"] = TRUEGREEN
        envs["truegreen, baseline"] = {"PYTHONPATH": str(Path(baseline).resolve())}
    with tempfile.TemporaryDirectory(prefix="tg-startup-bench-") as tmp:
        root = Path(tmp)  # not a git checkout: the tree guard starts no git
        (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
        (root / "test_one.py").write_text("def test_one():\n    assert True\n")
        for name, extra in configs.items():
            run_pytest(root, extra, env_extra=envs.get(name))  # warm caches, prove it passes
        cpu: dict[str, list[float]] = {name: [] for name in configs}
        for _ in range(rounds):
            for name, extra in configs.items():
                cpu[name].append(run_pytest(root, extra, env_extra=envs.get(name))["cpu"])
        counted = {}
        if callgrind:
            for name, extra in configs.items():
                found = run_pytest(root, extra, callgrind=True, env_extra=envs.get(name))
                counted[name] = found.get("instructions", float("nan"))
    print(f"one-test run, {rounds} paired rounds; plugins: only those named by -p")
    for name in configs:
        spread = f"{min(cpu[name]):.3f}-{max(cpu[name]):.3f}"
        line = f"{name + ':':<22} CPU {statistics.median(cpu[name]):.3f}s ({spread})"
        if name in counted:
            line += f"  instructions {counted[name] / 1e9:.3f}e9"
        print(line)
    for name in configs:
        if name == "plain":
            continue
        extra_ms = statistics.median(t - p for t, p in zip(cpu[name], cpu["plain"])) * 1000
        line = f"{name} over plain: CPU {extra_ms:+.0f} ms (median of paired differences)"
        if name in counted:
            line += f", instructions {(counted[name] - counted['plain']) / 1e9:+.3f}e9"
        print(line + "  (target <= +10 ms CPU)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--callgrind", action="store_true", help="also count instructions")
    parser.add_argument(
        "--only", action="append", choices=list(CONFIGS), help="run only these configurations"
    )
    parser.add_argument(
        "--baseline",
        metavar="SRC",
        help="also run all guards with another checkout's src/ in front of PYTHONPATH",
    )
    parser.add_argument(
        "--startup", action="store_true", help="the fixed start-up of a one-test run instead"
    )
    args = parser.parse_args()
    if args.startup:
        return startup(args.rounds, args.callgrind, args.baseline)
    configs = {name: extra for name, extra in CONFIGS.items() if name in (args.only or CONFIGS)}
    envs = {}
    if args.baseline:
        configs["all guards, baseline"] = CONFIGS["all guards"]
        envs["all guards, baseline"] = {"PYTHONPATH": str(Path(args.baseline).resolve())}
    with tempfile.TemporaryDirectory(prefix="tg-guard-bench-") as tmp:
        root = Path(tmp)
        tests = make_suite(root, args.files)
        medians = compare(root, configs, rounds=args.rounds, callgrind=args.callgrind, envs=envs)
    print(f"tests: {tests}, rounds: {args.rounds} (medians); plugins: only those named by -p")
    pairs = [
        ("all guards", "plain", "<= 1.10 instructions, <= 1.12 CPU"),
        ("all guards, baseline", "plain", "the same, before"),
        ("all guards", "all guards, baseline", "after / before"),
        ("truegreen network only", "pytest-socket", "<= 1.0"),
        ("pytest-socket + an audit hook", "pytest-socket", "none: the floor of any hook"),
    ]
    print_ratios(medians, [p for p in pairs if p[0] in medians and p[1] in medians])
    return 0


if __name__ == "__main__":
    sys.exit(main())
