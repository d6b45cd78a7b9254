"""A module the surveys exclude: importing it at all is a bug in discovery, and says so loudly."""

import os

os._exit(17)  # no report, no traceback could hide it: the whole discovery would die with status 17
