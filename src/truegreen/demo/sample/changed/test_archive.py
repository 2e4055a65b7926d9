"""The greeting archive, on a library whose next version flips a default."""

import os
import subprocess

from greeter import greet


def archive(text, where):
    """The archiving library, as a dependency of the app. Its 2.0 keeps the archive in a git
    repository by default; 1.x wrote a plain file. No test pinned the backend, so upgrading
    it makes every test that archives start git, and nothing fails."""
    if os.environ.get("ARCHIVER_VERSION", "1") == "2":  # the upgrade, as the demo plays it
        subprocess.run(["git", "init", "--quiet", "-b", "main", str(where)], check=True)
    (where / "archive.txt").write_text(text + "\n", encoding="utf-8")


def test_a_greeting_is_archived(tmp_path):
    archive(greet("ada"), tmp_path)
    assert (tmp_path / "archive.txt").read_text(encoding="utf-8") == "Hello, Ada.\n"
