import json
import os

VERSION = json.dumps(os.sep)
