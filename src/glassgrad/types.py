"""torch.types: the aliases PyTorch's signatures are annotated with (Number, Device, FileLike, Storage)."""

from __future__ import annotations

import os
from typing import IO, TypeAlias

from ._device import device as _device
from ._dtype import dtype as _dtype
from ._missing import module_getattr as _module_getattr

__all__ = ["Device", "FileLike", "Number", "Storage"]

Number: TypeAlias = int | float | bool
Device: TypeAlias = _device | str | int | None
FileLike: TypeAlias = str | os.PathLike[str] | IO[bytes]


class Storage:
    """What an annotation means by a storage: the byte buffer under a tensor, as PyTorch's stand-in class (never
    made itself) describes it."""

    device: _device
    dtype: _dtype


__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
