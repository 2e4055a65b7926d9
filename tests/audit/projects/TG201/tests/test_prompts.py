import agent
from agent import prompts


def test_patches_the_name_where_its_module_calls_it(monkeypatch):
    monkeypatch.setattr(agent.prompts, "getchar", lambda: "y")
    assert agent.pause() == "y"


def test_calls_the_re_export_after_patching_the_definition(monkeypatch):
    monkeypatch.setattr(prompts, "getchar", lambda: "y")  # expect: TG201
    assert agent.getchar() == "y"
