def test_cannot_see_a_deeper_conftest():  # expect: TG105
    near_helper([1])
