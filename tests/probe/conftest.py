"""The probe tests run docstring discovery for real: the discovery cache is off unless a test turns it on.

Without this, a second test session would load the libraries' cases from the
user's cache, and tests about what running the examples does could not fail.
tests/probe/test_probe_discovery_cache.py passes its own cache directory.
"""

import os

os.environ["KEXPORT_DISCOVERY_CACHE"] = "off"

# The real surveys of tests that assert nothing about the dynamic-batch pass run with --no-dynamic (about
# half the work); the pass itself is proven in test_probe_dynamic.py and test_probe_statuses_at_the_edges.py.

# probe_cases/suiteproject/tests is the tiny library's own test suite: discovery runs it
# (tests/probe/test_probe_suite.py), this suite does not (one of its tests fails on purpose); likewise
# probe_cases/halfproject (tests/probe/test_probe_unreadable_modules.py).
collect_ignore = ["probe_cases/suiteproject", "probe_cases/halfproject"]
