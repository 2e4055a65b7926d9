import os
import socket
import time
from pathlib import Path

# Computed at import, before truegreen seals the test: the home of whoever runs pytest.
REAL_HOME = Path.home()


def test_saves_a_report_next_to_the_tests():
    report = Path(__file__).with_name("report.txt")
    report.write_text("3 greetings\n", encoding="utf-8")
    assert report.read_text(encoding="utf-8") == "3 greetings\n"


def test_warms_the_cache_in_the_home_directory():
    cache = REAL_HOME / ".greeter-cache"
    cache.write_text("Ada\n", encoding="utf-8")
    assert cache.exists()


def test_asks_the_greeting_service():
    host, port = os.environ["GREETING_SERVICE"].rsplit(":", 1)
    time.sleep(0.1)  # give the service a moment
    with socket.create_connection((host, int(port)), timeout=5) as connection:
        assert connection.getpeername()[0] == host
