"""What a guarded Python child pays at start-up: the shim and the guards it loads.

Every Python process a test starts under truegreen imports ``sitecustomize`` from the shim,
which loads the guards of the run before the child's own code runs. A suite that runs its
command-line tool in a child (python-dotenv, hatch-vcs, black) pays that once per child.

One pytest run per configuration, each a test that starts ``--children`` children of
``python -c pass`` and reads their CPU seconds (``RUSAGE_CHILDREN``, user and system, so the
kernel's part of importing the guards counts too); configurations alternate over
``--rounds``, and the per-child medians are printed side by side:

- unguarded: ``-p no:truegreen`` (the child starts as it would without truegreen);
- guarded: truegreen's defaults (the child loads the guards);
- baseline (``--baseline SRC``): the defaults with another checkout's ``src/`` first on
  ``PYTHONPATH``, its shim and guards included.

The same test also forks ``--children`` times and execs ``/bin/true`` from the forked copy,
as ``sh`` and ``pexpect`` start every program: the copy raises the exec's audit event with the
session's guards in it, so what it does before the ``exec`` is the guards' cost. Each spawn's
CPU is this process's and its children's (``RUSAGE_SELF`` and ``RUSAGE_CHILDREN``) over the
fork, the exec and the wait.

With ``--callgrind``, one child of each configuration is also run under callgrind
(``PYTHONHASHSEED=0``): the instructions of a single child start, which repeat exactly.
Only truegreen is loaded (``--disable-plugin-autoload``).

    python bench/child_start.py [--children 20] [--rounds 5] [--callgrind] [--baseline SRC]

(POSIX only: the forked spawns need ``os.fork``.)
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Optional

from measure import _execute, environment

TEST = """
import json, os, resource, subprocess, sys

CHILDREN = {children}
CALLGRIND = {callgrind}


def _cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def test_children():
    # The forks first: a session that has started nothing yet through subprocess (whose
    # spawns this process records itself, importing the records on the way).
    forks = []
    for _ in range(CHILDREN):
        before = _cpu()
        pid = os.fork()
        if pid == 0:
            try:
                os.execv("/bin/true", ["/bin/true"])
            finally:
                os._exit(127)
        os.waitpid(pid, 0)
        forks.append(_cpu() - before)
    argv = [sys.executable, "-c", "pass"]
    costs = []
    for _ in range(CHILDREN):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        assert subprocess.run(argv).returncode == 0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        costs.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    found = {{"cpu": costs, "fork": forks}}
    if CALLGRIND:
        counted = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv]
        done = subprocess.run(counted, capture_output=True, text=True,
                              env={{**os.environ, "PYTHONHASHSEED": "0"}})
        found["instructions"] = done.stderr
    print("CHILD-COST " + json.dumps(found))
"""

ONLY = ["--disable-plugin-autoload"]
CONFIGS = {
    "unguarded": [*ONLY, "-p", "no:truegreen"],
    "guarded": [*ONLY, "-p", "truegreen"],
}


def one_run(root: Path, extra: list[str], env_extra: Optional[dict[str, str]]) -> dict:
    env = {**environment(), **(env_extra or {})}
    argv = [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", *extra]
    done, _, _ = _execute(argv, root, env)
    for line in done.stdout.splitlines():
        if line.startswith("CHILD-COST "):
            found: dict = json.loads(line[len("CHILD-COST ") :])
            return found
    raise SystemExit(f"no measurement in the output:\n{done.stdout[-2000:]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--children", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--callgrind", action="store_true", help="also count instructions")
    parser.add_argument(
        "--baseline", metavar="SRC", help="also run the defaults with another checkout's src/"
    )
    args = parser.parse_args()
    configs = dict(CONFIGS)
    envs: dict[str, dict[str, str]] = {}
    if args.baseline:
        configs["baseline"] = CONFIGS["guarded"]
        envs["baseline"] = {"PYTHONPATH": str(Path(args.baseline).resolve())}
    with tempfile.TemporaryDirectory(prefix="tg-child-bench-") as tmp:
        root = Path(tmp)  # not a git checkout: the tree guard starts no git
        (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
        source = TEST.format(children=args.children, callgrind=False)
        (root / "test_children.py").write_text(source)
        cpu: dict[str, list[float]] = {name: [] for name in configs}
        forks: dict[str, list[float]] = {name: [] for name in configs}
        for _ in range(args.rounds):
            for name, extra in configs.items():
                found = one_run(root, extra, envs.get(name))
                cpu[name].extend(found["cpu"])
                forks[name].extend(found["fork"])
        counted: dict[str, float] = {}
        if args.callgrind:
            (root / "test_children.py").write_text(TEST.format(children=1, callgrind=True))
            for name, extra in configs.items():
                text = one_run(root, extra, envs.get(name)).get("instructions", "")
                match = re.search(r"Collected : (\d+)", text)
                counted[name] = float(match.group(1)) if match else float("nan")
    print(f"python -c pass, {args.children} children x {args.rounds} rounds a configuration;"
          " plugins: truegreen only, or none")  # fmt: skip
    base = statistics.median(cpu["unguarded"])
    for name in configs:
        median = statistics.median(cpu[name])
        line = f"{name + ':':<12} CPU {median * 1e3:6.2f} ms a child ({median / base:.2f}x)"
        if name in counted:
            line += f"  instructions {counted[name] / 1e6:.1f}M"
        print(line)
    print("fork, then exec /bin/true from the forked copy (as sh and pexpect start programs):")
    base = statistics.median(forks["unguarded"])
    for name in configs:
        median = statistics.median(forks[name])
        print(f"{name + ':':<12} CPU {median * 1e3:6.2f} ms a spawn ({median / base:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
