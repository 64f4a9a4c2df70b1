"""Tensors over other libraries' memory: asarray, frombuffer and DLPack.

A glassgrad tensor is a NumPy array, so sharing memory is NumPy's business: a NumPy array, a
Python buffer (bytes, bytearray, memoryview) or any DLPack producer (a real torch tensor, CuPy on
the CPU, JAX) becomes a tensor without a copy where PyTorch's CPU build would alias it, and a
glassgrad tensor is itself a DLPack producer (`np.from_dlpack(t)`, `torch.from_dlpack(t)`).
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _device, _dtype
from ..tensor import Tensor
from .creation import _finish, check_grad_dtype, tensor


def _is_buffer(obj: object) -> bool:
    try:
        memoryview(obj)  # type: ignore[arg-type]
    except TypeError:
        return False
    return True


def frombuffer(buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """A 1-d tensor over a Python buffer's bytes, sharing them (a read-only buffer gives a read-only tensor)."""
    if not _is_buffer(buffer):
        raise ValueError("object does not implement Python buffer protocol.")
    view = memoryview(buffer)
    length, target = view.nbytes, _dtype.to_dtype(dtype)
    itemsize = target.np.itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length ({length} bytes) minus 1"
        )
    if count < 0:
        if (length - offset) % itemsize:
            raise ValueError(
                f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a multiple of element "
                f"size ({itemsize})"
            )
        count = (length - offset) // itemsize
    elif offset + count * itemsize > length:
        raise ValueError(
            f"requested buffer length ({count} * {itemsize} bytes) after offset ({offset} bytes) must not be greater "
            f"than actual buffer length ({length} bytes)"
        )
    if view.readonly:
        warnings.warn(
            "The given buffer is not writable, and PyTorch does not support non-writable tensors. glassgrad keeps it "
            "read-only: an in-place op on this tensor raises. Copy the buffer (bytearray(...)) to write to it.",
            UserWarning, stacklevel=2,
        )
    return _finish(np.frombuffer(view, dtype=target.np, count=count, offset=offset), requires_grad, None)


def _numpy_array(obj: np.ndarray, dtype: _dtype.dtype | None, copy: bool | None) -> Tensor:
    if not obj.dtype.isnative:
        raise ValueError(
            "given numpy array has byte order different from the native byte order. Conversion between byte orders is "
            "currently not supported."
        )
    own = _dtype.from_numpy_dtype(obj.dtype)
    if copy is False and dtype is not None and dtype is not own:
        raise ValueError(f"can't alias tensor with dtype '{own.scalar_name}' into dtype '{dtype.scalar_name}'.")
    if dtype is not None and dtype is not own:
        return Tensor._wrap(obj.astype(dtype.np))
    return Tensor._wrap(obj.copy() if copy else obj)


def _from_tensor(obj: Tensor, dtype: _dtype.dtype | None, copy: bool | None, requires_grad: bool | None) -> Tensor:
    """PyTorch's rules for a tensor: the very tensor unless a copy is asked for or the dtype differs; then the copy
    keeps the graph (clone, to). requires_grad=False on a non-leaf detaches; on a leaf it sets the flag, in place."""
    if dtype is not None and dtype is not obj.dtype:
        if copy is False:
            raise ValueError(f"can't alias tensor with dtype '{obj.dtype.scalar_name}' into dtype '{dtype.scalar_name}'.")
        obj = obj.to(dtype)
    elif copy:
        obj = obj.clone()
    if requires_grad is None:
        if obj.requires_grad:
            warnings.warn(
                "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of False. Pass "
                "requires_grad=False explicitly to get the old behavior and silence this warning.",
                UserWarning, stacklevel=3,
            )
        return obj
    if obj.grad_fn is not None:
        return obj if requires_grad else obj.detach()
    if requires_grad:
        check_grad_dtype(obj._data.dtype)
    return obj.requires_grad_(requires_grad)


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
            requires_grad: bool | None = None) -> Tensor:
    """`obj` as a tensor, sharing its memory where PyTorch would: a tensor, a NumPy array, a DLPack producer or a
    Python buffer is aliased unless copy=True or the dtype must change; anything else (sequences, scalars) is
    copied, and copy=False refuses it."""
    if device is not None:
        _device.place_linked(device)
    if obj is None:
        raise RuntimeError("Could not infer dtype of NoneType")
    target = None if dtype is None else _dtype.to_dtype(dtype)
    if isinstance(obj, Tensor):
        return _from_tensor(obj, target, copy, requires_grad)
    if isinstance(obj, np.generic):
        if copy is False:
            raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or transform it in a ndarray.")
        out = tensor(obj, dtype=target)
    elif isinstance(obj, np.ndarray):
        out = _numpy_array(obj, target, copy)
    elif hasattr(obj, "__dlpack__"):
        out = _numpy_array(np.from_dlpack(obj), target, copy)
    elif _is_buffer(obj):
        out = frombuffer(obj, dtype=target or _dtype.get_default_dtype())
        out = Tensor._wrap(out._data.copy()) if copy else out
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        out = tensor(obj, dtype=target)
    return _finish(out._data, bool(requires_grad), None) if requires_grad else out


# -- DLPack ------------------------------------------------------------------------------------------------------
class _Capsule:
    """A bare DLPack capsule (what to_dlpack returns), dressed as a producer for np.from_dlpack."""

    def __init__(self, capsule: object) -> None:
        self.capsule = capsule

    def __dlpack__(self, **kwargs: Any) -> object:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # kDLCPU: where glassgrad's memory always is


def from_dlpack(ext_tensor: Any, *, device: Any = None, copy: bool | None = None) -> Tensor:
    """A tensor sharing the memory of a DLPack producer (or of a capsule from to_dlpack, which can be used once)."""
    if device is not None:
        _device.place(device, creating=True)
    producer = ext_tensor if hasattr(ext_tensor, "__dlpack__") else _Capsule(ext_tensor)
    try:
        array = np.from_dlpack(producer, copy=copy)
    except (TypeError, RuntimeError, BufferError, ValueError) as err:
        if isinstance(producer, _Capsule):
            raise RuntimeError(
                "from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only once, so "
                f"you might have already constructed a tensor from it once. ({err})"
            ) from None
        raise
    return Tensor._wrap(_writable(array) if isinstance(producer, _Capsule) else array)


def _writable(array: np.ndarray) -> np.ndarray:
    """The array over the same memory, writable. NumPy marks what it gets from a bare (unversioned) capsule read-only,
    as such a capsule cannot say whether its producer allows writes; PyTorch's tensors over it are writable, so
    glassgrad's are too. The new array keeps the old one, and so the capsule's memory, alive."""
    interface = dict(array.__array_interface__, data=(array.__array_interface__["data"][0], False))
    return np.asarray(types.SimpleNamespace(__array_interface__=interface, owner=array))


def to_dlpack(data: Tensor) -> object:
    """A DLPack capsule over the tensor's memory, for from_dlpack in any library (consumed once)."""
    if not isinstance(data, Tensor):
        raise TypeError(f"_to_dlpack(): argument 'data' (position 1) must be Tensor, not {type(data).__module__}."
                        f"{type(data).__name__}")
    return data._data.__dlpack__()


def tensor_dlpack(self: Tensor, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                  copy: bool | None = None) -> object:
    """Tensor.__dlpack__: what np.from_dlpack and torch.from_dlpack call on a glassgrad tensor."""
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    return self._data.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)


def tensor_dlpack_device(self: Tensor) -> tuple[int, int]:
    return self._data.__dlpack_device__()


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "asarray": asarray, "frombuffer": frombuffer, "from_dlpack": from_dlpack, "to_dlpack": to_dlpack,
}
METHODS: dict[str, Callable[..., Any]] = {"__dlpack__": tensor_dlpack, "__dlpack_device__": tensor_dlpack_device}
INPLACE: tuple[str, ...] = ()
