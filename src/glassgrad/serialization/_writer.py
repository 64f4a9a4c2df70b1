"""glassgrad.save: the archive torch.save writes, record for record, written without importing torch."""

from __future__ import annotations

import io
import os
import pickle
import re
import sys
import zipfile
import zlib
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, ClassVar

import numpy as np

from .. import _dtype
from ..nn.parameter import Parameter
from ..tensor import Size, Tensor, device


class _Global:
    """A PyTorch global (rebuild function, storage class), pickled by its name: torch need not be installed."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __call__(self, *args: Any) -> Any:
        # pickle only checks that a reduce function is callable; this one is a name for torch.load to resolve
        raise TypeError(f"{self.module}.{self.name} belongs to PyTorch; glassgrad only writes its name into checkpoints")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_UNTYPED = _Global("torch._utils", "_rebuild_tensor_v3")
_UNTYPED_STORAGE = _Global("torch.storage", "UntypedStorage")  # as torch.save names it
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_SIZE = _Global("torch", "Size")
_DEVICE = _Global("torch", "device")
_STORAGE_TYPES: dict[_dtype.dtype, _Global] = {}  # torch.FloatStorage, ...: one object per dtype, so pickle memoizes it


def _storage_type(d: _dtype.dtype) -> _Global:
    if _saved_untyped(d):
        return _UNTYPED_STORAGE
    return _STORAGE_TYPES.setdefault(d, _Global("torch", d.scalar_name + "Storage"))


def _saved_untyped(d: _dtype.dtype) -> bool:
    """PyTorch saves tensors of float8 and uint16/32/64 over an untyped (byte) storage with _rebuild_tensor_v3:
    those dtypes have no torch.<Type>Storage class."""
    return d in _dtype.BAREBONES or (d.is_floating_point and d.itemsize == 1)


class _Storage:
    """One data/<key> record: the bytes of a contiguous NumPy buffer that one or more saved tensors view."""

    __slots__ = ("dtype", "key", "memory")

    def __init__(self, key: str, memory: np.ndarray, dtype: _dtype.dtype) -> None:
        self.key = key
        self.memory = memory
        self.dtype = dtype


def _memory_owner(array: np.ndarray) -> np.ndarray:
    """The outermost array in `array`'s chain of bases: the buffer that all its NumPy views share."""
    while True:
        base = array.base
        if not isinstance(base, np.ndarray):
            base = getattr(base, "base", None)  # as_strided puts an object between a view and its base
            if not isinstance(base, np.ndarray):
                return array
        array = base


def _as_view_of(array: np.ndarray, owner: np.ndarray, itemsize: int) -> tuple[int, tuple[int, ...]] | None:
    """(storage offset, strides) in elements, if `array` is a view that PyTorch can express over owner's buffer."""
    if not (owner.flags.c_contiguous or owner.flags.f_contiguous) or owner.nbytes % itemsize:
        return None
    delta = array.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    if delta % itemsize or any(s < 0 or s % itemsize for s in array.strides):  # PyTorch has no negative strides
        return None
    offset, numel = delta // itemsize, owner.nbytes // itemsize
    if not array.size:  # NumPy gives empty arrays zero strides; PyTorch gives them contiguous ones
        return (offset, _contiguous_strides(array.shape)) if 0 <= offset <= numel else None
    strides = tuple(s // itemsize for s in array.strides)
    last = offset + sum((n - 1) * s for n, s in zip(array.shape, strides, strict=True))
    return (offset, strides) if offset >= 0 and last < numel else None


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


class _Pickler(pickle._Pickler):
    """Pickles as torch.save does: tensors as calls of torch's rebuild functions over storages kept as persistent ids.

    It is the pure-Python pickler because only there can a global be written by name (`_save_global`): the C pickler
    imports a global's module to check it, and writing torch's format must not need torch.
    """

    dispatch: ClassVar[dict[type, Any]] = dict(pickle._Pickler.dispatch)

    def __init__(self, file: IO[bytes], protocol: int) -> None:
        super().__init__(file, protocol)
        self.storages: dict[int, _Storage] = {}  # by id of the owning buffer, which each _Storage keeps alive

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is _Storage:
            count = obj.memory.nbytes if _saved_untyped(obj.dtype) else obj.memory.nbytes // obj.dtype.itemsize
            return ("storage", _storage_type(obj.dtype), obj.key, "cpu", count)
        return None

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Parameter):
            return _REBUILD_PARAMETER, (Tensor._wrap(obj._data), obj.requires_grad, OrderedDict())
        if isinstance(obj, Tensor):
            storage, offset, strides = self._storage_of(obj)
            args = (storage, offset, tuple(obj.shape), strides, obj.requires_grad, OrderedDict())
            return (_REBUILD_UNTYPED, (*args, obj.dtype)) if _saved_untyped(obj.dtype) else (_REBUILD_TENSOR, args)
        if isinstance(obj, Size):
            return _SIZE, (tuple(obj),)
        if isinstance(obj, device):
            return _DEVICE, (str(obj),)
        return NotImplemented

    def _storage_of(self, t: Tensor) -> tuple[_Storage, int, tuple[int, ...]]:
        array, dtype = t._data, t.dtype
        owner = _memory_owner(array)
        placed = _as_view_of(array, owner, dtype.itemsize)
        if placed is None:  # a layout PyTorch cannot express (negative strides): saved as a copy of its own
            owner = np.ascontiguousarray(array)
            placed = (0, _contiguous_strides(array.shape))
        storage = self.storages.get(id(owner))
        if storage is None:
            storage = self.storages[id(owner)] = _Storage(str(len(self.storages)), owner, dtype)
        elif storage.dtype is not dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different types")
        return storage, *placed

    def _save_global(self, obj: _Global | _dtype.dtype) -> None:
        module, name = (obj.module, obj.name) if isinstance(obj, _Global) else ("torch", obj.name)
        if self.proto >= 4:
            self.save(module)
            self.save(name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode("ascii"))
        self.memoize(obj)

    dispatch[_Global] = _save_global
    dispatch[_dtype.dtype] = _save_global  # torch.float32 and friends


# -- the zip layout -----------------------------------------------------------------------------------------------
# PyTorch's writer (miniz) starts each record's data at a multiple of 64 by padding the local header's extra field
# ("FB" + length + "Z"s), and follows data with a descriptor. With .format_version "1", torch.load may compute
# storage offsets from that rule instead of reading headers (meta-device and mmap loads), so every record here
# starts its data exactly where miniz would have. zipfile writes no descriptors to seekable files; the padding
# absorbs the difference.
_ALIGNMENT = 64
_U32 = 0xFFFFFFFF
_FORCE_ZIP64 = 1 << 31  # zipfile refuses larger entries without force_zip64, which adds 20 bytes to the header


def _data_offset(cursor: int, name_length: int, size: int) -> int:
    """Where miniz puts the data of a record whose local header starts at `cursor`."""
    start = cursor + 30 + name_length + 4  # fixed header, name, the padding field's own id and length
    if size >= _U32 or cursor >= _U32:
        start += 4 + (16 if size >= _U32 else 0) + (8 if cursor >= _U32 else 0)  # miniz's zip64 field
    return -(-start // _ALIGNMENT) * _ALIGNMENT


def _descriptor_size(cursor: int, size: int) -> int:
    return 0 if size == 0 else 24 if size >= _U32 or cursor >= _U32 else 16


def _hash_combine(seed: int, value: int) -> int:
    """c10::hash_combine, which PyTorch folds record names and CRCs into the serialization id with."""
    return (seed ^ (value + 0x9E3779B9 + (seed << 6) + (seed >> 2))) & 0xFFFFFFFFFFFFFFFF


class _ArchiveWriter:
    def __init__(self, stream: IO[bytes], folder: str) -> None:
        self.zip = zipfile.ZipFile(stream, "w", zipfile.ZIP_STORED)
        self.stream = stream
        self.start = stream.tell()
        self.folder = folder
        self.cursor = 0  # where miniz would start the next local header, relative to the archive's start
        self.names_hash = 0
        self.crcs_hash = 0

    def write(self, name: str, data: Any) -> None:
        full = f"{self.folder}/{name}"
        size = memoryview(data).nbytes
        name_length = len(full.encode())
        zip64 = size >= _FORCE_ZIP64
        data_at = _data_offset(self.cursor, name_length, size)
        header_end = self.stream.tell() - self.start + 30 + name_length + 4 + (20 if zip64 else 0)
        while data_at < header_end:  # zipfile's zip64 field outgrew miniz's; .format_version is then left out
            data_at += _ALIGNMENT
        padding = data_at - header_end
        info = zipfile.ZipInfo(full)  # dated 1980-01-01, as miniz dates PyTorch's records
        info.extra = b"FB" + padding.to_bytes(2, "little") + b"Z" * padding
        with self.zip.open(info, "w", force_zip64=zip64) as dest:
            dest.write(data)
        self.names_hash = _hash_combine(self.names_hash, zlib.crc32(name.encode()))
        if size:
            self.crcs_hash = _hash_combine(self.crcs_hash, info.CRC)
        self.cursor = data_at + size + _descriptor_size(self.cursor, size)

    def close(self) -> None:
        # PyTorch's id is 20 digits from the record names' hashes and 20 from the CRCs; only the names' hash
        # function differs here (std::hash is not portable), so the id stays deterministic and content-derived.
        self.write(".data/serialization_id", f"{self.names_hash:020d}{self.crcs_hash:020d}".encode())
        self.zip.close()


def _archive_folder(path: str) -> str:
    """The folder torch.save puts records in for a path: the file's name without its last extension."""
    if not path.isascii():
        return "archive"  # PyTorch writes non-ASCII paths through a Python file object, named "archive"
    stem = re.split(r"[\\/]", path)[-1]
    return (stem.rpartition(".")[0] if "." in stem else stem) or "archive"


@contextmanager
def _target(f: Any) -> Iterator[tuple[IO[bytes], str]]:
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        parent = os.path.dirname(path)
        if parent and not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
        with open(path, "wb") as stream:
            yield stream, _archive_folder(path)
        return
    if not callable(getattr(f, "write", None)):
        raise AttributeError(f"Buffer of {str(type(f)).strip('<>')} has no callable attribute 'write'")
    seekable = getattr(f, "seekable", None)
    if callable(seekable) and seekable():
        yield f, "archive"
        return
    buffer = io.BytesIO()  # zipfile lays out unseekable streams differently (descriptors), so build it here
    yield buffer, "archive"
    f.write(buffer.getbuffer())


def save(obj: Any, f: Any, pickle_protocol: int, byteorder_record: bool) -> None:
    structure = io.BytesIO()
    pickler = _Pickler(structure, pickle_protocol)
    pickler.dump(obj)
    storages = [(f"data/{s.key}", s.memory.reshape(-1, order="A").view(np.uint8)) for s in pickler.storages.values()]
    with _target(f) as (stream, folder):
        archive = _ArchiveWriter(stream, folder)
        archive.write("data.pkl", structure.getbuffer())
        if all(array.nbytes < _FORCE_ZIP64 for _, array in storages) and structure.tell() < _FORCE_ZIP64:
            archive.write(".format_version", b"1")  # a promise that storages lie where miniz would put them
        archive.write(".storage_alignment", str(_ALIGNMENT).encode())
        if byteorder_record:
            archive.write("byteorder", sys.byteorder.encode())
        for name, array in storages:
            archive.write(name, array)
        archive.write("version", b"3\n")
        archive.close()
