def render({{ name }}):
    return {{ body }}
