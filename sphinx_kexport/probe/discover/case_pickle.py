"""Pickling a discovered case for the discovery cache: its tensors' bytes go beside the pickle, each content once,
and come back read straight into their storage, or built again.

Plain pickle stores a tensor's storage as a bytes object (``torch.save`` of that storage), and the unpickler
keeps every such bytes object in its memo until the load ends: a worker loading kornia's SigLip2Model (1.5 GB
of weights) held the weights twice, 3.0 GB, before measuring began. Here a storage of at least
:data:`BLOB_MIN` bytes is written raw to a second file (the blobs) and the pickle holds only where it lies;
loading reads it into a fresh storage of its own, with no bytes object in between. The blobs are addressed by
their content (a sha256): a storage that two cases hold, in one example or in two, is written once; the cases
of one example that share a storage get it back shared, as they were made. The weights of a module the
example's own code built, unchanged since, are not written at all: the pickle says how to build the module
again (:mod:`.rebuilt_weights`), and loading builds it and checks each storage's digest.

The cache also checks that each case comes back from pickle equal; that check rebuilds the case on the very
storages it was pickled from (:class:`CaseUnpickler` with ``originals``), so the check costs no copy of
the weights either.
"""

from __future__ import annotations

import os
import pickle
import sys
import types
from typing import Any, BinaryIO

from ...snapshot.vocabulary import CPU
from . import rebuilt_weights
from .rebuilt_weights import BLOB_MIN, bytes_view, storage_digest

STORAGE = "kexport-storage"
BYTES, REBUILT = "bytes", "rebuilt"  # how a storage is stored: its bytes in the blobs, or a module's recipe there


class BlobIndex:
    """What one cache file's blobs hold, shared by the picklers of all its cases: each storage's content once (a
    model that two cases of an example share, ``SigLip2Model`` and its ``get_image_features``; an input two
    examples build alike), each module recipe once."""

    def __init__(self) -> None:
        self.written: dict[str, tuple] = {}  # digest -> (BYTES, position) or (REBUILT, position, length, index)
        self.recipes: dict[int, tuple[int, int]] = {}  # id(recipe) -> (position, length) of its pickle
        self.sizes: dict[str, int] = {}  # digest -> bytes of the storage
        # (digest, copy) -> the untyped storage pickled, for this example (the check's originals): two storages
        # of an example with the same bytes are copies 0 and 1, and come back two storages, as they were
        self.storages: dict[tuple[str, int], Any] = {}
        self.keys: dict[tuple[int, int], tuple[str, int]] = {}  # (data pointer, bytes) -> (digest, copy)

    def next_example(self) -> None:
        """Forget the storages of the example before (the content stays written)."""
        self.storages.clear()
        self.keys.clear()

    def forget_from(self, position: int) -> None:
        """Forget what was written at or after ``position`` (an example whose cases did not pickle, cut off)."""
        self.written = {d: w for d, w in self.written.items() if w[1] < position}
        self.recipes = {r: w for r, w in self.recipes.items() if w[0] < position}

    def summary(self) -> dict[str, int]:
        """How many storages the blobs hold as bytes and as recipes, with their bytes; how many recipes."""
        counts = {f"{how}{part}": 0 for how in (BYTES, REBUILT) for part in ("", "_bytes")}
        for digest, where in self.written.items():
            counts[where[0]] += 1
            counts[f"{where[0]}_bytes"] += self.sizes[digest]
        return dict(counts, recipes=len(self.recipes))


class CasePickler(pickle.Pickler):
    """Pickles to ``file``; appends large storages to ``blobs`` (positions are from the start of ``blobs``)."""

    def __init__(self, file: BinaryIO, blobs: BinaryIO, shared: BlobIndex | None = None):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.blobs = blobs
        self.index = shared if shared is not None else BlobIndex()
        self.storages = self.index.storages  # (digest, copy) -> the untyped storage written (or rebuilt) under it

    def reducer_override(self, obj: Any) -> Any:
        """The recorder's stand-in for a library function (discover/recording/recording.py) is pickled as the function.

        A module built while its example ran may keep the stand-in (piq's losses bind their metric function
        in ``__init__``), and pickle finds a function by its name, which names the original: without this,
        such a case did not pickle and its example ran again on every load."""
        original = getattr(obj, "__kexport_original__", None) if isinstance(obj, types.FunctionType) else None
        if original is not None:
            return (_itself, (original,))
        if _plain_tuple_subclass(obj):
            return (_tuple_subclass, (type(obj), tuple(tuple.__iter__(obj)), dict(vars(obj)) if hasattr(obj, "__dict__") else None))
        return NotImplemented

    def persistent_id(self, obj: Any) -> Any:
        torch = sys.modules.get("torch")
        if torch is None or type(obj) is not torch.storage.TypedStorage:
            return None
        untyped = obj._untyped_storage
        size = untyped.nbytes()
        if untyped.device.type != CPU or size < BLOB_MIN:
            return None
        pointer = (untyped.data_ptr(), size)
        key = self.index.keys.get(pointer)
        if key is None:
            digest = storage_digest(untyped)
            key = self.index.keys[pointer] = (digest, sum(1 for d, _ in self.index.keys.values() if d == digest))
            self.storages[key] = untyped
        digest = key[0]
        if digest not in self.index.written:
            self.index.written[digest] = self._recipe(digest) or (BYTES, self._append(untyped))
            self.index.sizes[digest] = size
        return (STORAGE, key, size, str(obj.dtype).removeprefix("torch."), self.index.written[digest])

    def _append(self, untyped: Any) -> int:
        position = self.blobs.seek(0, os.SEEK_END)
        self.blobs.write(memoryview(bytes_view(untyped).numpy()))
        return position

    def _recipe(self, digest: str) -> tuple | None:
        """(REBUILT, where the recipe lies, its length, the storage's index in it) when a noted module builds
        this storage and its recipe pickles; None otherwise (its bytes are written)."""
        found = rebuilt_weights.recipe_of(digest)
        if found is None:
            return None
        recipe, index = found
        if id(recipe) not in self.index.recipes:
            try:
                data = pickle.dumps(recipe, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:  # a class or argument pickle cannot name: the weights are written
                return None
            position = self.blobs.seek(0, os.SEEK_END)
            self.blobs.write(data)
            self.index.recipes[id(recipe)] = (position, len(data))
        return (REBUILT, *self.index.recipes[id(recipe)], index)


class CaseUnpickler(pickle.Unpickler):
    """Unpickles from ``file``, reading the storages from ``blobs`` at ``base`` + their position; with
    ``originals`` (a :class:`CasePickler`'s ``storages``), it uses those instead of reading."""

    def __init__(self, file: BinaryIO, blobs: BinaryIO | None, base: int = 0,
                 originals: dict[tuple[str, int], Any] | None = None, loaded: dict[Any, Any] | None = None):
        super().__init__(file)
        self.blobs, self.base, self.originals = blobs, base, originals
        # (digest, copy) -> storage read, (digest, REBUILT) -> storage built; ``loaded`` shared by the
        # unpicklers of one example's cases: read once
        self.loaded: dict[Any, Any] = loaded if loaded is not None else {}

    def persistent_load(self, pid: Any) -> Any:
        import torch

        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == STORAGE):
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        _, key, size, dtype, where = pid
        untyped = self.loaded.get(key)
        if untyped is None:
            if self.originals is not None:
                untyped = self.originals[key]
            elif where[0] == BYTES:
                untyped = _read_storage(torch, self.blobs, self.base + where[1], size)
            else:
                untyped = self._rebuilt(key, where)
            self.loaded[key] = untyped
        return torch.storage.TypedStorage(wrap_storage=untyped, dtype=getattr(torch, dtype), _internal=True)

    def _rebuilt(self, key: tuple[str, int], where: tuple) -> Any:
        """The storage ``key`` from its module built again (once per example: the module's other storages are
        kept for the example's other cases); a second copy of it is a clone."""
        built = self.loaded.get((key[0], REBUILT))
        if built is None:
            recipe = self._read_recipe(*where[1:3])
            self.loaded.update({(digest, REBUILT): storage for digest, storage in rebuilt_weights.rebuild(recipe).items()})
            built = self.loaded[(key[0], REBUILT)]
        return built if key[1] == 0 else built.clone()

    def _read_recipe(self, position: int, length: int) -> rebuilt_weights.Recipe:
        if self.blobs is None:
            raise pickle.UnpicklingError("this pickle keeps tensors in a blob file, and none was given")
        self.blobs.seek(self.base + position)
        data = self.blobs.read(length)
        if len(data) != length:
            raise EOFError("the discovery cache ends inside a module's recipe")
        recipe = pickle.loads(data)
        if not isinstance(recipe, rebuilt_weights.Recipe):
            raise pickle.UnpicklingError(f"no module recipe at {position} of the discovery cache's blobs")
        return recipe


def _itself(value: Any) -> Any:
    return value


def _plain_tuple_subclass(obj: Any) -> bool:
    """An instance of a tuple subclass that pickles the way tuple does: by calling its class with its items,
    which a class whose constructor takes other arguments refuses on load (e3nn's ``SphericalTensor(lmax,
    p_val, p_arg)``: its example's cases ran again at every load, and ``with_peaks_at``'s input, from
    ``torch.linalg.lstsq``, came out different in its last bits in each process). Such an object is stored
    as its items and attributes instead. A class with its own pickling (a namedtuple's ``__getnewargs__``)
    keeps it; one with ``__slots__`` of its own too."""
    cls = type(obj)
    if not isinstance(obj, tuple) or cls is tuple:
        return False
    own = ("__reduce__", "__reduce_ex__", "__getnewargs__", "__getnewargs_ex__", "__getstate__", "__slots__")
    return not any(name in vars(base) for base in cls.__mro__[:cls.__mro__.index(tuple)] for name in own)


def _tuple_subclass(cls: type, items: tuple, attributes: dict[str, Any] | None) -> Any:
    """The tuple subclass instance of :func:`_plain_tuple_subclass`, built without calling its constructor (its
    items are read above as tuple reads them: e3nn's ``Irrep`` refuses ``len()``)."""
    obj = tuple.__new__(cls, items)
    if attributes:
        vars(obj).update(attributes)
    return obj


def _read_storage(torch: Any, blobs: BinaryIO | None, position: int, size: int) -> Any:
    """A new storage of ``size`` bytes, filled from ``blobs`` at ``position`` directly (no bytes object)."""
    if blobs is None:
        raise pickle.UnpicklingError("this pickle keeps tensors in a blob file, and none was given")
    tensor = torch.empty(size, dtype=torch.uint8)
    view = memoryview(tensor.numpy())
    blobs.seek(position)
    done = 0
    while done < size:
        got = blobs.readinto(view[done:])
        if not got:
            raise EOFError(f"the discovery cache ends inside a tensor ({done} of {size} bytes read)")
        done += got
    return tensor.untyped_storage()
