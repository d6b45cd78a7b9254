"""The probe tests run docstring discovery for real: the discovery cache is off unless a test turns it on.

Without this, a second test session would load the libraries' cases from the
user's cache, and tests about what running the examples does could not fail.
tests/probe/discover/test_probe_discovery_cache.py passes its own cache directory.
"""

import os

os.environ["KEXPORT_DISCOVERY_CACHE"] = "off"

# The real surveys of tests that assert nothing about the dynamic-batch pass run with --no-dynamic (about
# half the work); the pass itself is proven in test_probe_dynamic.py and test_probe_statuses_at_the_edges.py.

# The tests live in one folder per stage of the probe (base/, cases/, discover/, measure/, run/, survey/, cli/);
# pytest puts this folder on sys.path as it loads this file, so they import the shared helpers (probe_cli.py,
# processes.py, batch_project.py) and the fixture libraries (probe_cases) from here.

# probe_cases/<name>project/ are tiny libraries with their own test suites: discovery runs them
# (test_probe_suite.py, test_probe_unreadable_modules.py, test_probe_suite_under_recording.py), this suite does
# not (some of their tests fail on purpose, and their libraries import only from their own folder).
collect_ignore_glob = ["probe_cases/*project"]
