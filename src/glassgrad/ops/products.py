"""More products: addbmm and addr (fused like addmm, one node each), inner, linalg.vecdot, linalg.diagonal, and the
Vandermonde matrices (torch.vander, linalg.vander), which PyTorch composes of a cumprod and a cat."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from .._dtype import result_type
from ..tensor import Tensor
from .creation import ones
from .linalg import _fused, _matvec_back, _scaled, matmul, tensordot, vdot
from .rearrange import diagonal, flip
from .reduction import cumprod
from .reduction import sum as reduce_sum
from .shape import cat, expand, mT, narrow, unsqueeze
from .table import derivative

NAMESPACE = "glassgrad.linalg"


# -- addbmm, addr ---------------------------------------------------------------------------------------
AddbmmBackward0 = derivative(
    "AddbmmBackward0", ("self", "batch1", "batch2"),
    self=lambda grad, beta: _scaled(grad, beta),
    batch1=lambda grad, batch2, alpha: _scaled(matmul(unsqueeze(grad, 0), mT(batch2)), alpha),
    batch2=lambda grad, batch1, alpha: _scaled(matmul(mT(batch1), unsqueeze(grad, 0)), alpha),
)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """beta * input + alpha * the sum over the batch of batch1 @ batch2."""
    for x in (batch1, batch2):
        if x.ndim != 3:  # PyTorch reads size(2) before it checks
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(x.ndim, 1)}, {max(x.ndim, 1) - 1}], but got 2)")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} and {batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})"
        )
    if batch1.dtype is not batch2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {batch1.dtype.scalar_name} and {batch2.dtype.scalar_name}")
    product = Tensor._wrap(np.matmul(batch1._data, batch2._data).sum(0, dtype=batch1._data.dtype))
    return _fused(AddbmmBackward0, input, product, (batch1, batch2), beta, alpha)


AddrBackward0 = derivative(
    "AddrBackward0", ("self", "vec1", "vec2"),
    self=lambda grad, beta: _scaled(grad, beta),
    vec1=lambda grad, vec2, alpha: _scaled(_matvec_back(mT(grad), vec2), alpha),
    vec2=lambda grad, vec1, alpha: _scaled(_matvec_back(grad, vec1), alpha),
)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2), in the three tensors' common dtype."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    common = result_type(input, vec1, vec2)
    if not common.is_floating_point and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    shape = (vec1.shape[0], vec2.shape[0])
    expand(input, shape)  # PyTorch's error where input does not broadcast to the product
    a, b = (v._data.astype(common.np, copy=False) for v in (vec1, vec2))
    out = np.multiply.outer(a, b)
    out = out * alpha if alpha != 1 else out
    if beta != 0:  # beta == 0 ignores input's values, NaN included
        c = input._data.astype(common.np, copy=False)
        out = out + (c * beta if beta != 1 else c)
    return AddrBackward0.record(np.asarray(np.broadcast_to(out, shape), dtype=common.np), (input, vec1, vec2), beta=beta, alpha=alpha)



# -- inner, vecdot, diagonal ----------------------------------------------------------------------------
def inner(input: Tensor, other: Tensor) -> Tensor:
    """The sum of products over the last dims of both (a product when either is 0-d)."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.dtype is not other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes {list(input.shape)} and "
            f"{list(other.shape)}"
        )
    return tensordot(input, other, ([-1], [-1]))


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot products of x and y along dim, broadcast: vdot for two vectors, else (x * y).sum(dim), as PyTorch."""
    if x.dtype is not y.dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type {x.dtype.scalar_name} and y of "
            f"type {y.dtype.scalar_name} instead"
        )
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got {x.dtype.scalar_name}")
    if x.ndim == 1 and y.ndim == 1:
        return vdot(x, y)
    return reduce_sum(x * y, dim)


def linalg_diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    return diagonal(A, offset, dim1, dim2)


# -- Vandermonde matrices -------------------------------------------------------------------------------
def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """torch.vander: the columns are powers of x, decreasing unless `increasing`."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    powers = _powers(x, n, _promoted_to_long(x))
    return powers if increasing else flip(powers, 1)


def linalg_vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """linalg.vander: x^0 .. x^(N-1) along a new last dim, for each element of x (batched)."""
    integral = not x.dtype.is_floating_point and x.dtype is not _dtype.bool_
    if not (integral or x.dtype in (_dtype.float32, _dtype.float64)):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, but got {x.dtype.scalar_name}")
    x = unsqueeze(x, -1) if x.ndim == 0 else x
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    return _powers(x, n, _promoted_to_long(x))


def _promoted_to_long(x: Tensor) -> Any:
    return x.dtype if x.dtype.is_floating_point else _dtype.int64


def _powers(x: Tensor, n: int, dtype: Any) -> Tensor:
    """x^0 .. x^(n-1) along a new last dim: a row of ones and a cumprod, as PyTorch composes it."""
    ones_column = ones((*x.shape, 1), dtype=dtype)
    if n <= 1:
        return narrow(ones_column, -1, 0, n)
    return cat([ones_column, cumprod(expand(unsqueeze(x, -1), (*x.shape, n - 1)), -1, dtype=dtype)], -1)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
_BOTH: dict[str, Callable[..., Any]] = {"addbmm": addbmm, "addr": addr, "inner": inner}
FUNCTIONS: dict[str, Callable[..., Any]] = {"vecdot": vecdot, "vander": linalg_vander, "diagonal": linalg_diagonal}
ALSO = {"glassgrad": {**_BOTH, "vander": vander}}
METHODS: dict[str, Callable[..., Any]] = dict(_BOTH)
INPLACE = ("addbmm", "addr")
