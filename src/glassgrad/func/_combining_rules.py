"""Batching rules for the ops that combine tensors: cat and stack, matmul and its relatives, einsum, and indexing
(x[index], x[index] = value, gather). See _rules.py for how a rule works.

- joins: cat/stack expand unbatched members to the batch;
- matmul: operands made at least 2-D, the batched ones given size-1 batch dims to line up, as NumPy's stacked
  matmul broadcasts, and the 1-D dims squeezed out again; a batched operand against an unbatched matrix is one
  GEMM over all its rows;
- einsum: a new letter for the batch on each batched operand and in front of the output;
- indexing: x[index] prefixes the index with a full slice over the batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from .._dtype import bool_
from ..tensor import Tensor
from ._batched import BatchedTensor
from ._rules import NO_RULE, Call, Rule, functions, inplace_into_unbatched, pad_batched, register, wrap_dim

# -- joins ----------------------------------------------------------------------------------------------------------


def _join(extra: int) -> Rule:
    """cat (extra 0) and stack (extra 1): unbatched members are expanded to the batch."""

    def rule(call: Call) -> Any:
        bound = call.bind()
        tensors = list(bound.arguments["tensors"])
        size = call.level.batch_size
        physical = []
        for t in tensors:
            p, batched = call.physical(t)
            physical.append(p if batched else t.unsqueeze(0).expand(size, *t.shape))
        ndim = max(p.dim() - 1 for p in physical)
        bound.arguments["tensors"] = physical
        bound.arguments["dim"] = wrap_dim(bound.arguments["dim"], ndim + extra) + 1
        return call.batched(call.apply(*bound.args, **bound.kwargs))

    return rule


register(_join(0), *functions("cat concat concatenate"))
register(_join(1), *functions("stack"))


# -- matmul -----------------------------------------------------------------------------------------------------------


def _matmul(call: Call) -> Any:
    a, b = call.args[0], call.args[1]
    pa, a_batched = call.physical(a)
    pb, b_batched = call.physical(b)
    a_vector, b_vector = a.dim() == 1, b.dim() == 1
    if a_vector and b_vector:  # a dot product: the last dims multiplied and summed
        return call.batched((pa * pb).sum(-1))
    # Each operand as a stack of matrices (a row for a vector on the left, a column on the right), batch first.
    if a_vector:
        pa = pa.unsqueeze(-2)
    if b_vector:
        pb = pb.unsqueeze(-1)
    if a_batched and not b_batched and pb.dim() == 2:  # one GEMM over every row of every element
        rows = pa.reshape(-1, pa.shape[-1]).matmul(pb)
        result = rows.reshape(*pa.shape[:-1], pb.shape[-1])
        return call.batched(result.squeeze(-2) if a_vector else result.squeeze(-1) if b_vector else result)
    stacks = max(pa.dim() - a_batched, pb.dim() - b_batched) - 2
    pa = pad_batched(pa, stacks + 2) if a_batched else pa
    pb = pad_batched(pb, stacks + 2) if b_batched else pb
    result = pa.matmul(pb)
    if a_vector:
        result = result.squeeze(-2)
    if b_vector:
        result = result.squeeze(-1)
    return call.batched(result)


def _shaped_matmul(ndims: tuple[int, int]) -> Rule:
    """mm, mv, bmm, dot: matmul for operands of the ranks these ops accept."""

    def rule(call: Call) -> Any:
        got = (call.args[0].dim(), call.args[1].dim())
        if got != ndims:
            return NO_RULE  # the op itself raises its error on one element
        return _matmul(call)

    return rule


register(_matmul, *functions("matmul"), ops.OPERATORS["__matmul__"], ops.OPERATORS["__rmatmul__"])
register(_shaped_matmul((2, 2)), *functions("mm"))
register(_shaped_matmul((2, 1)), *functions("mv"))
register(_shaped_matmul((3, 3)), *functions("bmm"))
register(_shaped_matmul((1, 1)), *functions("dot inner vdot"))


def _outer(call: Call) -> Any:
    a, b = call.args
    return a.unsqueeze(-1) * b.unsqueeze(-2) if a.dim() == 1 and b.dim() == 1 else NO_RULE


register(_outer, *functions("outer ger"))


def _einsum(call: Call) -> Any:
    """einsum with a new letter for the batch on each batched operand and in front of the output."""
    equation, *operands = call.args
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = list(operands[0])
    if "->" not in equation or call.kwargs:
        return NO_RULE
    inputs, output = equation.replace(" ", "").split("->")
    letter = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in equation)
    terms, physical = [], []
    for term, operand in zip(inputs.split(","), operands, strict=True):
        p, batched = call.physical(operand)
        terms.append(letter + term if batched else term)
        physical.append(p)
    return call.batched(call.apply(f"{','.join(terms)}->{letter}{output}", *physical))


register(_einsum, *functions("einsum"))


# -- indexing -----------------------------------------------------------------------------------------------------------


def _index_entries(index: Any) -> tuple[Any, ...]:
    return index if isinstance(index, tuple) else (index,)


def _advanced(entry: Any) -> bool:
    return isinstance(entry, Tensor | list | np.ndarray)


def _getitem(call: Call) -> Any:
    """x[index] on the physical tensor: a full slice over the batch in front of the index.

    NumPy moves the dims of non-adjacent advanced indices to the front, which would move them before the batch,
    and a batched index or mask selects per element: both go through the loop.
    """
    p, batched = call.physical(call.args[0])
    entries = _index_entries(call.args[1])
    batched_entries = [e for e in entries if type(e) is BatchedTensor]
    if any(e.dtype == bool_ for e in batched_entries):
        raise RuntimeError(
            "vmap: We do not support batching operators that can support dynamic shape. Attempting to batch over "
            "indexing with a boolean mask."
        )
    if not batched or batched_entries:
        return NO_RULE
    if any(_advanced(e) for e in entries):
        positions = [i for i, e in enumerate(entries) if _advanced(e) or isinstance(e, int | bool)]
        if positions != list(range(positions[0], positions[-1] + 1)):
            return NO_RULE
    return call.batched(p[(slice(None), *entries)])


register(_getitem, ops.OPERATORS["__getitem__"])


def _setitem(call: Call) -> Any:
    """x[index] = value into the physical tensor of a batched x; a batched value lines up with the region."""
    x, index, value = call.args
    p, batched = call.physical(x)
    entries = _index_entries(index)
    if not batched and isinstance(value, Tensor) and call.physical(value)[1]:
        raise inplace_into_unbatched("inplace arithmetic")
    if not batched or any(type(e) is BatchedTensor for e in entries) or call.kwargs:
        return NO_RULE
    full = (slice(None), *entries)
    pv, value_batched = call.physical(value) if isinstance(value, Tensor) else (value, False)
    if value_batched:
        pv = pad_batched(pv, p[full].dim() - 1)
    p[full] = pv
    return None


register(_setitem, ops.OPERATORS["__setitem__"])


def _gather(call: Call) -> Any:
    """gather/take_along_dim: the index is batched too (expanded when it is not), the dim shifted."""
    bound = call.bind()
    px, x_batched = call.physical(bound.arguments["input"])
    index = bound.arguments["index"]
    pi, i_batched = call.physical(index)
    if not x_batched:
        px = bound.arguments["input"].unsqueeze(0).expand(call.level.batch_size, *bound.arguments["input"].shape)
    if not i_batched:
        pi = index.unsqueeze(0).expand(call.level.batch_size, *index.shape)
    bound.arguments["input"], bound.arguments["index"] = px, pi
    bound.arguments["dim"] = wrap_dim(bound.arguments["dim"], px.dim() - 1) + 1
    return call.batched(call.apply(*bound.args, **bound.kwargs))


register(_gather, *functions("gather"))

