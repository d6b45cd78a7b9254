"""Cases from a library's own test suite: running it (in shards), what each test's calls copy, what each test file
depends on, and turning the calls into cases.
"""
