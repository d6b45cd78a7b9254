"""Record the calls of a library's public callables that the user's own code makes: a docstring example's
(docstring_run.py), a test's (suite_run.py).

Interception: while examples run, the package's public functions are replaced
*in the library's modules* by thin recording proxies, and ``nn.Module.__call__``
by a recording one. A proxy records only when its caller frame is example code
(compiled under a ``<doctest ...>`` file name), so a call one library function
makes to another is passed straight through. This was chosen over
``sys.setprofile``: a profile hook sees code objects, and one decorator's
wrapper code is shared by many public functions, so it cannot tell which
public callable was called; a proxy knows what it stands for, costs one frame
lookup per call, and receives the exact arguments. Classes are never replaced
(``isinstance`` and subclassing inside the library must keep working); the
public methods of a public class that is not a module (``Quaternion.from_axis_angle``,
``PinholeCamera.project``, ``Se3.__mul__``) are replaced on the class while examples
run, and recorded bound to their class or to a copy of their instance.

The proxies step aside for torch's compilers, so that a test that scripts or compiles
the library's code passes under recording as it does without it. TorchScript compiles
a function from its source but resolves its names in the globals and closure of the
object it was handed: handed a proxy, it reads the original's source (``inspect``
unwraps it) in this module's globals ("undefined value torch"), and each library
function a scripted function or module reaches is looked up anew in the library's
modules. So while ``torch.jit.script`` compiles, the originals are put back, and a
proxy the test itself hands it (a public function it read while recording) is
exchanged for its original (:func:`_originals_while_scripting`): nothing inside a
proxy could help, since the proxy's own code is never what TorchScript compiles. Dynamo traces a proxy's bytecode
when it meets it (at any later call, not only inside ``torch.compile``), and would
refuse the recorder's ``sys._getframe``; so a proxy's first step asks
``torch.compiler.is_compiling()``, which dynamo answers True while it traces, and then
calls the original only. Calls made from scripted or compiled code are never the test's
own calls: nothing is lost.
"""

from __future__ import annotations

import contextlib
import copy
import enum
import functools
import inspect
import random
import sys
import types
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from ...cases import containers
from ...cases.module_copy import SHARE_ABOVE, copy_object, parameter_bytes
from .. import rebuilt_weights
from .provenance import Built, BuiltObjects
from ..sandbox import new_call_made

EXAMPLE_FILE_PREFIX = "<doctest "


def _compiling() -> bool:
    """Whether dynamo is tracing now (see the module's docstring); torch is imported by then."""
    import torch

    return torch.compiler.is_compiling()


class Uncopied(enum.Enum):
    """Why the recorder recorded a call without copying its callee and arguments: it is no case."""

    WATCHED = "watched"  # the test's file kept its configuration already: covered, counted as it was made
    NO_GRAPH_INPUT = "no graph input"  # it passes nothing the probe can take as a graph input
    TOO_LARGE = "too large"  # its tensors are over the copy budget (suite_copies.py)
    UNSUPPORTED = "unsupported"  # its arguments cannot be replayed as a case (the reason says why)


@dataclass(frozen=True)
class NotCopied:
    """A call recorded without copies (:attr:`Call.not_copied`): which kind, and the words its test's report
    gives ("too large to keep: its tensors hold 40 MiB, ...")."""

    kind: Uncopied
    reason: str


@dataclass
class Call:
    """One call from the example's code to a public callable of the package, as it was made."""

    ref: str  # public dotted name of the callable (a function, or the module's class)
    callee: Any  # the original function, or a copy of the module instance taken just before the call
    args: tuple
    kwargs: dict[str, Any]
    statement: int  # index of the example statement that made it
    span: tuple[int, int, int, int] | None  # (line, end line, column, end column) of the call in that statement
    raised: str = ""  # the exception the call raised ("" when it returned): such a call is not a case
    filename: str = ""  # the file of the code that made the call (a test file; "<doctest ...>" for an example)
    function: str = ""  # the qualified name of the function that made it (a test's own body, or a helper)
    occurrence: int = 0  # 0 for the run's first own call of this callable, 1 for the second, ... (wanted or not)
    stand_ins: tuple[str, ...] = ()  # the test's unittest.mock stand-ins that ran inside it: no case either
    # how the user's code built the objects this call was made on or with, by the id of the call's own copy of
    # each (its bound instance, an argument): provenance.py
    built: dict[int, Built] = field(default_factory=dict)
    # why its callee and arguments were not copied (None when they were): a call whose tensors are too large to
    # keep, or one the filter only watches (whether it raises); it holds neither, and is no case
    not_copied: NotCopied | None = None


def _is_tensor(value: Any) -> bool:
    import torch

    return isinstance(value, torch.Tensor)


def _snapshot(value: Any) -> Any:
    """A copy of an argument as it was when passed (the example may change it in place afterwards)."""
    if _is_tensor(value):
        return value.detach().clone()
    try:
        return copy.deepcopy(value)
    except Exception:  # an argument that refuses copying is kept as is
        return value


def copy_bytes(callee: Any, args: tuple, kwargs: dict[str, Any]) -> int:
    """The bytes of tensors that recording this call copies, before any is: its tensor arguments (inside
    containers too; a view copies only its own elements) and the weights of a module it calls or is bound to
    (but those of a module large enough that its copy shares them, module_copy.SHARE_ABOVE)."""
    import torch

    total = sum(leaf.numel() * leaf.element_size() for _, leaf in containers.leaves([*args, *kwargs.values()], "")
                if isinstance(leaf, torch.Tensor))
    module = callee if isinstance(callee, torch.nn.Module) else getattr(callee, "__self__", None)
    if isinstance(module, torch.nn.Module):
        total += sum(b.numel() * b.element_size() for b in module.buffers())
        parameters = parameter_bytes(module)
        total += parameters if parameters <= SHARE_ABOVE else 0
    return total


def in_example(frame: Any) -> bool:
    """Whether ``frame`` runs docstring example code (compiled by :func:`.docstring_run.run_example`)."""
    return frame.f_code.co_filename.startswith(EXAMPLE_FILE_PREFIX)


# whether a call of the user's own code is worth recording, (ref, callee as called, args, kwargs) -> True (record
# it, copying its callee and arguments), False (not at all), or why to record it without copying anything
# (a NotCopied, kept as Call.not_copied: its outcome is still known)
Wanted = Callable[[str, Any, tuple, dict], "bool | NotCopied"]
# the test's unittest.mock stand-ins active now, (id, what each replaces) -> how often it has run, None when it
# cannot tell (suite_run.stand_in_uses)
StandIns = Callable[[], dict]


class Recorder:
    """Collects calls made from the user's own code (``own_code(frame)``: by default a docstring example's);
    inactive while ``calls`` is None. ``wanted`` (None: every call) skips own calls before anything is copied:
    a test suite calls an operator the same way over and over (or records them without copying anything:
    :data:`Wanted`)."""

    def __init__(self) -> None:
        self.calls: list[Call] | None = None
        self.statement = 0
        self.own_code = in_example
        self.wanted: Wanted | None = None
        self.seen: Counter[str] = Counter()  # own calls per ref so far, wanted or not (Call.occurrence)
        self.stand_ins: StandIns | None = None
        self.built = BuiltObjects()  # the objects the user's code built from the library's callables (this run)

    def begin(self, calls: list[Call], own_code: Callable[[Any], bool], wanted: Wanted | None = None,
              stand_ins: StandIns | None = None) -> None:
        """Record into ``calls`` from now on (one test's run); ``stand_ins`` tells :func:`_called` which of a
        recorded call's stand-ins ran during it."""
        self.calls, self.own_code, self.wanted, self.statement = calls, own_code, wanted, 0
        self.stand_ins = stand_ins
        self.seen = Counter()
        self.built.clear()

    def end(self) -> None:
        self.calls, self.own_code, self.wanted, self.stand_ins = None, in_example, None, None
        self.built.clear()

    def note_built(self, result: Any, function: Any, args: tuple, kwargs: dict[str, Any], ref: str, frame: Any,
                   method: str = "") -> None:
        """Note how the user's own code built ``result`` (provenance.py); calls the library makes are not noted."""
        if self.calls is not None and self.own_code(frame):
            self.built.note(result, function, args, kwargs, ref, method)

    def record(self, ref: str, callee: Any, args: tuple, kwargs: dict[str, Any], frame: Any,
               copy_callee: Callable[[Any], Any] | None = None) -> Call | None:
        """The record of this call when it is the user's own (and wanted), else None; ``copy_callee`` copies the
        callee as it is now (a module, an instance's method), only for a call that is recorded."""
        if self.calls is None or not self.own_code(frame):
            return None
        occurrence = self.seen[ref]
        self.seen[ref] += 1
        verdict = self.wanted(ref, callee, args, kwargs) if self.wanted is not None else True
        if not verdict:
            return None
        new_call_made()  # a test's time limit counts from its last new call (sandbox.time_limit)
        code = frame.f_code
        if isinstance(verdict, NotCopied):  # watched, not copied: nothing of the test's is held
            call = Call(ref, None, (), {}, self.statement, None, filename=code.co_filename,
                        function=getattr(code, "co_qualname", code.co_name), occurrence=occurrence,
                        not_copied=verdict)
            self.calls.append(call)
            return call
        owner = getattr(callee, "__self__", None)
        owner_built = self.built.of(owner) if owner is not None else None
        if copy_callee is not None:
            callee = copy_callee(callee)
        span = None
        try:
            positions = list(frame.f_code.co_positions())[frame.f_lasti // 2]
            if None not in positions:
                span = tuple(positions)
        except (AttributeError, IndexError):  # Python < 3.11 has no positions: the code field stays empty
            span = None
        built: dict[int, Built] = {}

        def snapshot(value: Any) -> Any:
            copied = _snapshot(value)
            of = self.built.of(value)
            if of is not None:
                built[id(copied)] = of
            return copied

        call = Call(ref, callee, tuple(snapshot(a) for a in args), {k: snapshot(v) for k, v in kwargs.items()},
                    self.statement, span, filename=code.co_filename,
                    function=getattr(code, "co_qualname", code.co_name), occurrence=occurrence)
        if owner_built is not None:
            built[id(getattr(callee, "__self__", None))] = owner_built
        call.built = built
        self.calls.append(call)
        return call


def _called(call: Call | None, function: Any, args: tuple, kwargs: dict[str, Any]) -> Any:
    """``function(*args, **kwargs)``, marking ``call`` (the record of this very call) as raised when it
    raises: an example that shows a Traceback on purpose still runs on, but the call that raised is no
    case. Calls the library makes itself are not recorded (``call`` is None) and pass straight through."""
    if call is None:
        return function(*args, **kwargs)
    watch = RECORDER.stand_ins
    before = watch() if watch is not None else {}
    try:
        return function(*args, **kwargs)
    except BaseException as exc:
        call.raised = first_line(exc)
        raise
    finally:
        if before:  # a stand-in that ran (or left) during the call decided what it returned; None: cannot tell
            after = watch()
            call.stand_ins = tuple(key[1] for key, uses in before.items() if uses is None or after.get(key) != uses)


RECORDER = Recorder()


def _function_proxy(function: Any, ref: str) -> Any:
    @functools.wraps(function)
    def proxy(*args: Any, **kwargs: Any) -> Any:
        if _compiling():
            return function(*args, **kwargs)
        if RECORDER.calls is None:
            return function(*args, **kwargs)
        frame = sys._getframe(1)
        call = RECORDER.record(ref, function, args, kwargs, frame)
        result = _called(call, function, args, kwargs)
        RECORDER.note_built(result, function, args, kwargs, ref, frame)
        return result

    proxy.__kexport_original__ = function
    return proxy


OPERATOR_METHODS = ("__mul__", "__matmul__", "__add__", "__sub__")  # `a * b` composes poses, rotations


def _method_proxy(raw: Any, kind: str, ref: str) -> Any:
    """Stand-in for a method of a public class; records ``obj.method(...)`` calls as the bound method.

    ``kind`` is "staticmethod", "classmethod" or "instance" (how the class holds it). An instance method is
    recorded bound to a copy of the instance as it was when called.
    """
    @functools.wraps(raw)
    def proxy(*args: Any, **kwargs: Any) -> Any:
        if _compiling():
            return raw(*args, **kwargs)
        if RECORDER.calls is None or not (kind == "staticmethod" or args):
            return raw(*args, **kwargs)
        frame = sys._getframe(1)
        if kind == "staticmethod":
            callee, rest = raw, args
        else:
            callee, rest = types.MethodType(raw, args[0]), args[1:]
        call = RECORDER.record(ref, callee, rest, kwargs, frame, _copy_bound if kind == "instance" else None)
        result = _called(call, raw, args, kwargs)
        if kind == "instance":  # rebuilt as raw(receiver, ...): the receiver is an argument like the others
            RECORDER.note_built(result, raw, args, kwargs, ref, frame, method=raw.__name__)
        else:
            RECORDER.note_built(result, callee, rest, kwargs, ref, frame)
        return result

    proxy.__kexport_original__ = raw
    return staticmethod(proxy) if kind == "staticmethod" else classmethod(proxy) if kind == "classmethod" else proxy


def _init_proxy(raw: Any, ref: str) -> Any:
    """Stand-in for a public class's ``__init__``: records nothing as a case, only how the user's code built the
    object (provenance.py), so that a method later called on it can be probed on the tensors it was built from."""
    @functools.wraps(raw)
    def proxy(self: Any, *args: Any, **kwargs: Any) -> None:
        if _compiling() or RECORDER.calls is None:
            return raw(self, *args, **kwargs)
        cls, frame = type(self), sys._getframe(1)
        # the class's own construction (not a subclass's super().__init__(...)) by the user's code: how its
        # weights can be built again, for the discovery cache (rebuilt_weights.py)
        own = cls.__init__ is proxy and RECORDER.own_code(frame)
        before = rebuilt_weights.before_build(cls, args, kwargs) if own else None
        raw(self, *args, **kwargs)
        if own:
            rebuilt_weights.note(self, before)
        if cls.__init__ is proxy:
            built_ref = ref if vars(cls).get("__init__") is proxy else f"{cls.__module__}.{cls.__qualname__}"
            RECORDER.note_built(self, cls, args, kwargs, built_ref, frame)
        return None

    proxy.__kexport_original__ = raw
    return proxy


def _method_patches(method_classes: dict[type, str]) -> list[tuple[type, str, Any, Any]]:
    """(class, attribute, original, proxy) for the public methods of public classes, and for their ``__init__``
    (noted, not recorded); a module's ``forward`` is left to its ``__call__`` (the recorded call is the module's)."""
    import torch

    patches = []
    for cls, ref in method_classes.items():
        init = vars(cls).get("__init__")
        if inspect.isfunction(init):
            patches.append((cls, "__init__", init, _init_proxy(init, ref)))
        for attr, value in sorted(vars(cls).items()):
            if attr.startswith("_") and attr not in OPERATOR_METHODS:
                continue
            if attr == "forward" and issubclass(cls, torch.nn.Module):
                continue
            if isinstance(value, staticmethod):
                kind, raw = "staticmethod", value.__func__
            elif isinstance(value, classmethod):
                kind, raw = "classmethod", value.__func__
            elif inspect.isfunction(value):
                kind, raw = "instance", value
            else:
                continue  # properties, attributes, nested classes
            patches.append((cls, attr, value, _method_proxy(raw, kind, f"{ref}.{attr}")))
    return patches


def _copy_bound(method: Any) -> Any:
    """An instance's method bound to a copy of the instance as it is now (the example may change it later); a
    module's copy shares its parameters when they are large (``SigLip2Model.get_image_features``)."""
    return types.MethodType(method.__func__, copy_object(method.__self__))


@contextlib.contextmanager
def recording(functions: dict[int, tuple[Any, str]], module_classes: dict[type, str],
              library_top: str, method_classes: dict[type, str] | None = None) -> Iterator[None]:
    """Install the proxies: ``functions`` maps id(function) -> (function, ref); ``module_classes`` class -> ref;
    ``method_classes`` (class -> ref) are public classes whose own public methods are recorded."""
    import torch

    patched: list[tuple[Any, str, Any]] = []
    for name, module in sorted(sys.modules.items()):
        if module is None or not (name == library_top or name.startswith(library_top + ".")):
            continue
        for attr, value in list(vars(module).items()):
            entry = functions.get(id(value))
            if entry is not None and entry[0] is value:
                patched.append((module, attr, value))
    proxies = {id(fn): _function_proxy(fn, ref) for fn, ref in functions.values()}

    def module_call(original: Any) -> Any:
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            if _compiling():
                return original(self, *args, **kwargs)
            made = None
            if RECORDER.calls is not None:
                ref = module_classes.get(type(self))
                if ref:
                    # the module as called: a large one shares its parameters (an example that changes them
                    # afterwards, with load_state_dict say, changes the recorded case's too)
                    made = RECORDER.record(ref, self, args, kwargs, sys._getframe(1), copy_object)
            return _called(made, original, (self, *args), kwargs)

        return call

    owners = [torch.nn.Module] + [cls for cls in module_classes if "__call__" in vars(cls)]
    swaps = [(module, attr, value, proxies[id(value)]) for module, attr, value in patched]
    swaps += [(cls, "__call__", vars(cls)["__call__"], module_call(vars(cls)["__call__"])) for cls in owners]
    swaps += _method_patches(method_classes or {})
    installed: list[tuple[Any, str, Any, Any]] = []
    try:
        for swap in swaps:
            try:
                setattr(swap[0], swap[1], swap[3])
            except (AttributeError, TypeError):  # a class that refuses new attributes keeps its method
                continue
            installed.append(swap)
        _INSTALLED[:] = installed
        with _originals_while_scripting():
            yield
    finally:
        _INSTALLED.clear()
        for owner, attr, original, _ in reversed(installed):
            setattr(owner, attr, original)


# (owner, attribute, original, proxy) of the proxies installed now; emptied while they step aside
_INSTALLED: list[tuple[Any, str, Any, Any]] = []


@contextlib.contextmanager
def originals_restored() -> Iterator[None]:
    """The library as it is without the recorder while the block runs (TorchScript compiling; a test run again
    to tell whether it fails only under recording); the proxies are back afterwards. Nested, a no-op."""
    aside, _INSTALLED[:] = list(_INSTALLED), []
    for owner, attr, original, _ in reversed(aside):
        setattr(owner, attr, original)
    try:
        yield
    finally:
        for owner, attr, _, proxy in aside:
            setattr(owner, attr, proxy)
        _INSTALLED[:] = aside


def unproxied(value: Any) -> Any:
    """The library's own callable where ``value`` is one of the recorder's proxies; ``value`` otherwise."""
    return getattr(value, "__kexport_original__", value) if callable(value) else value


@contextlib.contextmanager
def _originals_while_scripting() -> Iterator[None]:
    """``torch.jit.script`` compiles the originals (the module's docstring says why). Its implementation
    ``torch.jit._script._script_impl`` is what every way of scripting reaches (``torch.jit.script``, a name
    imported from it before recording began, the functions TorchScript compiles along the way); where a torch
    has none, ``torch.jit.script`` itself is wrapped."""
    import torch
    import torch.jit._script as jit_script

    owners = [(jit_script, "_script_impl")] if hasattr(jit_script, "_script_impl") else \
        [(jit_script, "script"), (torch.jit, "script")]
    saved = [(owner, name, getattr(owner, name)) for owner, name in owners]

    def aside(original: Any) -> Any:
        @functools.wraps(original)
        def script(*args: Any, **kwargs: Any) -> Any:
            # a test that read the public function while recording holds its proxy (kornia's
            # ``op = kornia.color.rgb_to_hls; torch.jit.script(op)``): TorchScript is handed the original
            if args:
                args = (unproxied(args[0]), *args[1:])
            elif "obj" in kwargs:
                kwargs["obj"] = unproxied(kwargs["obj"])
            with originals_restored():
                return original(*args, **kwargs)

        return script

    for owner, name, original in saved:
        setattr(owner, name, aside(original))
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def seed_everything(seed: int) -> None:
    import torch

    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy

        numpy.random.seed(seed)
    except ImportError:
        pass


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__
