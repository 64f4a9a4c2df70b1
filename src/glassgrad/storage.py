"""torch.UntypedStorage, minimal: the bytes a tensor views, as libraries ask about them, and shared memory.

A glassgrad tensor views a NumPy buffer; its storage is that buffer's root array as bytes.
safetensors asks for `data_ptr()` and `nbytes()` (to find tensors sharing memory) and Lightning
names the type in annotations; resizing and device moves are not implemented.

share_memory_() moves a storage into a SharedBlock, memory that other processes can map (torch.multiprocessing sends
the block's file descriptor). PyTorch swaps the data pointer of the one storage object that every view holds;
NumPy cannot re-point an array, so every tensor and storage viewing the old memory is found and given an array over
the block at the same offset, with the same shape and strides.
"""

from __future__ import annotations

import gc
import mmap
import os
import sys
import tempfile
import warnings
import weakref
from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.lib.array_utils import byte_bounds

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

    def share_memory_(self) -> UntypedStorage:
        share_memory([self])
        return self

    def is_shared(self) -> bool:
        return is_shared(self._bytes)

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


# -- shared memory --------------------------------------------------------------------------------------------------
_ALIGNMENT = 64  # each storage moved into a block starts on a cache line
_MMAP_OPTIONS = {"trackfd": False} if sys.version_info >= (3, 13) else {}  # the block keeps its own descriptor


class SharedBlock(mmap.mmap):
    """Memory that other processes can map: a file with no name (memfd) mapped MAP_SHARED. The kernel frees it when
    the last process has closed its descriptor and unmapped it, so nothing is left in /dev/shm and nothing needs the
    resource tracker. `fd` is what torch.multiprocessing sends (the block closes it when it is collected)."""

    fd: int
    address: int

    @classmethod
    def new(cls, nbytes: int) -> SharedBlock:
        if hasattr(os, "memfd_create"):
            fd = os.memfd_create("glassgrad-shared")
        else:  # an unlinked temporary file does the same where memfd does not exist
            fd, path = tempfile.mkstemp(prefix="glassgrad-shared-")
            os.unlink(path)
        os.ftruncate(fd, nbytes)
        return cls.attach(fd, nbytes)

    @classmethod
    def attach(cls, fd: int, nbytes: int) -> SharedBlock:
        """The block of descriptor `fd` (taken over): the one this process has mapped already, if any."""
        key = _file_key(fd)
        block = _blocks.get(key)
        if block is not None:
            os.close(fd)
            return block
        block = cls(fd, nbytes, **_MMAP_OPTIONS)
        block.fd = fd
        block.address = np.ndarray((0,), np.uint8, buffer=block).__array_interface__["data"][0]
        weakref.finalize(block, os.close, fd)
        _blocks[key] = block
        return block


def _file_key(fd: int) -> tuple[int, int]:
    status = os.fstat(fd)
    return status.st_dev, status.st_ino


# Two descriptors of one block (sent twice, or sent back) map it once, so its storages keep their identity.
_blocks: weakref.WeakValueDictionary[tuple[int, int], SharedBlock] = weakref.WeakValueDictionary()


def is_shared(array: np.ndarray) -> bool:
    return isinstance(_root(array).base, SharedBlock)


def share_memory(holders: Iterable[Any]) -> None:
    """Move the memory of each tensor or UntypedStorage in `holders` into one new SharedBlock, in place.

    Every tensor and storage that views that memory (views, detached aliases, parameters over it) views the block
    afterwards; the values, shapes, strides and version counters stay. Already shared memory stays where it is.
    """
    holders = list(holders)
    alone = all(map(_sole_view, holders))  # before anything here refers to their arrays
    roots = {id(root): root for root in (_root(_array(h)) for h in holders) if not isinstance(root.base, SharedBlock)}
    if not roots:
        return
    extents = {key: byte_bounds(root) for key, root in roots.items()}
    offsets, end = {}, 0
    for key, (low, high) in extents.items():
        offsets[key], end = end, end + -(-(high - low) // _ALIGNMENT) * _ALIGNMENT
    block = SharedBlock.new(max(end, 1))  # a mapping cannot be empty
    moved = {}
    for key, root in roots.items():
        low, high = extents[key]
        new_root = np.ndarray((high - low,), np.uint8, buffer=block, offset=offsets[key])
        np.copyto(_over(new_root, low, root), root)
        moved[key] = new_root, low
    for holder in holders if alone else _every_holder():
        array = _array(holder)
        target = moved.get(id(_root(array)))
        if target is not None:
            _set_array(holder, _over(*target, array))


def shared_place(holder: Any) -> tuple[SharedBlock, int, int, int]:
    """(block, offset of the storage in it, the storage's bytes, offset of holder's first element in the storage),
    moving holder's memory into shared memory first, as PyTorch does with a tensor sent to another process."""
    share_memory([holder])
    array = _array(holder)
    root = _root(array)
    start = _address(root)
    return root.base, start - root.base.address, root.nbytes, _address(array) - start


def rebuild_array(block: SharedBlock, offset: int, nbytes: int, view_offset: int, shape: Any, dtype: Any, strides: Any) -> np.ndarray:
    """The array that shared_place described, over the same memory: a storage in the block and a view of it."""
    root = np.ndarray((nbytes,), np.uint8, buffer=block, offset=offset)
    return np.ndarray(shape, dtype, buffer=root, offset=view_offset, strides=strides)


def _address(array: np.ndarray) -> int:
    return int(array.__array_interface__["data"][0])


def _over(new_root: np.ndarray, low: int, array: np.ndarray) -> np.ndarray:
    """`array`'s layout over new_root, which holds the bytes that started at address `low`."""
    moved = np.ndarray(array.shape, array.dtype, buffer=new_root, offset=_address(array) - low, strides=array.strides)
    moved.flags.writeable = array.flags.writeable  # an expanded view stays read-only
    return moved


def _array(holder: Any) -> np.ndarray:
    return holder._bytes if isinstance(holder, UntypedStorage) else holder._data


def _set_array(holder: Any, array: np.ndarray) -> None:
    if isinstance(holder, UntypedStorage):
        holder._bytes = array
    else:
        holder._data = array


def _sole_view(holder: Any) -> bool:
    """Whether nothing but `holder` views its memory: its array owns the memory and only holder refers to it."""
    array = _array(holder)
    return not isinstance(array.base, np.ndarray) and sys.getrefcount(array) <= 3  # holder, `array`, the argument


def _every_holder() -> Iterable[Any]:
    """Every tensor and storage in this process (a scan of the heap: share_memory_ is rare, a training step never)."""
    from .tensor import TensorBase

    kinds = (TensorBase, UntypedStorage)
    # issubclass of the type: isinstance would also read __class__, which some objects compute (and warn about)
    return [obj for obj in gc.get_objects() if issubclass(type(obj), kinds) and isinstance(_array(obj), np.ndarray)]


__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
