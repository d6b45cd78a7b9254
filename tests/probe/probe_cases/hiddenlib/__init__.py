"""A tiny library whose layers hold an object that refuses what most objects allow, as e3nn's ``Irreps`` does.

:class:`Label` is a tuple (e3nn's ``Irrep`` and ``Irreps`` are tuples too) that refuses ``len()``, iteration,
``==``, ``bool()`` and hashing, and whose repr holds ``id(self)``: describing, fingerprinting, pickling and
writing a repro of a case over it must not need any of them.
"""

import torch


class Label(tuple):
    """A name and a scale that refuse the container protocol on purpose."""

    def __new__(cls, name, scale=None):
        if scale is None:  # what pickle and deepcopy pass back: the tuple itself
            name, scale = tuple.__getitem__(name, 0), tuple.__getitem__(name, 1)
        return super().__new__(cls, (name, float(scale)))

    @property
    def scale(self):
        return tuple.__getitem__(self, 1)

    def __len__(self):
        raise NotImplementedError

    def __iter__(self):
        raise NotImplementedError

    def __contains__(self, item):
        raise NotImplementedError

    def __eq__(self, other):
        raise NotImplementedError

    def __bool__(self):
        raise TypeError("a Label has no truth value")

    def __hash__(self):
        raise TypeError("a Label is not hashable")

    def __repr__(self):
        return f"Label({tuple.__getitem__(self, 0)!r}, id={id(self)})"


class Scale(torch.nn.Module):
    """Multiplies by a weight and by a label's scale (its own, or one passed to the call)."""

    def __init__(self, label):
        super().__init__()
        self.label = label
        self.weight = torch.nn.Parameter(torch.linspace(0.5, 1.5, 3))

    def extra_repr(self):
        return repr(self.label)

    def forward(self, x, label=None):
        label = self.label if label is None else label
        return x * self.weight * label.scale
