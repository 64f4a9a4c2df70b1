"""glassgrad.save / glassgrad.load: PyTorch's checkpoint format in both directions, PyTorch's security model, and
safetensors interchange.

A checkpoint is the zip archive torch.save writes, records stored uncompressed under one folder (the file's name
without its extension, or "archive" for a file object), each record's data 64-byte aligned where PyTorch's own
writer puts it:

    data.pkl                the object, pickled with protocol 2. A tensor is a call of
                            torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks),
                            a Parameter one of torch._utils._rebuild_parameter(tensor, requires_grad, hooks); a
                            storage is the persistent id ("storage", torch.<Type>Storage, key, "cpu", numel).
    .format_version         "1": storages lie where PyTorch's writer would put them, so torch.load may compute
                            their offsets instead of reading headers
    .storage_alignment      "64"
    byteorder               sys.byteorder: storages hold native bytes
    data/<key>              one storage. Tensors that view one NumPy buffer share one storage (as views of one
                            PyTorch storage do), each with its own offset and strides; as in PyTorch, a view saves
                            its whole buffer: clone() it to save only the view
    version                 "3\\n"
    .data/serialization_id  40 digits derived from the records

So torch.load reads what glassgrad.save writes (with weights_only=True, its default, too), and glassgrad.load
reads what torch.save writes. glassgrad.load also reads glassgrad 0.1's own archives (tensors as persistent ids
"tensor", "dtype", "device", "size"), which users may still have.

`load(f)` defaults to `weights_only=True`, as PyTorch 2.13 does: the structure is read by an unpickler whose
`find_class` hands out glassgrad's implementations of PyTorch's rebuild functions, storage classes, dtypes,
torch.Size and torch.device, plain containers, and whatever `add_safe_globals` / `safe_globals` add, and refuses
every other global; a hostile file cannot name a callable to run. Modules sys, os, posix and nt are refused even
when allow-listed. `weights_only=False` unpickles anything (whole glassgrad modules, optimizers) and must only be
used on trusted files; even then no PyTorch object is built, only glassgrad's.

Errors: a file that is not a readable archive (truncated, corrupted, missing records, data of the wrong size; zip
CRCs cover every byte of every record) raises RuntimeError; a structure that cannot be unpickled, or that names a
refused global, raises pickle.UnpicklingError. Both name the file or the global. Nothing is returned unless the
whole file loaded.
"""

from __future__ import annotations

import collections
import os
from typing import IO, Any

import numpy as np

from ..tensor import Tensor
from ._allowlist import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals

FileLike = str | os.PathLike[str] | IO[bytes]

__all__ = [
    "add_safe_globals", "clear_safe_globals", "get_safe_globals", "load", "load_safetensors", "safe_globals", "save",
    "save_safetensors",
]


def save(
    obj: Any, f: FileLike, pickle_module: Any = None, pickle_protocol: int = 2, _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Write obj (tensors, state dicts, containers, or any picklable object) to a path or binary file, as torch.save.

    The zip format is always written (PyTorch's default since 1.6, which every torch.load reads); `pickle_module`
    is not used: glassgrad pickles with its own pickler, which writes PyTorch's names without importing torch.
    """
    from ._writer import save as write  # zipfile and the pickler load on first use, not with `import glassgrad`

    write(obj, f, pickle_protocol, byteorder_record=not _disable_byteorder_record)


def load(
    f: FileLike, map_location: Any = None, pickle_module: Any = None, *, weights_only: bool | None = None,
    mmap: bool | None = None, **pickle_load_args: Any,
) -> Any:
    """Read a checkpoint written by torch.save or glassgrad.save, as torch.load.

    weights_only (True unless `pickle_module` is given, as in PyTorch) refuses any global not on the allow-list.
    map_location may be "cpu", a device, a dict from saved locations to locations, or a callable
    (storage, location) -> storage or None; glassgrad's only device is the CPU, so storages saved on a GPU need
    one. `mmap` is accepted and the file read into memory; `pickle_module` only decides the weights_only default.
    """
    if weights_only is None:
        weights_only = pickle_module is None
    elif weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    from ._reader import load as read

    return read(f, map_location, weights_only, pickle_load_args)


# -- safetensors interchange ----------------------------------------------------------------------------------------
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
