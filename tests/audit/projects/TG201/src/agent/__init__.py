from agent.llm import LLMClient

__all__ = ["LLMClient"]
