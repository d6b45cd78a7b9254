"""Cases from a library's docstring examples: running each example, turning its recorded calls into cases, and the
objects whose example yielded none.
"""
