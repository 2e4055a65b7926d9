import os
import subprocess
import sys
import requests
import xml.etree.ElementTree as ET
from os import path
from shutil import which
from json import JSONDecoder

import app.helpers as tidying
from app import helpers


def run(argv):
    return subprocess.run(argv, cwd=os.getcwd(), check=True)


def exists(name):
    return path.exists(name) and which(name)


def fetch(url):
    return requests.get(url)


def parse(text):
    return ET.fromstring(text), JSONDecoder().decode(text), helpers.tidy(text), tidying.tidy(text), sys.platform
