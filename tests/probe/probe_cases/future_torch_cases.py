"""A case module written for a torch newer than any: under this torch its import fails on a torch name, which
the probe reads as "skipped under this torch version", not as a mistake that stops the run."""

import torch

from sphinx_kexport.probe import case

attention = torch.nn.attention.a_function_of_a_future_torch  # AttributeError on the torch module

CASES = [case("future_attention", attention, torch.rand(2, 3))]
