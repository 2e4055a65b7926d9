import subprocess


class Boundary:
    def close(self):
        subprocess.run(["devcontainer", "down"], check=True)

    def _spawn(self, *argv):
        return subprocess.run(argv, check=True)
