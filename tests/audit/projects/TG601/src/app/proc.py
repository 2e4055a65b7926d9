import subprocess


def git(*argv):
    return subprocess.run(["git", *argv], check=True, capture_output=True, text=True)
