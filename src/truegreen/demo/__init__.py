"""``truegreen demo``'s own package: the sample project it copies (``sample/``) and its sections."""
