"""One module per rule; each rule's docstring is its documentation page."""
