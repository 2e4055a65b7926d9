from greeter import greet, history_file


def test_greets_by_name():
    assert greet("Ada") == "Hello, Ada."


def test_shouts_when_asked(monkeypatch):
    monkeypatch.setenv("GREETER_STYLE", "shout")
    assert greet("Ada") == "HELLO, ADA!"


def test_history_remembers_the_last_name():
    greet("Grace")
    assert history_file().read_text(encoding="utf-8").splitlines()[-1] == "Grace"
