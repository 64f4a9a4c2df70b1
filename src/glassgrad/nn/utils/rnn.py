"""PackedSequence and the packing helpers of torch.nn.utils.rnn.

A PackedSequence holds a batch of variable-length sequences time step by time step: `data`
stacks, for t = 0, 1, ..., the t-th element of every sequence longer than t, longest sequence
first, and `batch_sizes[t]` says how many there are. Packing and unpacking are one index_select
each (a gather, so gradients flow back to exactly the elements that were packed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from ... import _dtype
from ...ops.creation import full, tensor
from ...ops.shape import cat, stack
from ...ops.sorting import sort
from ...tensor import Tensor
from .. import functional as F

__all__ = [
    "PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
    "unpad_sequence", "pack_sequence", "unpack_sequence",
]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """Made by pack_padded_sequence or pack_sequence; RNN, LSTM and GRU accept it in place of a padded batch."""

    def __new__(
        cls, data: Any, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
        unsorted_indices: Tensor | None = None,
    ) -> PackedSequence:
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence((data, batch_sizes)), as PyTorch also accepts
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """data converted as Tensor.to converts it; batch_sizes stay int64 on the CPU."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        indices = (None if i is None else i.to(data.device) for i in (self.sorted_indices, self.unsorted_indices))
        return type(self)(data, self.batch_sizes, *indices)

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def double(self) -> PackedSequence:
        return self.to(dtype=_dtype.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=_dtype.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=_dtype.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=_dtype.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=_dtype.int32)

    def short(self) -> PackedSequence:
        return self.to(dtype=_dtype.int16)

    def char(self) -> PackedSequence:
        return self.to(dtype=_dtype.int8)

    def byte(self) -> PackedSequence:
        return self.to(dtype=_dtype.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes `permutation` (output[permutation[i]] = i); None stays None."""
    if permutation is None:
        return None
    inverse = np.empty_like(permutation.numpy())
    inverse[permutation.numpy()] = np.arange(permutation.numel())
    return tensor(inverse)


def _lengths_array(lengths: Tensor | Sequence[Any]) -> np.ndarray:
    values = lengths.to(dtype=_dtype.int64).numpy() if isinstance(lengths, Tensor) else np.asarray(
        [int(n) for n in lengths], dtype=np.int64
    )
    if values.ndim != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {values.ndim}D cpu Long tensor")
    return values


def pack_padded_sequence(
    input: Tensor, lengths: Tensor | Sequence[int], batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """Pack a padded (T, B, *) batch (or (B, T, *) with batch_first) of sequences of the given lengths.

    With enforce_sorted=True the lengths must be in decreasing order; otherwise the batch is sorted
    here and the permutation kept in the result, so that unpacking and an RNN's final states come
    back in the input's order.
    """
    lengths_np = _lengths_array(lengths)
    sorted_indices = None
    if not enforce_sorted:
        values, sorted_indices = sort(tensor(lengths_np), descending=True)
        lengths_np = values.numpy()
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch_dim, time_dim = (0, 1) if batch_first else (1, 0)
    batch, steps = input.size(batch_dim), input.size(time_dim)
    if len(lengths_np) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths_np)} (batch_size={batch})")
    if lengths_np[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0")
    if np.any(np.diff(lengths_np) > 0):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
            "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement if you do "
            "not need ONNX exportability."
        )
    if lengths_np[0] > steps:
        # PyTorch reads past the end of the input here; glassgrad refuses.
        raise RuntimeError(
            f"pack_padded_sequence: a sequence is {lengths_np[0]} steps long but the input has only {steps} time steps; "
            "lengths must not exceed the padded length"
        )
    batch_sizes = (lengths_np[None, :] > np.arange(lengths_np[0])[:, None]).sum(axis=1)
    # Row (t, sorted b) of data is input's element (t, sorted_indices[b]), read from input flattened over (time, batch).
    order = np.arange(batch) if sorted_indices is None else sorted_indices.numpy()
    t, b = np.nonzero(np.arange(batch)[None, :] < batch_sizes[:, None])
    rows = t * batch + order[b] if not batch_first else order[b] * steps + t
    data = input.reshape(batch * steps, *input.shape[2:]).index_select(0, tensor(rows))
    return PackedSequence(data, tensor(batch_sizes), sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0, total_length: int | None = None
) -> tuple[Tensor, Tensor]:
    """The inverse of pack_padded_sequence: the padded batch (in the original order) and the lengths (int64)."""
    batch_sizes = sequence.batch_sizes.numpy()
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {steps}"
            )
        steps = total_length
    data = sequence.data
    batch = int(batch_sizes[0])
    offsets = np.concatenate([[0], np.cumsum(batch_sizes)])
    lengths = (batch_sizes[None, :] > np.arange(batch)[:, None]).sum(axis=1)  # per sorted sequence
    order = np.arange(batch) if sequence.unsorted_indices is None else sequence.unsorted_indices.numpy()
    # Output (t, b) reads data's row for sorted sequence order[b] at step t, or the padding row appended at the end.
    t = np.arange(steps)[:, None] if not batch_first else np.arange(steps)[None, :]
    b = order[None, :] if not batch_first else order[:, None]
    present = t < lengths[b]
    rows = np.where(present, offsets[np.minimum(t, len(batch_sizes) - 1)] + b, data.size(0))
    padded = cat([data, full((1, *data.shape[1:]), padding_value, dtype=data.dtype)]).index_select(0, tensor(rows.ravel()))
    return padded.view(*rows.shape, *data.shape[1:]), tensor(lengths[order])


def _check_broadcastable(sequence: Tensor, target: tuple[int, ...]) -> None:
    for dim in range(1, min(sequence.dim(), len(target)) + 1):
        have, want = sequence.shape[-dim], target[-dim]
        if have not in (want, 1):
            raise RuntimeError(
                f"The size of tensor a ({want}) must match the size of tensor b ({have}) at non-singleton dimension "
                f"{len(target) - dim}"
            )


def pad_sequence(
    sequences: Tensor | Iterable[Tensor], batch_first: bool = False, padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences of different lengths (L_i, *) into (max L, B, *) (or (B, max L, *)), filled with padding_value."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: {type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if any(s.dim() == 0 for s in sequences):
        raise RuntimeError("pad_sequence: every sequence needs a length (dim 0), but one of them is a 0-d tensor")
    longest = max(s.size(0) for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    padded = []
    for s in sequences:
        _check_broadcastable(s, (s.size(0), *trailing))
        s = s.expand(s.size(0), *trailing).to(sequences[0].dtype)
        extra = longest - s.size(0)
        # F.pad lists (before, after) pairs from the last dim back; the time dim comes last in that list.
        pairs = [0, 0] * len(trailing) + ([extra, 0] if padding_side == "left" else [0, extra])
        padded.append(F.pad(s, pairs, value=padding_value) if extra else s)
    return stack(padded, dim=0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list[Tensor]:
    """The sequences of a padded batch, each cut to its length."""
    batch_major = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [seq[: int(n)] for seq, n in zip(batch_major, lengths, strict=True)]


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of (L_i, *) sequences; with enforce_sorted=True they must come longest first."""
    lengths = [s.size(0) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
