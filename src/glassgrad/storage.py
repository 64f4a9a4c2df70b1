"""torch.UntypedStorage, minimal: the bytes a tensor views, as libraries ask about them.

A glassgrad tensor views a NumPy buffer; its storage is that buffer's root array as bytes.
safetensors asks for `data_ptr()` and `nbytes()` (to find tensors sharing memory) and Lightning
names the type in annotations; resizing, sharing and device moves are not implemented.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ._missing import module_getattr as _module_getattr


def _root(array: np.ndarray) -> np.ndarray:
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


class UntypedStorage:
    def __init__(self, size: int = 0, *, device: Any = None) -> None:
        self._bytes = np.zeros(size, dtype=np.uint8)

    @classmethod
    def _of(cls, array: np.ndarray) -> UntypedStorage:
        storage = cls.__new__(cls)
        root = _root(array)
        storage._bytes = root.reshape(-1).view(np.uint8) if root.flags.c_contiguous else root.view(np.uint8)
        return storage

    def data_ptr(self) -> int:
        return int(self._bytes.__array_interface__["data"][0])

    def nbytes(self) -> int:
        return int(self._bytes.nbytes)

    def size(self) -> int:
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    @property
    def device(self) -> Any:
        from .tensor import device

        return device("cpu")

    def __getitem__(self, index: int) -> int:
        return int(self._bytes.reshape(-1)[index])

    def tolist(self) -> list[int]:
        return self._bytes.reshape(-1).tolist()

    def __repr__(self) -> str:
        values = "\n".join(f" {v}" for v in self.tolist())
        return f"{values}\n[torch.storage.UntypedStorage(device=cpu) of size {len(self)}]"


class TypedStorage:
    """What the deprecated Tensor.storage() returns: the tensor's memory counted in elements of its dtype."""

    def __init__(self, untyped: UntypedStorage, dtype: Any) -> None:
        self._untyped_storage = untyped
        self.dtype = dtype

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def element_size(self) -> int:
        return int(self.dtype.itemsize)

    def size(self) -> int:
        return self._untyped_storage.nbytes() // self.element_size()

    def __len__(self) -> int:
        return self.size()

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    @property
    def device(self) -> Any:
        return self._untyped_storage.device


_warned_typed = [False]


def typed_storage(tensor: Any) -> TypedStorage:
    """Tensor.storage(): deprecated in PyTorch, which warns once per process as here."""
    if not _warned_typed[0]:
        _warned_typed[0] = True
        warnings.warn(
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage "
            "class. This should only matter to you if you are using storages directly.  To access UntypedStorage "
            "directly, use tensor.untyped_storage() instead of tensor.storage()",
            UserWarning,
            stacklevel=3,
        )
    return TypedStorage(untyped_storage(tensor), tensor.dtype)


def untyped_storage(tensor: Any) -> UntypedStorage:
    """Tensor.untyped_storage(): the memory the tensor views (shared with its views and detached aliases)."""
    return UntypedStorage._of(tensor._data)


__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
