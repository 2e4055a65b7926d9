from agent.research.search import query


def first(text):
    return query(text)[0]
