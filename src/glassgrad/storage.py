"""torch.UntypedStorage, minimal: the bytes a tensor views, as libraries ask about them.

A glassgrad tensor views a NumPy buffer; its storage is that buffer's root array as bytes.
safetensors asks for `data_ptr()` and `nbytes()` (to find tensors sharing memory) and Lightning
names the type in annotations; resizing, sharing and device moves are not implemented.
"""

from __future__ import annotations

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


def untyped_storage(tensor: Any) -> UntypedStorage:
    """Tensor.untyped_storage(): the memory the tensor views (shared with its views and detached aliases)."""
    return UntypedStorage._of(tensor._data)


__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
