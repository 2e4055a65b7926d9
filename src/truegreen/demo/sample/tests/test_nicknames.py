from greeter import call_me, greet


def test_greets_linus_by_his_name():
    assert greet("Linus") == "Hello, Linus."


def test_a_nickname_can_be_given():
    call_me("Linus", "Lin")
