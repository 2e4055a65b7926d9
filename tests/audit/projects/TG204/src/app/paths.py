from pathlib import Path

import platformdirs


def user_config_path() -> Path:
    return platformdirs.user_config_path("app")
