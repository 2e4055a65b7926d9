import os
import socket
import time
from pathlib import Path

# Named by the developer's shell (HISTORY_CACHE=~/.greeter-cache): an absolute path into
# their home, which no sealed HOME redirects.
CACHE = Path(os.environ["HISTORY_CACHE"])


def test_saves_a_report_next_to_the_tests():
    report = Path(__file__).with_name("report.txt")
    report.write_text("3 greetings\n", encoding="utf-8")
    assert report.read_text(encoding="utf-8") == "3 greetings\n"


def test_warms_the_cache_in_the_home_directory():
    CACHE.write_text("Ada\n", encoding="utf-8")
    assert CACHE.exists()


def test_asks_the_greeting_service():
    host, port = os.environ["GREETING_SERVICE"].rsplit(":", 1)
    time.sleep(0.1)  # give the service a moment
    with socket.create_connection((host, int(port)), timeout=5) as connection:
        assert connection.getpeername()[0] == host
