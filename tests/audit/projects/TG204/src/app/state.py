import os
from pathlib import Path


def state_dir() -> Path:
    return Path(os.environ.get("XDG_STATE_HOME", "~/.local/state")).expanduser() / "app"


def export_data_home(path: str) -> None:
    os.environ["XDG_DATA_HOME"] = path  # a write, not a read
