"""Recording the library calls the user's own code makes, shared by both sources of cases: the recorder, a recorded
call replayed as a case, whether it is random, its repro source, and how the user's code built the objects it was
called on.
"""
