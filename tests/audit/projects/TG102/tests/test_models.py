import catalog
from catalog import CATALOG, models
from catalog.models import DEFAULT_CONFIG, MODELS, PROVIDERS, VERSION, Color, build_models
from catalog.remote import TIMEOUTS
from catalog.versions import compute_version

EXPECTED = ["a", "b", "c"]


def test_counts_the_catalog():
    assert len(MODELS["gemini"]) == 8  # expect: TG102


def test_counts_from_the_left():
    assert 2 == len(MODELS)  # expect: TG102


def test_pins_the_config_version():
    assert DEFAULT_CONFIG["_config_version"] == 21  # expect: TG102


def test_pins_a_model_in_the_catalog():
    assert "gemini-2.5-pro" in MODELS["gemini"]  # expect: TG102


def test_pins_a_provider_key():
    assert "gemini" in MODELS  # expect: TG102


def test_pins_a_tuple_through_the_module():
    assert models.PROVIDERS == ("gemini", "moonshot")  # expect: TG102


def test_pins_a_lower_case_constant():
    assert models.max_tokens == 8  # expect: TG102


def test_pins_a_re_exported_constant():
    assert len(CATALOG) == 2  # expect: TG102


def test_pins_an_upper_case_name_it_cannot_resolve():
    assert TIMEOUTS["connect"] == 5  # expect: TG102


def test_pins_a_constant_a_star_import_re_exports():
    assert catalog.LIMITS["requests"] == 100  # expect: TG102


def test_pins_one_half_of_a_conjunction():
    assert PROVIDERS and len(PROVIDERS) == 2  # expect: TG102


def test_counts_what_it_computed():
    assert len(build_models()) == 2


def test_counts_a_local_copy():
    computed = build_models()
    assert len(computed["gemini"]) == 2


def test_compares_two_pieces_of_data():
    raw = {"_config_version": 21}
    assert raw["_config_version"] == DEFAULT_CONFIG["_config_version"]


def test_compares_a_constant_with_a_call():
    assert VERSION == compute_version()


def test_pins_a_computed_module_value():
    assert VERSION == "1.0"


def test_checks_the_plumbing():
    assert "gemini" in MODELS and len(MODELS["gemini"]) >= 1


def test_bounds_the_count():
    assert len(MODELS["gemini"]) >= 1


def test_counts_its_own_constant():
    assert len(EXPECTED) == 3


def test_checks_a_leak_between_catalogs():
    assert not (set(MODELS["gemini"]) & set(MODELS["moonshot"]))


def test_pins_a_class_attribute():
    assert Color.RED == 1


def test_compares_an_enum_member_of_a_star_imported_class_with_its_number():
    assert catalog.codes.NOT_FOUND == 404


def helper_not_a_test():
    assert len(MODELS) == 2
