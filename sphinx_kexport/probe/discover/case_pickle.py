"""Pickling a discovered case for the discovery cache: its tensors' bytes go beside the pickle, and come back
read straight into their storage.

Plain pickle stores a tensor's storage as a bytes object (``torch.save`` of that storage), and the unpickler
keeps every such bytes object in its memo until the load ends: a worker loading kornia's SigLip2Model (1.5 GB
of weights) held the weights twice, 3.0 GB, before measuring began. Here a storage of at least
:data:`BLOB_MIN` bytes is written raw to a second file (the blobs) and the pickle holds only where it lies;
loading reads it into a fresh storage of its own, with no bytes object in between. Storages shared by two
tensors (tied weights, views) are written once and come back shared.

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

BLOB_MIN = 1 << 20  # bytes of a storage from which it goes to the blobs (smaller ones stay in the pickle)
STORAGE = "kexport-storage"


class BlobIndex:
    """The storages written for the cases of one example, shared by their picklers: a model that two cases of an
    example share (``SigLip2Model`` and its ``get_image_features``) is written once, and comes back shared when
    the example's cases are loaded together (each case alone still reads what it needs)."""

    def __init__(self) -> None:
        self.written: dict[tuple[int, int], int] = {}
        self.storages: dict[int, Any] = {}


class CasePickler(pickle.Pickler):
    """Pickles to ``file``; appends large storages to ``blobs`` (positions are from the start of ``blobs``)."""

    def __init__(self, file: BinaryIO, blobs: BinaryIO, shared: BlobIndex | None = None):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.blobs = blobs
        index = shared if shared is not None else BlobIndex()
        self.written = index.written  # (data pointer, bytes) -> position in blobs
        self.storages = index.storages  # position in blobs -> the untyped storage written there

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
        key = (untyped.data_ptr(), size)
        if key not in self.written:
            position = self.blobs.seek(0, os.SEEK_END)
            self.blobs.write(memoryview(_bytes_view(torch, untyped).numpy()))
            self.written[key] = position
            self.storages[position] = untyped
        return (STORAGE, self.written[key], size, str(obj.dtype).removeprefix("torch."))


class CaseUnpickler(pickle.Unpickler):
    """Unpickles from ``file``, reading the storages from ``blobs`` at ``base`` + their position; with
    ``originals`` (a :class:`CasePickler`'s ``storages``), it uses those instead of reading."""

    def __init__(self, file: BinaryIO, blobs: BinaryIO | None, base: int = 0,
                 originals: dict[int, Any] | None = None, loaded: dict[int, Any] | None = None):
        super().__init__(file)
        self.blobs, self.base, self.originals = blobs, base, originals
        # position -> storage read; ``loaded`` shared by the unpicklers of one example's cases: read once
        self.loaded: dict[int, Any] = loaded if loaded is not None else {}

    def persistent_load(self, pid: Any) -> Any:
        import torch

        if not (isinstance(pid, tuple) and len(pid) == 4 and pid[0] == STORAGE):
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        _, position, size, dtype = pid
        untyped = self.loaded.get(position)
        if untyped is None:
            if self.originals is not None:
                untyped = self.originals[position]
            else:
                untyped = _read_storage(torch, self.blobs, self.base + position, size)
            self.loaded[position] = untyped
        return torch.storage.TypedStorage(wrap_storage=untyped, dtype=getattr(torch, dtype), _internal=True)


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


def _bytes_view(torch: Any, untyped: Any) -> Any:
    """A uint8 tensor over the whole of ``untyped`` (no copy)."""
    return torch.empty(0, dtype=torch.uint8).set_(untyped, 0, (untyped.nbytes(),), (1,))


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
