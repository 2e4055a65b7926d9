"""What the end-of-run comparison of the real home costs on a home with thousands of entries.

Builds a temporary home with 5,000 top-level entries (files and directories, as a long-lived
home has: dotfiles, caches, downloads) and a watched directory of 200, then times what a
session pays: the snapshot at its start, and the snapshot and comparison at its end, against a
plain ``os.listdir`` of the same home (the floor of any look at it). Medians of many rounds,
in CPU time.

    python bench/home_snapshot.py [--entries 5000] [--rounds 50]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from truegreen.core.homesnap import HomeSnapshot


def make_home(root: Path, entries: int) -> Path:
    home = root / "home"
    home.mkdir()
    for n in range(entries):
        if n % 5 == 0:
            (home / f".dir{n:05}").mkdir()
        else:
            (home / f".file{n:05}").write_text("x")
    watched = home / ".config" / "tool"
    watched.mkdir(parents=True)
    for n in range(200):
        (watched / f"replay{n:03}.json").write_text("{}")
    return home


def median_ms(action: object, rounds: int) -> float:
    """Median CPU milliseconds (user and system: the ``lstat`` calls are system time) of one
    call; CPU rather than wall-clock time, which a shared machine's load inflates."""
    times = []
    for _ in range(rounds):
        start = time.process_time()
        action()  # type: ignore[operator]
        times.append(time.process_time() - start)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tg-home-bench-") as tmp:
        home = make_home(Path(tmp), args.entries)
        watched = str(home / ".config" / "tool")

        def start() -> HomeSnapshot:
            snapshot = HomeSnapshot(str(home))
            snapshot.watch(watched)
            return snapshot

        taken = start()

        def end() -> None:
            changes = taken.changes()
            assert changes == [], changes

        listdir = median_ms(lambda: os.listdir(home), args.rounds)

        def listdir_lstat() -> None:
            for name in os.listdir(home):
                os.lstat(os.path.join(home, name))

        lstats = median_ms(listdir_lstat, args.rounds)
        at_start = median_ms(start, args.rounds)
        at_end = median_ms(end, args.rounds)
        (home / ".gnupg").mkdir()  # and it does see a change
        assert taken.changes() == [("new", str(home / ".gnupg"))]
    total = at_start + at_end
    print(f"home of {args.entries} top-level entries, a watched directory of 200; CPU ms, "
          f"medians of {args.rounds} rounds")  # fmt: skip
    print(f"os.listdir of the home:           {listdir:7.2f} ms")
    print(f"os.listdir and an lstat an entry: {lstats:7.2f} ms (the floor of seeing mtimes)")
    print(f"snapshot at the session's start:  {at_start:7.2f} ms")
    print(f"snapshot and compare at its end:  {at_end:7.2f} ms")
    print(f"whole cost a session:             {total:7.2f} ms ({total / listdir:.1f}x os.listdir; "
          f"one snapshot {at_start / lstats:.2f}x listdir+lstat)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
