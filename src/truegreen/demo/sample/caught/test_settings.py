from greeter import settings


def test_the_settings_name_a_default_guest():
    assert settings()["guest"] == "friend"
