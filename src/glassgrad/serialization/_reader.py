"""glassgrad.load: archives written by torch.save (and by glassgrad 0.1's save), read without running their code."""

from __future__ import annotations

import _compat_pickle
import io
import os
import pickle
import struct
import sys
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

import numpy as np

from .. import _dtype
from .._device import check_map_location
from ..nn.parameter import Parameter
from ..tensor import Size, Tensor, device
from . import _allowlist

_ARCHIVE_ERRORS = (
    zipfile.BadZipFile, zipfile.LargeZipFile, KeyError, ValueError, EOFError, NotImplementedError, zlib.error,
    struct.error, UnicodeDecodeError, OverflowError, OSError,
)


# -- what PyTorch's globals stand for ------------------------------------------------------------------------------
class _StorageType:
    """What a torch.<Type>Storage global stands for in a storage's persistent id: the dtype of its elements."""

    __slots__ = ("dtype",)

    def __init__(self, dtype: _dtype.dtype) -> None:
        self.dtype = dtype


class _LoadedStorage:
    """One data/<key> record as a flat, writable array; every tensor rebuilt over it is a NumPy view of it."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray) -> None:
        self.array = array


def _is_index(value: Any) -> bool:
    return isinstance(value, int) and value >= 0


def _is_shape(value: Any) -> bool:
    return isinstance(value, tuple) and all(_is_index(n) for n in value)


def _rebuild_tensor(storage: Any, storage_offset: Any, size: Any, stride: Any) -> Tensor:
    """torch._utils._rebuild_tensor: a view of the storage, checked to lie inside it."""
    if not (
        isinstance(storage, _LoadedStorage) and _is_index(storage_offset) and _is_shape(size) and _is_shape(stride)
        and len(size) == len(stride)
    ):
        raise pickle.UnpicklingError(
            f"malformed tensor record: storage {type(storage).__name__}, offset {storage_offset!r}, size {size!r}, "
            f"stride {stride!r}"
        )
    array = storage.array
    if 0 in size:
        return Tensor._wrap(np.empty(size, array.dtype))  # nothing to share, and NumPy refuses offsets at the end
    last = storage_offset + sum((n - 1) * s for n, s in zip(size, stride, strict=True))
    if last >= array.size:  # PyTorch's sentence: set_ would have to grow the storage the file gave
        raise RuntimeError(
            f"Trying to resize storage that is not resizable: the checkpoint's tensor of size {list(size)} and stride "
            f"{list(stride)} at offset {storage_offset} reaches element {last}, past its storage of {array.size}; "
            "the file is damaged or forged"
        )
    itemsize = array.itemsize
    view = np.ndarray(size, array.dtype, buffer=array, offset=storage_offset * itemsize, strides=[s * itemsize for s in stride])
    return Tensor._wrap(view)


def _rebuild_tensor_v2(
    storage: Any, storage_offset: Any, size: Any, stride: Any, requires_grad: Any, backward_hooks: Any, metadata: Any = None
) -> Tensor:
    """torch._utils._rebuild_tensor_v2. Backward hooks are not restored: PyTorch always saves none."""
    if metadata:
        raise pickle.UnpicklingError(
            f"the checkpoint holds a tensor with lazy conjugate/negative bits ({metadata!r}), which glassgrad does not "
            "have: call .resolve_conj() and .resolve_neg() on it in PyTorch before saving"
        )
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(
    storage: Any, storage_offset: Any, size: Any, stride: Any, requires_grad: Any, backward_hooks: Any, dtype: Any,
    metadata: Any = None,
) -> Tensor:
    """torch._utils._rebuild_tensor_v3: a float8 or uint16/32/64 tensor over an untyped (byte) storage, its offset
    and strides counted in its own elements."""
    if not (isinstance(storage, _LoadedStorage) and isinstance(dtype, _dtype.dtype)):
        raise pickle.UnpicklingError(f"malformed tensor record: storage {type(storage).__name__}, dtype {dtype!r}")
    typed = _LoadedStorage(storage.array.view(dtype.np))
    return _rebuild_tensor_v2(typed, storage_offset, size, stride, requires_grad, backward_hooks, metadata)


def _rebuild_parameter(data: Any, requires_grad: Any, backward_hooks: Any) -> Parameter:
    if not isinstance(data, Tensor):
        raise pickle.UnpicklingError(f"malformed parameter record: its data is a {type(data).__name__}, not a tensor")
    return Parameter(data, bool(requires_grad))


def _set_state(obj: Tensor, state: Any) -> Tensor:
    """Restore the Python attributes PyTorch pickled with a tensor: only new ones, so a file cannot replace a tensor's
    data or methods."""
    parts = state if isinstance(state, tuple) and len(state) == 2 else (state, None)
    for attributes in parts:
        if not attributes:
            continue
        if not isinstance(attributes, dict):
            raise pickle.UnpicklingError(f"malformed tensor state {state!r}")
        for key, value in attributes.items():
            if not isinstance(key, str) or hasattr(type(obj), key):
                raise pickle.UnpicklingError(f"the checkpoint sets attribute {key!r} of a {type(obj).__name__}, which glassgrad refuses")
            try:
                setattr(obj, key, value)
            except AttributeError:
                raise pickle.UnpicklingError(
                    f"the checkpoint gives a {type(obj).__name__} the Python attribute {key!r}, and glassgrad's plain "
                    "tensors cannot carry attributes: delete it in PyTorch before saving, or save a Parameter"
                ) from None
    return obj


def _rebuild_parameter_with_state(data: Any, requires_grad: Any, backward_hooks: Any, state: Any) -> Parameter:
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    _set_state(param, state)
    return param


def _rebuild_from_type_v2(func: Any, new_type: Any, args: Any, state: Any) -> Tensor:
    """torch._tensor._rebuild_from_type_v2: a tensor that carried Python attributes, or a Parameter."""
    if func not in _REBUILDERS or new_type not in (Tensor, Parameter) or not isinstance(args, tuple):
        raise pickle.UnpicklingError(f"malformed tensor record: {new_type!r} rebuilt by {func!r}")
    t = func(*args)
    if new_type is Parameter and not isinstance(t, Parameter):
        t = Parameter(t, t.requires_grad)
    return _set_state(t, state)


_REBUILDERS = (_rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3, _rebuild_parameter, _rebuild_parameter_with_state)


def _torch_globals() -> dict[str, Any]:
    table: dict[str, Any] = {
        "torch._utils._rebuild_tensor": _rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        "torch.Tensor": Tensor,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.Size": Size,
        "torch.device": device,
        "torch.UntypedStorage": _StorageType(_dtype.uint8),
        "torch.storage.UntypedStorage": _StorageType(_dtype.uint8),  # as torch.save names it
    }
    for d in _dtype.ALL_DTYPES:
        table[f"torch.{d.name}"] = d
        table[f"torch.{d.scalar_name}Storage"] = _StorageType(d)
    for d in _dtype.BAREBONES:  # saved over untyped storages: named only as _rebuild_tensor_v3's dtype
        table[f"torch.{d.name}"] = d
    return table


_TORCH = _torch_globals()


def _low_precision_global(full: str) -> Any:
    """torch.bfloat16 or torch.BFloat16Storage (or a float8's), made on first sight: only a file that holds them
    loads ml_dtypes. None for every other name."""
    for name, scalar_name in _dtype.LOW_PRECISION.items():
        if full in (f"torch.{name}", f"torch.{scalar_name}Storage"):
            d = _dtype.low_precision(name)
            _TORCH[f"torch.{name}"], _TORCH[f"torch.{scalar_name}Storage"] = d, _StorageType(d)
            return _TORCH[full]
    return None


def _unsupported_torch(full: str) -> str:
    return (
        f"glassgrad cannot load GLOBAL {full}: the checkpoint needs a PyTorch type or function that glassgrad does not "
        "implement. glassgrad rebuilds tensors, Parameters, storages of its dtypes "
        f"({', '.join([*(d.name for d in _dtype.ALL_DTYPES), *_dtype.LOW_PRECISION])}), torch.Size and torch.device; it has no "
        "sparse or quantized tensors and does not rebuild pickled PyTorch modules or optimizers. Load the file in "
        "PyTorch and save what glassgrad reads, e.g. torch.save({k: v.float() for k, v in model.state_dict().items()}, "
        "path)."
    )


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: IO[bytes], weights_only: bool, **kwargs: Any) -> None:
        super().__init__(file, **kwargs)
        self.weights_only = weights_only

    def find_class(self, module: str, name: str) -> Any:
        # Protocol 2 writes Python 2's names (__builtin__.set); overriding find_class skips pickle's own renaming.
        module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        full = f"{module}.{name}"
        found = _TORCH.get(full) or _low_precision_global(full)
        if found is not None:
            return found
        if module == "torch" or module.startswith("torch."):  # never PyTorch's own object, even if torch is installed
            raise pickle.UnpicklingError(_unsupported_torch(full))
        if self.weights_only:
            return _allowlist.allowed(module, name)
        return super().find_class(module, name)


# -- the archive ---------------------------------------------------------------------------------------------------
def _restore(storage: _LoadedStorage, location: str, map_location: Any) -> _LoadedStorage:
    """Apply map_location as torch.load does; glassgrad's only device is the CPU."""
    if isinstance(map_location, dict):
        location = str(map_location.get(location, location))
    elif isinstance(map_location, (str, device)):
        check_map_location(map_location)  # a device glassgrad lacks fails as it does in PyTorch's CPU build
        location = "cpu"
    elif map_location is not None:
        moved = map_location(storage, location)
        if moved is not None:
            if not isinstance(moved, _LoadedStorage):
                raise TypeError(
                    f"map_location returned a {type(moved).__name__}; glassgrad keeps storages on the CPU, so it must "
                    "return the storage it was given, or None"
                )
            return moved
    kind = location.partition(":")[0]
    if kind == "cuda":
        check_map_location(location)  # raises PyTorch's CPU-build error
    if kind != "cpu":
        raise RuntimeError(
            f"don't know how to restore data location of torch.storage.UntypedStorage (tagged with {location}): "
            "glassgrad runs on the CPU only; pass map_location='cpu'"
        )
    return storage


def _text(value: Any) -> Any:
    return value.decode("ascii", "replace") if isinstance(value, bytes) else value  # Python 2 pickles hold bytes


class _Reader:
    """The records of one archive, all under one folder, read with errors that name the file."""

    def __init__(self, archive: zipfile.ZipFile, name: str, map_location: Any) -> None:
        self.archive = archive
        self.name = name
        self.map_location = map_location
        entries = archive.namelist()
        if not entries:
            raise RuntimeError(f"{name}: PytorchStreamReader failed reading zip archive: archive does not contain any files")
        folder, slash, _ = entries[0].partition("/")
        if not slash:
            raise RuntimeError(f"{name}: file in archive is not in a subdirectory: {entries[0]}")
        self.prefix = folder + "/"
        self.storages: dict[str, _LoadedStorage] = {}
        self.legacy: dict[str, Tensor] = {}
        self.byteorder = self.read("byteorder").decode("ascii", "replace") if self.has("byteorder") else "little"
        if self.byteorder not in ("little", "big"):
            raise RuntimeError(f"{name}: unknown byte order {self.byteorder!r} in {self.prefix}byteorder")

    def has(self, entry: str) -> bool:
        try:
            self.archive.getinfo(self.prefix + entry)
        except KeyError:
            return False
        return True

    def read(self, entry: str) -> bytes:
        try:
            return self.archive.read(self.prefix + entry)
        except _ARCHIVE_ERRORS as err:
            raise RuntimeError(f"{self.name}: PytorchStreamReader failed reading file {self.prefix}{entry}: {err}") from err

    def persistent_load(self, pid: Any) -> Any:
        if isinstance(pid, tuple) and pid:
            kind, fields = _text(pid[0]), pid[1:]
            if kind == "storage" and len(fields) == 4:
                return self._storage(*fields)
            if kind in _LEGACY_KINDS:
                return self._legacy(kind, fields)
        raise pickle.UnpicklingError(f"{self.name}: unsupported persistent id {pid!r}")

    def _storage(self, storage_type: Any, key: Any, location: Any, numel: Any) -> _LoadedStorage:
        key, location = _text(key), _text(location)
        if not (isinstance(storage_type, _StorageType) and isinstance(key, str) and isinstance(location, str) and _is_index(numel)):
            raise pickle.UnpicklingError(f"{self.name}: malformed storage record {(storage_type, key, location, numel)!r}")
        if key in self.storages:
            return self.storages[key]
        dtype = storage_type.dtype
        raw = self.read(f"data/{key}")
        if len(raw) != numel * dtype.itemsize:
            raise RuntimeError(
                f"{self.name}: record {self.prefix}data/{key} holds {len(raw)} bytes, but its storage of {numel} "
                f"{dtype.name} elements needs {numel * dtype.itemsize}"
            )
        array = np.frombuffer(bytearray(raw), dtype.np)  # a bytearray, so tensors over it are writable
        if self.byteorder != sys.byteorder:
            array.byteswap(inplace=True)
        storage = self.storages[key] = _restore(_LoadedStorage(array), location, self.map_location)
        return storage

    def _legacy(self, kind: str, fields: tuple[Any, ...]) -> Any:
        """glassgrad 0.1's persistent ids: ("tensor", key, dtype, shape, requires_grad, is_parameter), ("dtype", name),
        ("device", name), ("size", dims)."""
        if kind == "tensor" and len(fields) == 5:
            return self._legacy_tensor(*fields)
        value = fields[0] if len(fields) == 1 else None
        if kind == "dtype" and isinstance(value, str):
            return _dtype.to_dtype(value)
        if kind == "device" and isinstance(value, str):
            return device(value)
        if kind == "size" and _is_shape(value):
            return Size(value)
        raise pickle.UnpicklingError(f"{self.name}: unsupported persistent id {(kind, *fields)!r}")

    def _legacy_tensor(self, key: Any, dtype_name: Any, shape: Any, requires_grad: Any, is_parameter: Any) -> Tensor:
        if not (isinstance(key, str) and _is_shape(shape)):
            raise pickle.UnpicklingError(f"{self.name}: malformed tensor record {(key, dtype_name, shape)!r}")
        if key in self.legacy:
            return self.legacy[key]
        dtype = _dtype.to_dtype(dtype_name)
        raw = self.read(f"data/{key}")
        expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if len(raw) != expected:
            raise RuntimeError(
                f"{self.name}: tensor data {self.prefix}data/{key} holds {len(raw)} bytes, but a {dtype_name} tensor "
                f"of shape {list(shape)} needs {expected}"
            )
        # glassgrad 0.1 wrote little-endian bytes; astype copies them into memory the tensor owns.
        t = Tensor._wrap(np.frombuffer(raw, dtype=dtype.np.newbyteorder("<")).astype(dtype.np).reshape(shape))
        if is_parameter:
            t = Parameter(t, bool(requires_grad))
        elif requires_grad:
            t.requires_grad_(True)
        self.legacy[key] = t
        return t


_LEGACY_KINDS = ("tensor", "dtype", "device", "size")


@contextmanager
def _opened(f: Any) -> Iterator[tuple[IO[bytes], str]]:
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as stream:
            yield stream, os.fspath(f)
    else:
        yield f, getattr(f, "name", "<file-like object>")


def load(f: Any, map_location: Any, weights_only: bool, pickle_load_args: dict[str, Any]) -> Any:
    with _opened(f) as (stream, name):
        try:
            archive = zipfile.ZipFile(stream)
        except _ARCHIVE_ERRORS as err:
            raise RuntimeError(
                f"{name}: PytorchStreamReader failed reading zip archive: failed finding central directory ({err}). "
                "glassgrad reads the zip checkpoints torch.save has written since PyTorch 1.6; re-save older ones "
                "with a current PyTorch"
            ) from err
        with archive:
            reader = _Reader(archive, name, map_location)
            if reader.has("constants.pkl"):
                raise RuntimeError(
                    f"{name} is a TorchScript archive (torch.jit.save), which glassgrad cannot run: load it with "
                    "torch.jit.load in PyTorch and torch.save its state_dict() instead"
                )
            unpickler = _Unpickler(io.BytesIO(reader.read("data.pkl")), weights_only, **{"encoding": "utf-8", **pickle_load_args})
            unpickler.persistent_load = reader.persistent_load  # type: ignore[method-assign]
            if not weights_only:
                return unpickler.load()
            try:
                return unpickler.load()
            except (pickle.UnpicklingError, RuntimeError):
                raise
            except Exception as err:  # any other failure of a hostile or damaged structure is reported as one kind
                raise pickle.UnpicklingError(f"{name}: malformed pickled structure ({type(err).__name__}: {err})") from err
