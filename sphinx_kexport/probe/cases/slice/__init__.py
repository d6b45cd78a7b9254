"""The case module's own source for one case's target and inputs, checked to rebuild what was probed.

Four jobs, one module each: :mod:`.case_call` finds the case's ``case(...)`` call (or its lambda) in the module's
tree; :mod:`.slicer` keeps the module's top-level statements those expressions need; :mod:`.sandbox` writes them
out as a snippet and runs it in a fresh namespace; :mod:`.equality` tells whether what it built is what was
probed. :mod:`.case_source` puts them together for the repro.
"""
