"""Discovery: cases recorded from a library's docstring examples, their sandbox and their cache."""
