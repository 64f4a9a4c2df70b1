"""glassgrad.save / glassgrad.load with PyTorch's contract and security model, and safetensors interchange.

A checkpoint is a zip archive (stored, not compressed):

    archive/data.pkl     the pickled structure; every tensor in it is a persistent id
                         ("tensor", key, dtype name, shape, requires_grad, is_parameter)
    archive/data/<key>   that tensor's raw bytes, C order, little-endian
    archive/byteorder    "little"

`load(f)` defaults to `weights_only=True`: the structure is read by an unpickler whose
`find_class` refuses every global that is not on an allow-list (containers and whatever
`add_safe_globals` / `safe_globals` add), so a hostile file cannot name a callable to run.
Tensors, dtypes, devices and sizes never go through `find_class`: they are persistent ids.
`weights_only=False` unpickles anything (whole modules, optimizers) and must only be used on
trusted files.

Errors: a file that is not a readable archive (truncated, corrupted, missing entries, data of
the wrong size; zip CRCs cover every byte of every entry) raises RuntimeError; a structure that
cannot be unpickled, or that names a refused global, raises pickle.UnpicklingError. Both name
the file. Nothing is returned unless the whole file loaded.
"""

from __future__ import annotations

import builtins
import collections
import io
import os
import pickle
import struct
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import IO, Any

import numpy as np

from . import _device, _dtype
from .tensor import Size, Tensor, device

FileLike = str | os.PathLike[str] | IO[bytes]

_PREFIX = "archive/"
_DEFAULT_ALLOWED: dict[str, Any] = {
    f"{obj.__module__}.{obj.__qualname__}": obj
    for obj in (
        collections.OrderedDict, collections.Counter, collections.defaultdict, builtins.set, builtins.frozenset,
        builtins.slice, builtins.range, builtins.complex, builtins.bytearray,
    )
}
_user_allowed: dict[str, Any] = {}


# -- the allow-list -----------------------------------------------------------------------------------
def _qualified(obj: Any) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


def add_safe_globals(safe_globals: Iterable[Any]) -> None:
    """Allow these globals (classes, functions; or (obj, "module.name") pairs) in weights_only loads."""
    for entry in safe_globals:
        obj, name = entry if isinstance(entry, tuple) else (entry, _qualified(entry))
        _user_allowed[name] = obj


def get_safe_globals() -> list[Any]:
    return list(_user_allowed.values())


def clear_safe_globals() -> None:
    _user_allowed.clear()


@contextmanager
def safe_globals(safe_globals: Iterable[Any]) -> Iterator[None]:
    """Allow these globals for the duration of a `with` block."""
    saved = dict(_user_allowed)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _user_allowed.clear()
        _user_allowed.update(saved)


def _refusal(module: str, name: str) -> str:
    full = f"{module}.{name}"
    return (
        "Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only "
        "if you trust the source of the checkpoint. \n\t(1) Re-running `glassgrad.load` with `weights_only` set to "
        "`False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file "
        "from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` please check the recommended "
        "steps in the following error message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL "
        f"{full} was not an allowed global by default. Please use `glassgrad.serialization.add_safe_globals([{name}])` "
        f"or the `glassgrad.serialization.safe_globals([{name}])` context manager to allowlist this global if you "
        "trust this class/function."
    )


# -- saving ---------------------------------------------------------------------------------------------
class _Pickler(pickle.Pickler):
    def __init__(self, file: IO[bytes]) -> None:
        super().__init__(file, protocol=4)
        self.arrays: dict[str, np.ndarray] = {}
        self._keys: dict[int, str] = {}
        self._keep_alive: list[Any] = []  # ids are only unique while the objects live

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            from .nn.parameter import Parameter

            key = self._keys.get(id(obj))
            if key is None:
                key = self._keys[id(obj)] = str(len(self._keys))
                self.arrays[key] = np.ascontiguousarray(obj._data).astype(obj._data.dtype.newbyteorder("<"), copy=False)
                self._keep_alive.append(obj)
            return ("tensor", key, obj.dtype.name, tuple(obj.shape), obj.requires_grad, isinstance(obj, Parameter))
        if isinstance(obj, _dtype.dtype):
            return ("dtype", obj.name)
        if isinstance(obj, device):
            return ("device", str(obj))
        if isinstance(obj, Size):
            return ("size", tuple(obj))
        return None


def save(obj: Any, f: FileLike, pickle_module: Any = None, pickle_protocol: int = 4, _use_new_zipfile_serialization: bool = True) -> None:
    """Write obj (tensors, state dicts, containers, or any picklable object) to a path or binary file."""
    structure = io.BytesIO()
    pickler = _Pickler(structure)
    pickler.dump(obj)
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(_PREFIX + "data.pkl", structure.getvalue())
        archive.writestr(_PREFIX + "byteorder", "little")
        for key, array in pickler.arrays.items():
            archive.writestr(_PREFIX + "data/" + key, array.tobytes())


# -- loading --------------------------------------------------------------------------------------------
_ARCHIVE_ERRORS = (
    zipfile.BadZipFile, zipfile.LargeZipFile, KeyError, ValueError, EOFError, NotImplementedError, zlib.error,
    struct.error, UnicodeDecodeError, OverflowError, OSError,
)


class _Reader:
    """Reads entries of the archive; every failure becomes RuntimeError naming the file."""

    def __init__(self, archive: zipfile.ZipFile, name: str) -> None:
        self.archive = archive
        self.name = name
        self.tensors: dict[str, Tensor] = {}

    def read(self, entry: str) -> bytes:
        try:
            return self.archive.read(_PREFIX + entry)
        except _ARCHIVE_ERRORS as err:
            raise RuntimeError(f"{self.name}: PytorchStreamReader failed reading file {_PREFIX}{entry}: {err}") from err

    def persistent_load(self, pid: Any) -> Any:
        if not isinstance(pid, tuple) or not pid or not isinstance(pid[0], str):
            raise pickle.UnpicklingError(f"{self.name}: unsupported persistent id {pid!r}")
        kind, *fields = pid
        if kind == "tensor" and len(fields) == 5:
            return self._tensor(*fields)
        if kind == "dtype" and len(fields) == 1 and isinstance(fields[0], str):
            return _dtype.to_dtype(fields[0])
        if kind == "device" and len(fields) == 1 and isinstance(fields[0], str):
            return device(fields[0])
        if kind == "size" and len(fields) == 1 and isinstance(fields[0], tuple):
            return Size(int(s) for s in fields[0])
        raise pickle.UnpicklingError(f"{self.name}: unsupported persistent id {pid!r}")

    def _tensor(self, key: Any, dtype_name: Any, shape: Any, requires_grad: Any, is_parameter: Any) -> Tensor:
        if not (isinstance(key, str) and isinstance(shape, tuple) and all(isinstance(s, int) and s >= 0 for s in shape)):
            raise pickle.UnpicklingError(f"{self.name}: malformed tensor record {(key, dtype_name, shape)!r}")
        if key in self.tensors:
            return self.tensors[key]
        dtype = _dtype.to_dtype(dtype_name)
        raw = self.read("data/" + key)
        expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if len(raw) != expected:
            raise RuntimeError(
                f"{self.name}: tensor data {_PREFIX}data/{key} holds {len(raw)} bytes, but a {dtype_name} tensor of "
                f"shape {list(shape)} needs {expected}"
            )
        # astype copies, so the tensor owns writable memory rather than the archive's read-only bytes.
        t = Tensor._wrap(np.frombuffer(raw, dtype=dtype.np.newbyteorder("<")).astype(dtype.np).reshape(shape))
        if is_parameter:
            from .nn.parameter import Parameter

            t = Parameter(t, bool(requires_grad))
        elif requires_grad:
            t.requires_grad_(True)
        self.tensors[key] = t
        return t


class _WeightsUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        full = f"{module}.{name}"
        obj = _user_allowed.get(full, _DEFAULT_ALLOWED.get(full))
        if obj is None:
            raise pickle.UnpicklingError(_refusal(module, name))
        return obj


def _source(f: FileLike) -> tuple[IO[bytes], str, bool]:
    if isinstance(f, (str, os.PathLike)):
        return open(f, "rb"), os.fspath(f), True
    return f, getattr(f, "name", "<file-like object>"), False


def load(
    f: FileLike, map_location: Any = None, pickle_module: Any = None, *, weights_only: bool = True, mmap: Any = None,
    **pickle_load_args: Any,
) -> Any:
    """Load what save() wrote. weights_only=True (the default) refuses any global not on the allow-list."""
    if map_location is not None and isinstance(map_location, (str, device)):
        _device.check_map_location(map_location)
    stream, name, owned = _source(f)
    try:
        try:
            archive = zipfile.ZipFile(stream)
        except _ARCHIVE_ERRORS as err:
            raise RuntimeError(
                f"{name}: PytorchStreamReader failed reading zip archive: failed finding central directory ({err})"
            ) from err
        with archive:
            reader = _Reader(archive, name)
            structure = reader.read("data.pkl")
            unpickler_cls = _WeightsUnpickler if weights_only else pickle.Unpickler
            unpickler = unpickler_cls(io.BytesIO(structure), **pickle_load_args)
            unpickler.persistent_load = reader.persistent_load  # type: ignore[method-assign]
            if not weights_only:
                return unpickler.load()
            try:
                return unpickler.load()
            except (pickle.UnpicklingError, RuntimeError):
                raise
            except Exception as err:  # any other failure of a hostile or damaged structure is reported as one kind
                raise pickle.UnpicklingError(f"{name}: malformed pickled structure ({type(err).__name__}: {err})") from err
    finally:
        if owned:
            stream.close()


# -- safetensors interchange ----------------------------------------------------------------------------
def save_safetensors(state_dict: dict[str, Tensor], filename: str | os.PathLike[str], metadata: dict[str, str] | None = None) -> None:
    """Write a flat dict of tensors in the safetensors format (readable by safetensors.torch.load_file)."""
    from safetensors.numpy import save_file

    arrays = {}
    for key, value in state_dict.items():
        if not isinstance(value, Tensor):
            raise TypeError(f"save_safetensors: {key!r} is a {type(value).__name__}, not a tensor")
        arrays[key] = np.ascontiguousarray(value._data)
    save_file(arrays, os.fspath(filename), metadata=metadata)


def load_safetensors(filename: str | os.PathLike[str]) -> collections.OrderedDict[str, Tensor]:
    """Read a safetensors file into an OrderedDict of tensors, in the file's key order."""
    from safetensors.numpy import load_file

    return collections.OrderedDict((k, Tensor._wrap(np.array(v))) for k, v in load_file(os.fspath(filename)).items())

