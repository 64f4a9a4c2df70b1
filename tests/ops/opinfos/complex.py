"""OpInfos of complex tensors (glassgrad/ops/complex_ops.py) and of real ops on complex inputs.

The generic tests draw real float64 inputs, so each function here builds its complex operands from real parts
(complex(a, b) or view_as_complex) and returns real tensors (view_as_real, abs, ...): forward values, first and
second derivatives and gradcheck then check the complex formulas and PyTorch's conjugate Wirtinger convention.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ..opinfo import ANY, POSITIVE, Domain, OpInfo, Shapes, broadcasting, fixed, unary
from .elementwise import inplace

AWAY_FROM_ZERO = Domain(-2.0, 2.0, kinks=(0.0,))  # parts of a complex number kept off the axes, where |z| has a kink
SIDE = dict(min_side=1, max_side=3)  # no empty tensors: PyTorch rejects some gradients of empty complex views for their strides


def pairs(min_dims: int = 0) -> st.SearchStrategy[Shapes]:
    """One real input of shape (*s, 2): the pairs view_as_complex reads."""
    return unary(min_dims=min_dims, **SIDE).map(lambda s: ((*s[0], 2),))


def two_complex() -> st.SearchStrategy[Shapes]:
    """Real and imaginary parts of two complex operands whose shapes broadcast."""
    return broadcasting(2, **SIDE).map(lambda s: (s[0], s[0], s[1], s[1]))


def c(m: Any, re: Any, im: Any) -> Any:
    return m.complex(re, im)


def binary_complex(name: str, op: Any, domains: Any = ANY, **kwargs: Any) -> OpInfo:
    """`op(z, w)` on two complex operands, seen through view_as_real."""
    return OpInfo(
        f"glassgrad.{name}", lambda m, a, b, x, y: m.view_as_real(op(c(m, a, b), c(m, x, y))), two_complex(),
        domains=domains, id=f"{name}_complex", **kwargs,
    )


def unary_complex(name: str, op: Any, domains: Any = AWAY_FROM_ZERO, **kwargs: Any) -> OpInfo:
    """`op(z)` on one complex operand, seen through view_as_real."""
    return OpInfo(
        f"glassgrad.{name}", lambda m, a, b: m.view_as_real(op(m, c(m, a, b))), broadcasting(2, **SIDE),
        domains=domains, id=f"{name}_complex", **kwargs,
    )


_view_as_real_copy = OpInfo(
    "glassgrad.view_as_real_copy", lambda m, x: m.view_as_real_copy(m.view_as_complex(x) * (1 - 2j)), pairs(),
    errors=(lambda m: m.view_as_real_copy(m.ones(2)),),
)
# PyTorch records no node for view_as_complex_copy and refuses a complex result to an input that requires grad
_view_as_complex_copy = OpInfo(
    "glassgrad.view_as_complex_copy", lambda m, x: m.view_as_real(m.view_as_complex_copy(x.detach()) * (1 - 2j)), pairs(),
    order=0,
    errors=(
        lambda m: m.view_as_complex_copy(m.ones(3, 2, requires_grad=True)),
        lambda m: m.view_as_complex_copy(m.ones(3, 3)),
        lambda m: m.view_as_complex_copy(m.ones(2, 4)[:, ::2]),
    ),
)
_view_as_complex = OpInfo(
    "glassgrad.view_as_complex", lambda m, x: m.view_as_real(m.view_as_complex(x) * (1 - 2j)), pairs(),
    also=("glassgrad.view_as_real",),
    errors=(
        lambda m: m.view_as_complex(m.ones(3, 3)),
        lambda m: m.view_as_complex(m.ones(2, dtype=m.int64)),
        lambda m: m.view_as_complex(m.ones(2, 4)[:, ::2]),
        lambda m: m.view_as_complex(m.ones(2, 3)[:, 1:]),
        lambda m: m.view_as_complex(m.ones(())),
        lambda m: m.view_as_real(m.ones(2)),
    ),
)
_complex = OpInfo(
    "glassgrad.complex", lambda m, a, b: m.view_as_real(m.complex(a, b)), broadcasting(2, **SIDE),
    errors=(
        lambda m: m.complex(m.ones(2), m.ones(2, dtype=m.float64)),
        lambda m: m.complex(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)),
        lambda m: m.complex(m.ones(2), m.ones(3)),
    ),
)
_polar = OpInfo(
    "glassgrad.polar", lambda m, r, t: m.view_as_real(m.polar(r, t)), broadcasting(2, **SIDE), domains=(POSITIVE, ANY),
    errors=(lambda m: m.polar(m.ones(2), m.ones(2, dtype=m.float64)),),
)
_sgn = OpInfo("glassgrad.sgn", lambda m, a, b: m.view_as_real(m.sgn(c(m, a, b))), broadcasting(2, **SIDE),
              domains=AWAY_FROM_ZERO, also=("Tensor.sgn",), id="sgn_complex")
_sgn_real = OpInfo("glassgrad.sgn", lambda m, x: m.sgn(x), domains=AWAY_FROM_ZERO, id="sgn_real")
_conj_physical = OpInfo(
    "glassgrad.conj_physical", lambda m, a, b: m.view_as_real(m.conj_physical(c(m, a, b)) * c(m, b, a)),
    broadcasting(2, **SIDE), also=("Tensor.conj_physical",),
)

OPS = [
    _view_as_real_copy,
    _view_as_complex_copy,
    _view_as_complex,
    _complex,
    _polar,
    OpInfo("glassgrad.real", lambda m, x: m.real(m.view_as_complex(x)) * 3, pairs()),
    OpInfo("glassgrad.real", lambda m, x: m.real(x), id="real_of_real"),
    OpInfo("glassgrad.imag", lambda m, x: m.imag(m.view_as_complex(x)) * 3, pairs(), errors=(lambda m: m.imag(m.ones(2)),)),
    OpInfo("glassgrad.abs", lambda m, a, b: c(m, a, b).abs(), broadcasting(2, **SIDE), domains=AWAY_FROM_ZERO,
           id="abs_complex"),
    OpInfo("glassgrad.angle", lambda m, a, b: c(m, a, b).angle(), broadcasting(2, **SIDE), domains=AWAY_FROM_ZERO,
           also=("Tensor.angle",), id="angle_complex"),
    OpInfo("glassgrad.angle", lambda m, x: m.angle(x), domains=AWAY_FROM_ZERO, id="angle_real"),
    OpInfo("glassgrad.angle", lambda m, x: m.angle(x.long()), order=0, id="angle_integer"),
    _sgn,
    _sgn_real,
    inplace(_sgn_real, "sgn_"),
    OpInfo("glassgrad.conj", lambda m, a, b: m.view_as_real(m.conj(c(m, a, b)) * c(m, b, a)), broadcasting(2, **SIDE),
           also=("Tensor.conj",)),
    OpInfo("glassgrad.conj", lambda m, x: m.conj(x) * 2, id="conj_real"),
    _conj_physical,
    OpInfo("Tensor.conj_physical_", lambda m, a, b: m.view_as_real(c(m, a, b).conj_physical_()), broadcasting(2, **SIDE),
           id="conj_physical_"),
    OpInfo("glassgrad.resolve_conj", lambda m, a, b: m.view_as_real(m.resolve_conj(c(m, a, b))), broadcasting(2, **SIDE),
           also=("Tensor.resolve_conj",)),
    OpInfo("glassgrad.resolve_neg", lambda m, x: m.resolve_neg(x) * 2, also=("Tensor.resolve_neg",)),
    # conj_physical_ records a node of its own even where the conjugate is the tensor itself (test_inplace_extra.py
    # checks the history it leaves)
    inplace(OpInfo("glassgrad.conj_physical", lambda m, x: m.conj_physical(x)), "conj_physical_", id="conj_physical_real_"),
    OpInfo("Tensor.conj_physical_", lambda m, x: x.long().conj_physical_(), order=0, id="conj_physical_int_"),
    OpInfo("glassgrad.isreal", lambda m, x: m.isreal(x), order=0, also=("Tensor.isreal",)),
    OpInfo("glassgrad.isreal", lambda m, a, b: m.isreal(c(m, a, b)), broadcasting(2, **SIDE), domains=Domain(-1, 1, integral=True),
           order=0, id="isreal_complex"),
    # adjoints: the transpose of the last two dims, conjugated (0-d: a deprecation warning, an error under -W error)
    OpInfo("glassgrad.adjoint", lambda m, x: m.adjoint(x), unary(min_dims=2), also=("Tensor.adjoint",),
           errors=(lambda m: m.adjoint(m.ones(3)),)),
    OpInfo("glassgrad.adjoint", lambda m, a, b: m.view_as_real(m.adjoint(c(m, a, b)).resolve_conj()),
           broadcasting(2, min_dims=2, **SIDE), id="adjoint_complex"),
    OpInfo("Tensor.H", lambda m, x: x.H, unary(min_dims=2, max_dims=2),
           errors=(lambda m: m.ones(3).H, lambda m: m.ones(2, 2, 2).H)),
    OpInfo("Tensor.H", lambda m, a, b: m.view_as_real(c(m, a, b).H.resolve_conj()), broadcasting(2, min_dims=2, max_dims=2, **SIDE),
           id="H_complex"),
    # On a 0-d tensor H, mH and adjoint only warn, once per process (TORCH_WARN_ONCE): not an error case to compare.
    OpInfo("Tensor.mH", lambda m, x: x.mH, unary(min_dims=2), errors=(lambda m: m.ones(3).mH,)),
    OpInfo("Tensor.mH", lambda m, a, b: m.view_as_real(c(m, a, b).mH.resolve_conj()), broadcasting(2, min_dims=2, **SIDE),
           id="mH_complex"),
    # real ops whose complex formulas complex_ops.py gives (PyTorch's, conjugated)
    binary_complex("mul", lambda z, w: z * w),
    binary_complex("div", lambda z, w: z / w, domains=(ANY, ANY, AWAY_FROM_ZERO, AWAY_FROM_ZERO)),
    OpInfo("glassgrad.mul", lambda m, x, a, b: m.view_as_real(x * c(m, a, b)), broadcasting(3, **SIDE), id="mul_real_complex"),
    unary_complex("exp", lambda m, z: m.exp(z)),
    unary_complex("log", lambda m, z: m.log(z)),
    unary_complex("sqrt", lambda m, z: m.sqrt(z)),
    unary_complex("reciprocal", lambda m, z: m.reciprocal(z)),
    unary_complex("pow", lambda m, z: z**3),
    OpInfo("glassgrad.matmul", lambda m, a, b, x, y: m.view_as_real(c(m, a, b) @ c(m, x, y)),
           fixed((2, 3), (2, 3), (3, 4), (3, 4)), id="matmul_complex"),
    OpInfo("glassgrad.matmul", lambda m, a, b, x, y: m.view_as_real(c(m, a, b) @ c(m, x, y)),
           fixed((2, 2, 3), (2, 2, 3), (2, 3, 2), (2, 3, 2)), id="bmm_complex"),
    OpInfo("glassgrad.matmul", lambda m, a, b, x, y: m.view_as_real(c(m, a, b) @ c(m, x, y)),
           fixed((3,), (3,), (3, 2), (3, 2)), id="vecmat_complex"),
    OpInfo("glassgrad.matmul", lambda m, a, b, x, y: m.view_as_real(c(m, a, b) @ c(m, x, y)),
           fixed((2, 3), (2, 3), (3,), (3,)), id="matvec_complex"),
    OpInfo("glassgrad.dot", lambda m, a, b, x, y: m.view_as_real(m.dot(c(m, a, b), c(m, x, y))),
           fixed((3,), (3,), (3,), (3,)), id="dot_complex"),
    OpInfo("glassgrad.vdot", lambda m, a, b, x, y: m.view_as_real(m.vdot(c(m, a, b), c(m, x, y))),
           fixed((3,), (3,), (3,), (3,)), id="vdot_complex"),
    OpInfo("glassgrad.linalg.vector_norm", lambda m, a, b: m.linalg.vector_norm(c(m, a, b), 3, dim=-1),
           broadcasting(2, min_dims=1, **SIDE), domains=AWAY_FROM_ZERO, id="vector_norm_complex"),
    OpInfo("glassgrad.einsum", lambda m, a, b, x, y: m.view_as_real(m.einsum("bij,jk->bik", c(m, a, b), c(m, x, y))),
           fixed((2, 2, 3), (2, 2, 3), (3, 2), (3, 2)), id="einsum_complex"),
    # linear ops, whose real formulas hold as written
    OpInfo("glassgrad.sum", lambda m, a, b: m.view_as_real(c(m, a, b).sum(-1) - c(m, b, a).mean()),
           broadcasting(2, min_dims=1, **SIDE), id="sum_complex"),
    OpInfo("glassgrad.cat", lambda m, x, a, b: m.view_as_real(m.cat([x.to(m.complex128), c(m, a, b)[..., 1:]]).flip(0)),
           broadcasting(3, min_dims=1, min_side=2, max_side=3).map(lambda s: (s[0],) * 3), id="cat_complex"),
    OpInfo("glassgrad.roll", lambda m, a, b: m.view_as_real(c(m, a, b).reshape(-1).roll(1).unsqueeze(0).t()[:, :1]),
           broadcasting(2, **SIDE), id="roll_complex"),
]
