"""A case module that takes minutes to import (as a library's docstring examples can), for the test that a
killed probe leaves no inventory child behind: with KEXPORT_IMPORT_MARKER set, it writes its process id
there and sleeps."""

import os
import time
from pathlib import Path

import torch

from sphinx_kexport.probe import case

if os.environ.get("KEXPORT_IMPORT_MARKER"):
    Path(os.environ["KEXPORT_IMPORT_MARKER"]).write_text(str(os.getpid()))
    time.sleep(300)

CASES = [case("negated", torch.neg, [torch.ones(2)], package="probe_cases.slow")]
