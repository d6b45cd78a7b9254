"""The probe's foundation, below every stage: its errors, the network block and where a source file's module is.

The stages import one way (tests/test_design.py): base -> cases -> measure -> discover -> run -> survey -> cli.
"""
