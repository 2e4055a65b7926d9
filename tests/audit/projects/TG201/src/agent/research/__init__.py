from agent.research.search import query
