import os

# The package's own tests read APPDATA: that is not the project's code reading it.
ROAMING = os.environ.get("APPDATA")
