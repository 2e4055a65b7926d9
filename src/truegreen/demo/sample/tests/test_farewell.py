from greeter import farewell


def test_says_goodbye():
    assert farewell("Ada") == "Goodbye, Ada."
