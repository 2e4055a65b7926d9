from agent.llm import LLMClient

__all__ = ["LLMClient"]
from agent.prompts import getchar as getchar
from agent.prompts import pause
