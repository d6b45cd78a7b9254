"""The probe's foundation, below every stage: its errors, the network block and where a source file's module is.

The probe's folders are the stages a case goes through, in :data:`STAGES` order: each imports only the stages
before it (``tests/test_design.py`` checks it; the development page draws it from this tuple).
"""

STAGES = ("base", "cases", "measure", "discover", "run", "survey", "cli")
