"""default_collate and default_convert: how DataLoader turns samples into batches."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ....ops.creation import as_tensor, tensor
from ....ops.shape import stack
from ....tensor import Tensor

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _is_namedtuple(obj: Any) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def _rebuild(like: Any, items: Any) -> Any:
    """A container of like's type from items when that type can be built so, else a plain list/dict (as PyTorch)."""
    try:
        return type(like)(items)
    except TypeError:
        return items


def default_collate(batch: Sequence[Any]) -> Any:
    """Stack tensors and arrays, turn numbers into tensors, and recurse into dicts, tuples and lists."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, (np.ndarray, np.generic)):
        if elem.dtype.kind in "SaUO":
            raise TypeError(default_collate_err_msg_format.format(elem.dtype))
        return stack([as_tensor(np.asarray(b)) for b in batch], 0)
    if isinstance(elem, float):
        return tensor(batch, dtype="float64")
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, Mapping):
        return _rebuild(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch, strict=True)))
    if isinstance(elem, Sequence):
        if any(len(e) != len(elem) for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [default_collate(list(samples)) for samples in zip(*batch, strict=True)]
        return transposed if isinstance(elem, tuple) else _rebuild(elem, transposed)
    raise TypeError(default_collate_err_msg_format.format(type(elem)))


def default_convert(data: Any) -> Any:
    """Without batching: NumPy arrays become tensors, containers are converted element by element."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "SaUO":
        return as_tensor(data)
    if isinstance(data, Mapping):
        return _rebuild(data, {key: default_convert(value) for key, value in data.items()})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        converted = [default_convert(d) for d in data]
        return converted if isinstance(data, tuple) else _rebuild(data, converted)
    return data
