"""Complex tensors: the real and complex views of one storage, parts, conjugates, polar form, and the complex
formulas of the real ops that complex code leans on (products, quotients, exp, log, powers, matrix products).

Gradients follow PyTorch's convention: a tensor's gradient is the conjugate Wirtinger derivative of a real loss
(dL/dx + i dL/dy for z = x + iy), so a holomorphic op's formula is the real one with its factors conjugated, and a
real input of a complex op receives the real part (ComplexOpNode in table.py).

glassgrad's conj() computes the conjugate where PyTorch's sets a lazy bit on a view: values and gradients agree,
but is_conj() is always False and writing into a conj() result does not reach the original.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from .._quiet import quietly
from ..autograd import grad_mode
from ..tensor import Tensor
from . import elementwise, linalg
from .creation import zeros_like
from .elementwise import require_tensor, where
from .linalg import matmul_transposed
from .shape import as_view, mT, select, squeeze, unsqueeze
from .table import complex_derivative, for_complex

_COMPLEX_UNIT = 1j


def _require_complex(op: str, input: Tensor) -> Tensor:
    if not require_tensor(op, "input", 1, input).is_complex():
        raise RuntimeError(f"{op} is only supported for complex tensors")
    return input


# -- the real and complex views of one storage ----------------------------------------------------------------
ViewAsRealBackward0 = complex_derivative("ViewAsRealBackward0", self=lambda grad: view_as_complex(grad.contiguous()))
ViewAsComplexBackward0 = complex_derivative("ViewAsComplexBackward0", self=lambda grad: view_as_real(grad))


ViewAsRealCopyBackward0 = complex_derivative("ViewAsRealBackward0_copy", self=ViewAsRealBackward0.formulas["self"])


def _real_pairs(op: str, input: Tensor) -> np.ndarray:
    data = _require_complex(op, input)._data
    return data[..., None].view(data.real.dtype)


def _complex_pairs(input: Tensor) -> np.ndarray:
    """The complex numbers a real tensor's last dimension pairs up, or PyTorch's error for the tensor it cannot view."""
    data = require_tensor("view_as_complex", "input", 1, input)._data
    if data.dtype not in (np.float32, np.float64):
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar type: "
            f"{input.dtype.scalar_name}" + (" (glassgrad has no complex32)" if data.dtype == np.float16 else "")
        )
    if data.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if data.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if data.size and data.strides[-1] != data.itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if data.size and any(s % (2 * data.itemsize) for s, n in zip(data.strides[:-1], data.shape[:-1], strict=True) if n > 1):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    return data.view(np.result_type(data.dtype, np.complex64))[..., 0]


def view_as_real(input: Tensor) -> Tensor:
    """The complex tensor's storage as real pairs: a view of shape (*input.shape, 2)."""
    return as_view(ViewAsRealBackward0.record(_real_pairs("view_as_real", input), (input,)), input, view_as_real)


def view_as_complex(input: Tensor) -> Tensor:
    """Real pairs along the last dimension as complex numbers: a view of shape input.shape[:-1]."""
    return as_view(ViewAsComplexBackward0.record(_complex_pairs(input), (input,)), input, view_as_complex)


def view_as_real_copy(input: Tensor) -> Tensor:
    """view_as_real's values in a tensor of their own."""
    return ViewAsRealCopyBackward0.record(_real_pairs("view_as_real", input).copy(), (input,))


def view_as_complex_copy(input: Tensor) -> Tensor:
    """view_as_complex's values in a tensor of their own; PyTorch has no derivative for it and refuses to record one."""
    out = _complex_pairs(input).copy()
    if grad_mode.state.grad_enabled and input.requires_grad:
        raise RuntimeError("view_as_complex_copy does not support automatic differentiation for outputs with complex dtype.")
    return Tensor._wrap(out)


def real(input: Tensor) -> Tensor:
    """The real part, a view (PyTorch's select of view_as_real); a real tensor is its own real part."""
    if not require_tensor("real", "input", 1, input).is_complex():
        return input
    return select(view_as_real(input), -1, 0)


def imag(input: Tensor) -> Tensor:
    if not require_tensor("imag", "input", 1, input).is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return select(view_as_real(input), -1, 1)


# -- conjugates ------------------------------------------------------------------------------------------------
ConjBackward0 = complex_derivative("ConjBackward0", self=lambda grad: conj(grad))
ConjPhysicalBackward0 = complex_derivative("ConjPhysicalBackward0", self=lambda grad: conj_physical(grad))
ConjPhysicalBackward1 = complex_derivative("ConjPhysicalBackward1", self=lambda grad: conj_physical(grad))


def conj(input: Tensor) -> Tensor:
    """The complex conjugate; a real tensor is returned as it is, as in PyTorch."""
    if not require_tensor("conj", "input", 1, input).is_complex():
        return input
    return ConjBackward0.record(np.conj(input._data), (input,))


def conj_physical(input: Tensor) -> Tensor:
    if not require_tensor("conj_physical", "input", 1, input).is_complex():
        return input
    return ConjPhysicalBackward0.record(np.conj(input._data), (input,))


def _conj_physical_in_place(input: Tensor) -> Tensor:
    """What conj_physical_ computes: a new node even for a real tensor, whose out-of-place conjugate is itself."""
    return ConjPhysicalBackward1.record(np.conj(require_tensor("conj_physical_", "input", 1, input)._data), (input,))


def resolve_conj(input: Tensor) -> Tensor:
    """No glassgrad tensor carries a lazy conjugate (conj() computes it), so there is nothing to resolve."""
    return require_tensor("resolve_conj", "input", 1, input)


def resolve_neg(input: Tensor) -> Tensor:
    return require_tensor("resolve_neg", "input", 1, input)


def isreal(input: Tensor) -> Tensor:
    """Where the imaginary part is 0: everywhere for a real tensor."""
    data = require_tensor("isreal", "input", 1, input)._data
    return Tensor._wrap(data.imag == 0 if data.dtype.kind == "c" else np.ones(data.shape, np.bool_))


# -- adjoints: the conjugate transpose of the last two dims ----------------------------------------------------
def _adjoint(input: Tensor, what: str, batches: bool) -> Tensor:
    """`what` is how PyTorch's messages name the op; `batches`: whether more than two dims are allowed (mH, adjoint)."""
    ndim = require_tensor(what, "input", 1, input).ndim
    if ndim == 0:
        name = "adjoint()" if what == "adjoint" else f"Tensor.{what}"
        warnings.warn(f"{name} is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=3)
        return conj(input)
    if ndim == 1 or (ndim > 2 and not batches):
        subject = "tensor.adjoint()" if what == "adjoint" else f"tensor.{what}"
        if batches:
            raise RuntimeError(f"{subject} is only supported on matrices or batches of matrices. Got 1-D tensor.")
        hint = ". For batches of matrices, consider using tensor.mH" if ndim > 2 else "."
        raise RuntimeError(f"{subject} is only supported on matrices (2-D tensors). Got {ndim}-D tensor{hint}")
    return conj(mT(input))


def adjoint(input: Tensor) -> Tensor:
    return _adjoint(input, "adjoint", batches=True)


def matrix_H(input: Tensor) -> Tensor:
    return _adjoint(input, "H", batches=False)


def matrix_mH(input: Tensor) -> Tensor:
    return _adjoint(input, "mH", batches=True)


# -- magnitude, phase, sign ------------------------------------------------------------------------------------
def _sgn_grad(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    if not self.is_complex():
        return zeros_like(grad)
    magnitude = abs(self)
    return where(magnitude == 0, 0.0, (grad - (result * result) * conj(grad)) / (2 * magnitude))


def _angle_grad(grad: Tensor, self: Tensor) -> Tensor:
    if not self.is_complex():
        return zeros_like(self)
    return where(self == 0, 0.0, grad * self / elementwise.pow(abs(self), 2) * _COMPLEX_UNIT)


ComplexAbsBackward0 = complex_derivative("AbsBackward0", self=lambda grad, self: grad * sgn(self))
SgnBackward0 = complex_derivative("SgnBackward0", self=_sgn_grad)
AngleBackward0 = complex_derivative("AngleBackward0", self=_angle_grad)


def abs(input: Tensor) -> Tensor:
    """|z| of a complex tensor, in its real dtype (elementwise.abs hands complex tensors here)."""
    return ComplexAbsBackward0.record(np.abs(input._data), (input,))


def _sgn_kernel(x: np.ndarray) -> np.ndarray:
    magnitude = np.abs(x)
    return np.where(magnitude == 0, 0, x / np.where(magnitude == 0, 1, magnitude)).astype(x.dtype)


def sgn(input: Tensor) -> Tensor:
    """z / |z| (0 at 0); for real tensors, sign."""
    if not require_tensor("sgn", "input", 1, input).is_complex():
        if input.dtype is _dtype.bool_:
            return SgnBackward0.record(input._data.copy(), (input,))
        return SgnBackward0.record(np.sign(input._data), (input,))
    return SgnBackward0.record(quietly(_sgn_kernel, input._data), (input,))


def angle(input: Tensor) -> Tensor:
    """The argument of each element; for real tensors pi where negative, 0 elsewhere (in the default float dtype
    for integers)."""
    data = require_tensor("angle", "input", 1, input)._data
    if data.dtype.kind == "c":
        out = np.angle(data)
    else:
        target = elementwise._floating(input.dtype).np
        out = np.where(np.isnan(data), data, np.where(data < 0, np.pi, 0.0)).astype(target)
    return AngleBackward0.record(out, (input,))


# -- building complex tensors ----------------------------------------------------------------------------------
ComplexBackward0 = complex_derivative(
    "ComplexBackward0", ("real", "imag"), real=lambda grad: real(grad), imag=lambda grad: imag(grad)
)


def _polar_grads(grad: Tensor, result: Tensor) -> tuple[Tensor, Tensor]:
    grad_conj = conj(grad)
    return real(grad_conj * sgn(result)), real(grad_conj * (result * _COMPLEX_UNIT))


PolarBackward0 = complex_derivative(
    "PolarBackward0", ("abs", "angle"),
    abs=lambda grad, result: _polar_grads(grad, result)[0],
    angle=lambda grad, result: _polar_grads(grad, result)[1],
)


def _complex_parts(op: str, first: Tensor, second: Tensor, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    require_tensor(op, names[0], 1, first)
    require_tensor(op, names[1], 2, second)
    a, b = first._data, second._data
    if a.dtype.kind != "f" or b.dtype.kind != "f":
        raise RuntimeError(
            f"Expected both inputs to be Half, Float or Double tensors but got {first.dtype.scalar_name} and "
            f"{second.dtype.scalar_name}"
        )
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"Expected object of scalar type {first.dtype.scalar_name} but got scalar type {second.dtype.scalar_name} "
            "for second argument"
        )
    first.dtype.to_complex()  # float16 has no complex dtype here: say so
    elementwise.broadcast_shape(a.shape, b.shape)
    return a, b


def complex(real: Tensor, imag: Tensor) -> Tensor:
    a, b = _complex_parts("complex", real, imag, ("real", "imag"))
    out = np.empty(np.broadcast_shapes(a.shape, b.shape), np.result_type(a.dtype, np.complex64))
    out.real, out.imag = a, b
    return ComplexBackward0.record(out, (real, imag))


def polar(abs: Tensor, angle: Tensor) -> Tensor:
    a, b = _complex_parts("polar", abs, angle, ("abs", "angle"))
    out = quietly(lambda r, t: (r * np.exp(1j * t)).astype(np.result_type(r.dtype, np.complex64)), a, b)
    return PolarBackward0.record(out, (abs, angle))


# -- complex formulas of real ops (PyTorch's, whose conjugates vanish on real tensors) -------------------------
# The holomorphic elementwise ops need none here (table.HOLOMORPHIC); acosh's real formula takes the wrong branch.
for_complex(
    elementwise.AcoshBackward0,
    self=lambda grad, self: grad * conj(elementwise.rsqrt(self + 1) * elementwise.rsqrt(self - 1)),
)


def _conj_transposed_product(grad: Tensor, other: Tensor, other_first: bool) -> Tensor:
    """grad @ other^H, or other^H @ grad: a matrix product's gradient."""
    if other_first:
        return matmul_transposed(conj(other), grad, transpose_a=True)
    return matmul_transposed(grad, conj(other), transpose_b=True)


for entry in (linalg.MmBackward0, linalg.BmmBackward0):
    for_complex(
        entry,
        self=lambda grad, mat2: _conj_transposed_product(grad, mat2, False),
        mat2=lambda grad, self: _conj_transposed_product(grad, self, True),
    )
for_complex(
    linalg.VmBackward,
    self=lambda grad, mat2: squeeze(linalg.matmul(unsqueeze(grad, -2), conj(mT(mat2))), -2),
    mat2=lambda grad, self: unsqueeze(conj(self), -1) * unsqueeze(grad, -2),
)
for_complex(
    linalg.DotBackward0, self=lambda grad, tensor: grad * conj(tensor), tensor=lambda grad, self: grad * conj(self)
)
for_complex(linalg.VdotBackward0, self=lambda grad, other: conj(grad) * other, other=lambda grad, self: grad * self)
for_complex(
    linalg.EinsumBackward0,
    self=lambda grad, other, spec, self_shape: linalg._einsum_grad(grad, spec[2], ((conj(other), spec[1]),), spec[0], self_shape),
    other=lambda grad, self, spec, other_shape: linalg._einsum_grad(grad, spec[2], ((conj(self), spec[0]),), spec[1], other_shape),
)
for_complex(linalg.UnaryEinsumBackward0, **linalg.UnaryEinsumBackward0.formulas)  # linear: holds as written
for_complex(
    linalg.MvBackward0,
    self=lambda grad, vec: unsqueeze(grad, -1) * conj(vec),
    vec=lambda grad, self: squeeze(linalg.matmul(conj(mT(self)), unsqueeze(grad, -1)), -1),
)


# -- what this module exports (collected by ops/__init__.py) ----------------------------------------------------
_BOTH: dict[str, Callable[..., Any]] = {
    "conj": conj, "conj_physical": conj_physical, "resolve_conj": resolve_conj, "resolve_neg": resolve_neg,
    "sgn": sgn, "angle": angle, "isreal": isreal, "adjoint": adjoint,
}
FUNCTIONS: dict[str, Callable[..., Any]] = {
    **_BOTH, "view_as_real": view_as_real, "view_as_complex": view_as_complex, "real": real, "imag": imag,
    "view_as_real_copy": view_as_real_copy, "view_as_complex_copy": view_as_complex_copy,
    "complex": complex, "polar": polar,
}
METHODS: dict[str, Callable[..., Any]] = dict(_BOTH)
INPLACE: tuple[str, ...] = ("sgn", "conj_physical")
INPLACE_KERNELS: dict[str, Callable[..., Any]] = {"conj_physical": _conj_physical_in_place}
PROPERTIES: dict[str, Callable[[Tensor], Tensor]] = {"real": real, "imag": imag, "H": matrix_H, "mH": matrix_mH}
