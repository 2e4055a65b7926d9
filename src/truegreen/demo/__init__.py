"""The sample project that ``truegreen demo`` copies into a temporary directory and runs."""
