"""glassgrad.linalg's triangular solve and matrix exponential: solve_triangular, matrix_exp.

matrix_exp runs PyTorch's own algorithm (Bader, Blanes and Casas 2019, "Computing the matrix exponential with an
optimized Taylor polynomial approximation"): a Taylor polynomial of degree 1, 2, 4, 8, 12 or 18 chosen by the
1-norm, evaluated in few products, and for large norms scaling and squaring; so results, overflows and NaNs come
out as PyTorch's do. Its derivative is the block-matrix identity, written in glassgrad ops so that it
differentiates again.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from .._quiet import quietly
from ..tensor import Tensor
from .creation import zeros_like
from .elementwise import broadcast_shape, not_implemented_for
from .linalg_decomp import _check_matrix, _tril
from .shape import cat, narrow
from .table import derivative

NAMESPACE = "glassgrad.linalg"


# -- solve_triangular ---------------------------------------------------------------------------------
def _substitute(a: np.ndarray, b: np.ndarray, upper: bool, unit: bool) -> np.ndarray:
    """x with a @ x = b, one row of x at a time from the end a's triangle starts (back or forward substitution),
    each row for every batch and right-hand side at once. Only `a`'s triangle is read, and with `unit` not even its
    diagonal; a zero on the diagonal gives inf and NaN, as BLAS's trsm does, rather than an error."""
    n = a.shape[-1]
    x = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:], dtype=a.dtype)
    for i in range(n - 1, -1, -1) if upper else range(n):
        known = slice(i + 1, n) if upper else slice(0, i)
        row = b[..., i, :] - (a[..., i : i + 1, known] @ x[..., known, :])[..., 0, :]
        x[..., i, :] = row if unit else row / a[..., i, i, None]
    return x


def _triangle(a: Tensor, upper: bool, unitriangular: bool) -> Tensor:
    """The part of `a` that a triangular solve reads: its upper (lower) triangle, without the diagonal if unit."""
    offset = 1 if unitriangular else 0
    return _tril(a.mT, -offset).mT if upper else _tril(a, -offset)


def _solve_triangular_A_grad(grad: Tensor, self: Tensor, result: Tensor, upper: bool, left: bool, unitriangular: bool) -> Tensor:
    grad_B = solve_triangular(self.mT, grad, upper=not upper, left=left, unitriangular=unitriangular)
    return _triangle(-(grad_B @ result.mT if left else result.mT @ grad_B), upper, unitriangular)


LinalgSolveTriangularBackward0 = derivative(
    "LinalgSolveTriangularBackward0", ("self", "B"),
    self=_solve_triangular_A_grad,
    B=lambda grad, self, upper, left, unitriangular: solve_triangular(
        self.mT, grad, upper=not upper, left=left, unitriangular=unitriangular
    ),
)


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    """X with A X = B (X A = B if not left) for triangular A; the result has A's dtype, B is cast to it."""
    op = "linalg.solve_triangular"
    _check_matrix(A, op, floating=False)  # an integer A fails later, in the kernel, as in PyTorch
    _check_matrix(B, op, square=False, floating=False, name="B")
    if A.shape[-2 if left else -1] != B.shape[-2 if left else -1]:
        raise RuntimeError(
            f"{op}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
            f"({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})"
        )
    broadcast_shape(B.shape[:-2], A.shape[:-2])  # PyTorch's error names B's batch first
    if A.dtype not in (_dtype.float32, _dtype.float64):
        raise not_implemented_for("triangular_solve_cpu", A.dtype)
    a, b = A._data, B._data.astype(A._data.dtype, copy=False)
    if left:
        x = quietly(_substitute, a, b, upper, unitriangular)
    else:  # X A = B is A^T X^T = B^T, whose triangle is the other one
        x = quietly(_substitute, a.swapaxes(-1, -2), b.swapaxes(-1, -2), not upper, unitriangular).swapaxes(-1, -2)
    return LinalgSolveTriangularBackward0.record(x, (A, B), upper=upper, left=left, unitriangular=unitriangular)


# -- matrix_exp -----------------------------------------------------------------------------------------
# The 1-norm bounds up to which each degree (1, 2, 4, 8, 12, 18) is accurate to the dtype's precision.
_THETAS = {
    np.dtype(np.float32): (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02, 5.800524627688768e-01,
                           1.461661507209034e+00, 3.010066362817634e+00),
    np.dtype(np.float64): (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04, 4.991228871115323e-02,
                           2.996158913811580e-01, 1.090863719290036e+00),
}


def _degree_8_coefficients() -> dict[str, float]:
    """The paper's x1 .. x7 and y2 for the degree-8 polynomial, from sqrt(177)."""
    root, x3 = 0.1330413469565007072504e2, 2 / 3
    return {
        "x1": x3 * (1 + root) / 88, "x2": x3 * (1 + root) / 352, "x3": x3, "x4": (-271 + 29 * root) / (315 * x3),
        "x5": (-11 + 11 * root) / (1260 * x3), "x6": (-99 + 11 * root) / (5040 * x3), "x7": (89 - root) / (5040 * x3),
        "y2": (857 - 58 * root) / 630,
    }


_T8 = _degree_8_coefficients()
# The paper's coefficients of degrees 12 and 18: row i makes B_i from the powers I, A, A^2, A^3 (and A^6).
_T12 = (
    (9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
    (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031, 0.01108844528519167989),
    (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968, 0.00610700528898058230),
    (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359),
)
_T18 = (
    (0.0, -1.00365581030144618291e-01, -8.02924648241156932449e-03, -8.92138498045729985177e-04, 0.0),
    (0.0, 3.97849749499645077844e-01, 1.36783778460411720168e00, 4.98289622525382669416e-01, -6.37898194594723280150e-04),
    (-1.09676396052962061844e01, 1.68015813878906206114e00, 5.71779846478865511061e-02, -6.98210122488052056106e-03,
     3.34975017086070470649e-05),
    (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02, 2.95552570429315521194e-02,
     -1.39180257516060693404e-05),
    (0.0, 0.0, -9.23364619367118555360e-02, -1.69364939002081722752e-02, -1.40086798182036094347e-05),
)


def _powers(a: np.ndarray, count: int) -> list[np.ndarray]:
    """The first `count` of I, A, A^2, A^3, A^6."""
    powers = [np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape), a]
    if count > 2:
        powers.append(a @ a)
    if count > 3:
        powers.append(a @ powers[2])
    if count > 4:
        powers.append(powers[3] @ powers[3])
    return powers[:count]


def _combination(powers: list[np.ndarray], coefficients: tuple[float, ...]) -> np.ndarray:
    """sum c_i P_i, added in order and zero coefficients included (0 * inf is NaN there too), as PyTorch does."""
    out = coefficients[0] * powers[0]
    for c, p in zip(coefficients[1:], powers[1:], strict=True):
        out = out + c * p
    return out


def _taylor_1(a: np.ndarray) -> np.ndarray:
    eye, a1 = _powers(a, 2)
    return eye + a1


def _taylor_2(a: np.ndarray) -> np.ndarray:
    eye, a1, a2 = _powers(a, 3)
    return eye + a1 + a2 / 2


def _taylor_4(a: np.ndarray) -> np.ndarray:
    powers = _powers(a, 3)
    tail = powers[2] @ _combination(powers, (1 / 2, 1 / 6, 1 / 24))
    return _combination([*powers, tail], (1.0, 1.0, 0.0, 1.0))


def _taylor_8(a: np.ndarray) -> np.ndarray:
    c = _T8
    powers = _powers(a, 3)
    a4 = powers[2] @ _combination(powers[1:], (c["x1"], c["x2"]))
    a8 = _combination([powers[2], a4], (c["x3"], 1.0)) @ _combination([*powers, a4], (c["x4"], c["x5"], c["x6"], c["x7"]))
    return _combination([*powers, a4, a8], (1.0, 1.0, c["y2"], 0.0, 1.0))


def _taylor_12(a: np.ndarray) -> np.ndarray:
    powers = _powers(a, 4)
    b0, b1, b2, b3 = (_combination(powers, row) for row in _T12)
    a6 = b2 + b3 @ b3
    return b0 + (b1 + a6) @ a6


def _taylor_18(a: np.ndarray) -> np.ndarray:
    powers = _powers(a, 5)
    b0, b1, b2, b3, b4 = (_combination(powers, row) for row in _T18)
    a9 = b3 + b0 @ b4
    return b1 + (b2 + a9) @ a9


_TAYLOR = (_taylor_1, _taylor_2, _taylor_4, _taylor_8, _taylor_12)


def _scaled_and_squared(a: np.ndarray, norms: np.ndarray, theta: float) -> np.ndarray:
    """exp(a / 2^s)^(2^s), s the least that brings each norm under theta; a matrix with a non-finite norm is not
    squared (PyTorch's integer cast of an infinite s)."""
    s = np.maximum(np.ceil(np.log2(norms / theta)), 0)
    out = _taylor_18(a * np.power(np.asarray(2, a.dtype), -s)[:, None, None])
    squarings = np.where(np.isfinite(s), s, 0).astype(np.int64)
    for k in range(int(squarings.max(initial=0))):
        more = squarings > k
        out[more] = out[more] @ out[more]
    return out


def _matrix_exp(a: np.ndarray) -> np.ndarray:
    n = a.shape[-1]
    if n == 0:
        return a.copy()
    if n == 1:
        return np.exp(a)
    flat = a.reshape(-1, n, n)
    thetas = _THETAS[np.dtype(np.float32) if a.dtype == np.float32 else np.dtype(np.float64)]
    norms = np.abs(flat).sum(-2).max(-1)
    if len(flat) != 1:  # batches always take the degree-18 polynomial, scaled as needed
        return _scaled_and_squared(flat, norms, thetas[-1]).reshape(a.shape)
    norm = norms[0]
    if norm >= thetas[-2]:
        return _scaled_and_squared(flat, norms, thetas[-1]).reshape(a.shape)
    for theta, taylor in zip(thetas, _TAYLOR, strict=False):
        if norm <= theta:
            return taylor(flat).reshape(a.shape)
    return np.full_like(a, math.nan)  # a NaN norm: no degree applies


def _matrix_exp_backward(grad: Tensor, self: Tensor) -> Tensor:
    """exp([[A^T, G], [0, A^T]]) holds the adjoint of exp's differential at A, applied to G, in its top right block
    (Mathias 1996). In glassgrad ops it differentiates again, each order on a matrix twice as large."""
    n = self.shape[-1]
    transposed = self.mT
    blocks = cat([cat([transposed, grad], -1), cat([zeros_like(transposed), transposed], -1)], -2)
    return narrow(narrow(matrix_exp(blocks), -2, 0, n), -1, n, n)


LinalgMatrixExpBackward0 = derivative("LinalgMatrixExpBackward0", ("self",), self=_matrix_exp_backward)


def matrix_exp(A: Tensor) -> Tensor:
    _check_matrix(A, "linalg.matrix_exp")
    return LinalgMatrixExpBackward0.record(quietly(_matrix_exp, A._data), (A,))


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Callable[..., Any]] = {"solve_triangular": solve_triangular, "matrix_exp": matrix_exp}
METHODS: dict[str, Callable[..., Any]] = {"matrix_exp": matrix_exp}
ALSO = {"glassgrad": {"matrix_exp": matrix_exp}}
INPLACE: tuple[str, ...] = ()
