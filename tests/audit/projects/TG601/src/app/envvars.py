import os


def home():
    return os.environ.get("APP_HOME", "")
