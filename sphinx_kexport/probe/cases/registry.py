"""Registering probe cases: ``case(...)`` and the checks done before anything runs.

A case module is any importable module or ``.py`` file that exposes ``CASES``,
a list of :class:`CaseSpec` built with :func:`case`. Importing this module
does not import torch; :func:`case` does, because it inspects its inputs.
"""

from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import dataclass, field
from typing import Any

from ...snapshot.vocabulary import DEFAULT_ATOL, DEFAULT_RTOL, ORIGIN_DOCSTRING, ORIGIN_HAND
from . import batch_dim
from . import containers
from .inventory import DiscoveryRef, Joinable, SuiteRef, suite_label
from .public_names import aliases_of
from ..base.errors import ProbeError
from .batch_dim import Batch
from .build_marks import case_built


IMPORT_SEED = 0  # the seed case modules are imported under (cases/loader.py), so random inputs repeat


class CaseError(ProbeError, ValueError):
    """Raised by :func:`case`: a case that cannot be probed as registered; the message says why and how to
    fix it. Also a ``ValueError``."""


_VARIANT = re.compile(r"^(.*?)((?:\[[^\[\]]*\])+)$")


def split_name(name: str) -> tuple[str, str]:
    """``"warp[reflect][batch]"`` -> ``("warp", "reflect, batch")``.

    Only brackets at the very end are a variant; ``Cam[pinhole].project`` is
    an operator name with no variant.
    """
    match = _VARIANT.match(name)
    if not match or not match.group(1):
        return name, ""
    variant = match.group(2)[1:-1].replace("][", ", ")
    return match.group(1), variant


@dataclass
class CaseSpec:
    """What :func:`case` returns and the discovery functions (:func:`cases_from_docstrings`,
    :func:`cases_from_tests`) yield: one case's name, target, inputs, keyword arguments and checks. Build one
    with ``case()``; the probe reads it."""

    name: str
    target: Any
    inputs: list[Any]
    kwargs: dict[str, Any]
    package: str
    section: str = ""
    note: str = ""
    check: bool = True
    atol: float = DEFAULT_ATOL
    rtol: float = DEFAULT_RTOL
    skip: str | None = None
    method: str | None = None
    ref: str = ""
    batch: Batch = field(default_factory=lambda: Batch(None))  # batch_dim: which leaf dims are the batch
    bench: list[Any] | None = None  # inputs the speed pass times at (else the batch grown to 32)
    code: str = ""  # statements that, after `import torch`, define `target` (and optionally `inputs`) as probed
    module: str = field(default="", compare=False)  # the case module that registered it, for messages and repros
    origin: str = ORIGIN_HAND  # snapshot.vocabulary.ORIGINS: written by hand, recorded from a docstring or a test
    discovery: DiscoveryRef | SuiteRef | None = field(default=None, compare=False)  # set by discovery

    @property
    def from_docstring(self) -> bool:
        return self.origin == ORIGIN_DOCSTRING

    @property
    def discovered(self) -> bool:
        """Recorded by discovery (from a docstring example or a test), not written by hand."""
        return self.origin != ORIGIN_HAND

    @property
    def joinable(self) -> Joinable:
        """What joining case modules reads of this case (cases/inventory.py)."""
        return Joinable(self.name, self.package, self.ref, containers.leaf_shapes(self.inputs), self.origin,
                        aliases_of(self.ref), self.section, suite_label(self.discovery))

    @property
    def operator(self) -> str:
        return split_name(self.name)[0]

    @property
    def variant(self) -> str:
        return split_name(self.name)[1]


def public_path(obj: Any, package: str) -> str:
    """The shortest importable dotted path that names ``obj``, preferring ``package``."""
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not module or not qualname or "<" in qualname:
        return ""
    candidates = []
    if package:
        candidates.append(package)
    parts = module.split(".")
    candidates += [".".join(parts[:n]) for n in range(1, len(parts) + 1)]
    head = qualname.split(".")[0]
    private = ""
    for mod_name in candidates:
        try:
            mod = importlib.import_module(mod_name)
        except Exception:  # a candidate that does not import is simply not the answer
            continue
        found = getattr(mod, head, None)
        if found is not None and (found is obj or (head != qualname and inspect.isclass(found)
                                                   and found.__qualname__ == head
                                                   and found.__module__ == module)):
            if not any(part.startswith("_") for part in f"{mod_name}.{head}".split(".")):
                return f"{mod_name}.{qualname}"
            private = private or f"{mod_name}.{qualname}"
    # builtins report an internal home (torch.clamp lives in torch._VariableFunctionsClass,
    # torch.linalg.svd in torch._C._linalg): look the object itself up where users reach it
    return _path_by_identity(obj, candidates) or private or f"{module}.{qualname}"


def _path_by_identity(obj: Any, module_names: list[str]) -> str:
    """``module.attr`` (or ``module.sub.attr``) whose value *is* ``obj``, shortest module first."""
    for mod_name in dict.fromkeys(sorted(module_names, key=lambda n: n.count("."))):
        mod = importlib.import_module(mod_name) if mod_name in _imported() else None
        if mod is None:
            continue
        names = [k for k, v in vars(mod).items() if v is obj and not k.startswith("_")]
        if names:
            return f"{mod_name}.{min(names, key=len)}"
        for sub_name, sub in sorted(vars(mod).items()):
            if inspect.ismodule(sub) and not sub_name.startswith("_") and sub.__name__ == f"{mod_name}.{sub_name}":
                names = [k for k, v in vars(sub).items() if v is obj and not k.startswith("_")]
                if names:
                    return f"{mod_name}.{sub_name}.{min(names, key=len)}"
    return ""


def _imported() -> set[str]:
    import sys

    return set(sys.modules)


def default_ref(target: Any, method: str | None, package: str) -> str:
    """``ref`` when the case gives none: the target's importable dotted path."""
    import torch

    obj = target
    if isinstance(target, torch.nn.Module) or not (inspect.isfunction(target) or inspect.isclass(target)
                                                   or inspect.isbuiltin(target) or inspect.ismethod(target)):
        obj = type(target)
    if inspect.ismethod(obj):
        obj = obj.__func__
    path = public_path(obj, package)
    if path and method and inspect.isclass(obj):
        path = f"{path}.{method}"
    return path


def case(name: str, target: Any, inputs: Any, kwargs: dict[str, Any] | None = None, *, package: str,
         section: str = "", note: str = "", check: bool = True, atol: float = DEFAULT_ATOL, rtol: float = DEFAULT_RTOL,
         skip: str | None = None, method: str | None = None, ref: str | None = None,
         code: str | None = None, batch: Any = batch_dim.AUTO, bench: Any = None) -> CaseSpec:
    """Register one probe case: a public callable plus concrete inputs.

    :param name: unique across all case modules; ``operator[variant]`` names one code path (variant) of an
        operator
    :param target: a function, a callable, or an ``nn.Module`` instance (put in eval mode for the eager
        reference)
    :param inputs: tensors, or dicts, lists and tuples of tensors (nested as deep as needed, as
        ``torch.export`` and the ONNX exporter accept them), passed to the target as those containers: a
        feature-pyramid module that takes and returns a dict needs no wrapper, and a NamedTuple is passed as
        itself; the target may return such containers too. Every tensor becomes a graph input, fed to
        onnxruntime in the exporter's flattened order.
    :param kwargs: Python values baked into the graph as constants
    :param package: where the row goes on the page (required)
    :param section: the package's section the row goes in (``""``: its main table)
    :param note: shown on the page: say which arguments are live tensors and which are baked
    :param check: ``False`` for a random operator: torch.compile draws as eager does (inductor's
        ``fallback_random``) and is compared in full; ONNX and torch.export are checked on output count, rank,
        dtype and finiteness, not sizes or values
    :param atol: absolute tolerance of the comparison with eager
    :param rtol: relative tolerance of the comparison with eager (shapes identical, bools exact, NaN masks
        identical, then allclose)
    :param skip: a reason (``skip="why"``): recorded as an ``n/a`` entry without running
    :param method: call this method of the target instead of calling it
    :param ref: the dotted name the page links to; defaults to the target's shortest importable public path
    :param code: Python source that, run after ``import torch``, defines ``target`` (the callable or module
        exactly as probed) and optionally ``inputs``. The repro snippet users paste starts from it, so a
        module built with constructor arguments reproduces as it was probed; without it the snippet writes
        ``Cls()`` only when ``ref`` names the module's own class and a fresh ``Cls()`` equals the probed
        module, else the case's own expression (``_Seeded()``, with the top-level statements it needs) when
        running it rebuilds an equal module, and otherwise says where the construction lives. A target that
        is the case's own function around the API, a lambda (``lambda n, e: Hyperplane.from_vector(Vector3(n),
        Vector3(e))``) or a function the case module defines at top level, is rebuilt from the case module
        with the top-level names it reads, when the rebuilt function has the probed one's code and globals; a
        function made inside a helper function, or a method bound to an object the case built, stops the snippet
        with a ``NotImplementedError`` that names the case and asks for ``code=``, never ``fn = <ref>``
        called with the case's inputs.
    :param batch: the batch dimension the :ref:`dynamic-batch pass <probe-dynamic-batch>` varies, found over
        the tensors (the leaves, inside containers too). By default dimension 0 of every tensor of rank 2 or
        more, when they agree on its size (otherwise the case has none, and its dynamic results say why); a
        tensor of rank 1 as long as that batch (a per-sample angle, gate or factor) is grown with it too when
        the operator runs that way, and held as given when it does not. ``None`` opts out; an ``int`` ``d``
        names dimension ``d`` of every tensor of rank ``max(2, d + 1)`` or more; a tuple gives one entry per
        input (a dimension of that input, of each of its tensors for a container, or ``None``). A ``batch=``
        that cannot apply (a dimension an input does not have, sizes that disagree) is reported before
        anything runs.
    :param bench: inputs shaped like ``inputs`` but of a realistic size, for the :ref:`speed pass
        <probe-speed>` (``--speed``) to time at instead of the batch grown to 32 (tensors only, one per
        input)
    :returns: the :class:`CaseSpec`, for the case module's ``CASES`` list
    :raises CaseError: the case cannot be probed as registered (checked here, before anything runs)
    """
    where = f"case {name!r}"
    if not isinstance(name, str) or not name.strip():
        raise CaseError(f"a case needs a non-empty string name, got {name!r}")
    if not isinstance(package, str) or not package:
        raise CaseError(f"{where}: package must be a non-empty string such as 'kornia.filters', got {package!r}")
    if skip is not None and (not isinstance(skip, str) or not skip.strip()):
        raise CaseError(f"{where}: skip must be a reason string such as 'needs pretrained weights', got {skip!r}")
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    kwargs = dict(kwargs or {})
    if skip is None:
        import torch

        for label, value in _input_leaves(inputs):
            if not isinstance(value, torch.Tensor):
                raise CaseError(
                    f"{where}: {label} is a {type(value).__name__}, expected a torch.Tensor (or a dict, list or "
                    "tuple of tensors). Every input becomes a graph input; pass Python values through kwargs "
                    "(baked as constants) instead.")
        call = getattr(target, method, None) if method else target
        if method and call is None:
            raise CaseError(f"{where}: the target {type(target).__name__} has no method {method!r}")
        if not callable(call):
            raise CaseError(f"{where}: the target {target!r} cannot be called; pass a function, a callable "
                            "or an nn.Module instance")
    if bench is not None:
        import torch

        bench = list(bench) if isinstance(bench, (list, tuple)) else [bench]
        if len(bench) != len(inputs):
            raise CaseError(f"{where}: bench must give as many inputs as inputs does ({len(inputs)}), got "
                            f"{len(bench)}")
        for label, value in _input_leaves(bench):
            if not isinstance(value, torch.Tensor):
                raise CaseError(f"{where}: bench{label[len('inputs'):]} is a {type(value).__name__}, expected a "
                                "torch.Tensor (bench gives the inputs the speed pass times at, shaped like inputs)")
    if code is not None and not isinstance(code, str):
        raise CaseError(f"{where}: code must be Python source (a string) that defines `target`, got "
                        f"{type(code).__name__}")
    if code and "target" not in code:
        raise CaseError(f"{where}: code must define `target` (the callable or module instance as probed)")
    if ref is None and target is not None:
        ref = default_ref(target, method, package)
    resolved = batch_dim.resolve(batch, inputs, where, CaseError) if skip is None else Batch(None)
    spec = CaseSpec(name=name, target=target, inputs=inputs, kwargs=kwargs, package=package, section=section,
                    note=note, check=bool(check), atol=float(atol), rtol=float(rtol), skip=skip, method=method,
                    ref=ref or "", code=code or "", batch=resolved, bench=bench)
    case_built(name)  # what ran since the previous case() built this one (measure/build_watch.py)
    return spec


def _checked_leaf(value: Any) -> bool:
    """A container :func:`case` refuses is checked as a leaf (and so refused): a dict with a key that is not a
    string, an empty list or tuple."""
    return (isinstance(value, dict) and not all(isinstance(k, str) for k in value)) or (
        isinstance(value, (list, tuple)) and not value)


def _input_leaves(inputs: list[Any]) -> list[tuple[str, Any]]:
    """("inputs[0]['p3']", value) for every leaf; a dict key that is not a string is a leaf too, so it is refused."""
    return [(f"inputs[{i}]" + "".join(f"[{key!r}]" for key in path), leaf)
            for i, value in enumerate(inputs) for path, leaf in containers.walk(value, is_leaf=_checked_leaf)]

