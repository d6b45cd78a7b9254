"""Functions of the tiny docstring-only library (one behaviour per docstring example)."""

import urllib.request

import torch


def scale(x, factor=2.0):
    """Multiply by a constant: a plain tensor call.

    Examples:
        >>> x = torch.ones(2, 3)
        >>> scale(torch.ones(9), 2.0)  # doctest: +SKIP
        >>> scale(x, 3.0).shape
        torch.Size([2, 3])
    """
    return x * factor


def shift(x, offset):
    """Add a constant; the example makes two library calls, so it yields two cases.

    Examples:
        >>> x = torch.zeros(1, 4)
        >>> y = shift(x, 1.5)
        >>> z = scale(y, factor=0.5)
        >>> z.sum().item()
        3.0
    """
    return x + offset


def jitter(x, amount=0.1):
    """Add uniform noise: a random operator.

    Examples:
        >>> jitter(torch.ones(3, 3), amount=0.5).shape
        torch.Size([3, 3])
    """
    return x + amount * torch.rand_like(x)


def broken(x):
    """Its example raises (an outdated docstring).

    Examples:
        >>> broken(torch.ones(2), 3)
        tensor([1., 1.])
    """
    return x


def fetch_weights(x):
    """Its example downloads weights first: discovery must skip it at once, without a network.

    Examples:
        >>> w = fetch_weights(torch.ones(2))
    """
    with urllib.request.urlopen("https://example.invalid/weights.pt") as response:
        return x * float(response.read())


def make_ramp(n):
    """Builds a tensor from a numpy length: neither a tensor nor a plain Python value, so no case.

    Examples:
        >>> import numpy
        >>> make_ramp(numpy.int64(4))
        tensor([0., 1., 2., 3.])
    """
    return torch.arange(n, dtype=torch.float32)


def blur_then_scale(x):
    """Calls ``scale`` inside: only the example's own call is a case, not the library's inner one.

    Examples:
        >>> blur_then_scale(torch.ones(1, 1, 4, 4)).shape
        torch.Size([1, 1, 4, 4])
    """
    return scale(torch.nn.functional.avg_pool2d(x, 3, 1, 1), 2.0)


def mix(alpha, a, b):
    """The tensors are not the leading arguments: replayed by keyword with ``alpha`` baked.

    Examples:
        >>> a, b = torch.ones(2, 2), torch.zeros(2, 2)
        >>> mix(0.25, a, b)
        tensor([[0.2500, 0.2500],
                [0.2500, 0.2500]])
    """
    return alpha * a + (1 - alpha) * b


def slow(x):
    """Its example hangs: discovery stops it at the time limit.

    Examples:
        >>> import time
        >>> time.sleep(600)
        >>> slow(torch.ones(1))
        tensor([1.])
    """
    return x


def checked(x):
    """Refuses a 1-D input: the example shows that failing (a Traceback) before a call that works.

    Only the call that works is a case; the one that raised on purpose is listed as "the example raised".

    Examples:
        >>> checked(torch.ones(3))
        Traceback (most recent call last):
        ...
        ValueError: checked needs a 2-D tensor, got 1-D
        >>> checked(torch.ones(2, 2)).shape
        torch.Size([2, 2])
    """
    if x.dim() != 2:
        raise ValueError(f"checked needs a 2-D tensor, got {x.dim()}-D")
    return x.t()


def refuse(x):
    """Its example only shows the call failing: no case, and it says so.

    Examples:
        >>> refuse(torch.ones(2))
        Traceback (most recent call last):
        ...
        NotImplementedError: refuse is not implemented
    """
    raise NotImplementedError("refuse is not implemented")


def misaligned(x):
    """Its example's output is indented less than its prompt: doctest cannot parse the docstring.

    Examples:
        >>> misaligned(torch.ones(2))
      tensor([1., 1.])
    """
    return x
