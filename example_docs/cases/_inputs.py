"""Inputs the case modules share (seeded random tensors, the same on every run) and a helper that sorts
discovered cases into the sections of the hand-written ones.

Not a case module (the probe skips files whose name starts with "_"); the
case modules import it from this directory, which the probe and
tools/gen_api_pages.py put on ``sys.path``.
"""

import importlib

import torch


def rand(*shape, seed=0, lo=0.0, hi=1.0):
    """Uniform in [lo, hi), from a generator of its own: registering a case never moves the global seed."""
    gen = torch.Generator().manual_seed(seed)
    return torch.rand(*shape, generator=gen) * (hi - lo) + lo


def rgb(seed=0, batch=1):
    """A small RGB batch, (batch, 3, 32, 32)."""
    return rand(batch, 3, 32, 32, seed=seed)


def resolve(ref):
    """The object the dotted ``ref`` names (the longest importable module prefix, then attributes); None when
    there is none."""
    parts = ref.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                obj = getattr(obj, part)
        except AttributeError:
            return None
        return obj
    return None


def identity(obj):
    """One key per object: a classmethod read off its class is a new bound method each time, its function is not."""
    return id(getattr(obj, "__func__", obj))


def home_module(ref):
    """The module that defines the object named by the dotted ``ref`` ("" when it cannot be told)."""
    obj = resolve(ref)
    return "" if obj is None else getattr(obj, "__module__", "") or ""


def into_sections(specs, section_of):
    """Put each discovered case that has no section into ``section_of(defining module)``.

    A discovered case names an operator by its shortest public path
    (``kornia.geometry.warp_affine``), so it lands in its package's unnamed
    section; this moves it next to the hand-written cases of the same area
    (``transform``). ``section_of`` returns "" to leave a case where it is.
    """
    for spec in specs:
        if not spec.section:
            spec.section = section_of(home_module(spec.ref))
    return specs
