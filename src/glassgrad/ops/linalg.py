"""Matrix products. Formulas hand transposed views to BLAS rather than copying."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .shape import mT, squeeze, unsqueeze
from .table import derivative

MmBackward0 = derivative(
    "MmBackward0", ("self", "mat2"),
    self=lambda grad, mat2: matmul(grad, mT(mat2)),
    mat2=lambda grad, self: matmul(mT(self), grad),
)
DotBackward0 = derivative(
    "DotBackward0", ("self", "tensor"),
    self=lambda grad, tensor: grad * tensor,
    tensor=lambda grad, self: grad * self,
)
MvBackward0 = derivative(
    "MvBackward0", ("self", "vec"),
    self=lambda grad, vec: unsqueeze(grad, -1) * vec,
    vec=lambda grad, self: _matvec_back(self, grad),
)
VmBackward = derivative(
    "MmBackward0", ("self", "mat2"),
    self=lambda grad, mat2: squeeze(matmul(unsqueeze(grad, -2), mT(mat2)), -2),
    mat2=lambda grad, self: unsqueeze(self, -1) * unsqueeze(grad, -2),
)
BmmBackward0 = derivative(
    "BmmBackward0", ("self", "mat2"),
    self=lambda grad, mat2: matmul(grad, mT(mat2)),
    mat2=lambda grad, self: matmul(mT(self), grad),
)


def _matvec_back(matrix: Tensor, grad: Tensor) -> Tensor:
    return squeeze(matmul(mT(matrix), unsqueeze(grad, -1)), -1)


def _check_dtypes(a: Tensor, b: Tensor, op: str) -> None:
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {a.dtype.name} != {b.dtype.name}"
            if op == "mm"
            else f"expected both operands of {op} to have the same dtype, but got {a.dtype.name} and {b.dtype.name}"
        )


def matmul(input: Tensor, other: Tensor) -> Tensor:
    for name, x in (("input", input), ("other", other)):
        if not isinstance(x, Tensor):
            raise TypeError(f"matmul(): argument '{name}' must be Tensor, not {type(x).__name__}")
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {input.ndim}D and {other.ndim}D"
        )
    _check_dtypes(input, other, "mm")
    a, b = input._data, other._data
    contracted = (a.shape[-1], b.shape[0] if b.ndim == 1 else b.shape[-2])
    if contracted[0] != contracted[1]:
        if a.ndim <= 2 and b.ndim <= 2:
            rows = a.shape[0] if a.ndim == 2 else 1
            cols = b.shape[1] if b.ndim == 2 else 1
            if a.ndim == 1 and b.ndim == 1:
                raise RuntimeError(
                    f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to have the "
                    "same number of elements, but got "
                    f"{a.shape[0]} and {b.shape[0]} elements respectively"
                )
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({rows}x{a.shape[-1]} and {contracted[1]}x{cols})"
            )
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b.shape[0] if b.ndim > 2 else 1}, "
            f"{a.shape[-1]}] but got: [{b.shape[0] if b.ndim > 2 else 1}, {contracted[1]}]."
        )
    try:
        out = np.matmul(a, b)
    except ValueError as err:
        raise RuntimeError(f"matmul: batch dimensions do not broadcast: {list(a.shape)} @ {list(b.shape)} ({err})") from None
    if a.ndim == 1 and b.ndim == 1:
        return DotBackward0.record(np.asarray(out), (input, other))
    if b.ndim == 1:
        return MvBackward0.record(out, (input, other))
    if a.ndim == 1:
        return VmBackward.record(out, (input, other))
    if a.ndim == 2 and b.ndim == 2:
        return MmBackward0.record(out, (input, other))
    return BmmBackward0.record(out, (input, other))


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError("self must be a matrix" if input.ndim != 2 else "mat2 must be a matrix")
    return matmul(input, mat2)


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if input.ndim != 3 else "batch2 must be a 3D tensor")
    return matmul(input, mat2)


def dot(input: Tensor, tensor: Tensor) -> Tensor:
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D tensors"
        )
    return matmul(input, tensor)


def mv(input: Tensor, vec: Tensor) -> Tensor:
    return matmul(input, vec)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS = {"matmul": matmul, "mm": mm, "bmm": bmm, "dot": dot, "mv": mv}
METHODS = dict(FUNCTIONS)
INPLACE = ()
