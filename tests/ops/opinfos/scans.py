"""OpInfos of the scans of glassgrad/ops/scans.py: logcumsumexp, cummax, cummin, diff."""

from __future__ import annotations

from typing import Any

from ..opinfo import Domain, OpInfo, index, unary
from .shape import _joinable

TIES = Domain(-2, 2, integral=True)  # equal neighbours: which index cummax keeps is compared with PyTorch's
VECTORS = unary(min_dims=1)
MATRIX = unary(min_dims=2)
BELOW = Domain(-3, 3, kinks=(-1.0,))


def _minus_inf_below(m: Any, x: Any) -> Any:
    """x with -inf wherever it was below -1: whole prefixes of -inf, where logcumsumexp must not make NaN."""
    return m.where(x < -1, float("-inf"), x)


def _nan_above(m: Any, x: Any) -> Any:
    return m.where(x > 1, float("nan"), x)


OPS = [
    OpInfo("glassgrad.logcumsumexp", lambda m, x: m.logcumsumexp(x, -1), domains=Domain(-5, 5), also=("Tensor.logcumsumexp",),
           errors=(lambda m: m.logcumsumexp(m.ones(2, dtype=m.int64), 0), lambda m: m.logcumsumexp(m.ones(2), 1))),
    OpInfo("glassgrad.logcumsumexp", lambda m, x: m.logcumsumexp(x, 1), shapes=MATRIX, id="logcumsumexp_dim1"),
    OpInfo("glassgrad.logcumsumexp", lambda m, x: m.logcumsumexp(x * 400, 0), id="logcumsumexp_large"),  # exp overflows
    OpInfo("glassgrad.logcumsumexp", lambda m, x: m.logcumsumexp(_minus_inf_below(m, x), 0), domains=BELOW,
           id="logcumsumexp_minus_inf"),
    *(op for name in ("cummax", "cummin") for op in (
        OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(x, 0), also=(f"Tensor.{name}",),
               errors=(lambda m, name=name: getattr(m, name)(m.ones(2), 1),)),
        OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(x, -1), shapes=MATRIX, id=f"{name}_last"),
        OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(x, 1), shapes=MATRIX, domains=TIES, order=0,
               id=f"{name}_ties"),
        OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(_nan_above(m, x), -1), domains=Domain(kinks=(1.0,)),
               id=f"{name}_nan"),
        OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(x, 0), domains=index(2, -2), order=0, id=f"{name}_int"),
        OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(x, 0), domains=Domain(dtype="bool"), order=0,
               id=f"{name}_bool"),
    )),
    OpInfo("glassgrad.diff", lambda m, x: m.diff(x), shapes=VECTORS, also=("Tensor.diff",), errors=(
        lambda m: m.diff(m.ones(2), n=-1), lambda m: m.diff(m.ones(())), lambda m: m.diff(m.ones(2, 3), prepend=m.ones(2)),
        lambda m: m.diff(m.ones(2, 3), append=m.ones(3, 1)), lambda m: m.diff(m.ones(2, 3), dim=2),
        lambda m: m.diff(m.ones(2), prepend=1.0),
    )),
    OpInfo("glassgrad.diff", lambda m, x: x.diff(2, 0), shapes=VECTORS, id="diff_n2_dim0"),
    OpInfo("glassgrad.diff", lambda m, x: m.diff(x, n=0), shapes=VECTORS, id="diff_n0"),
    OpInfo("glassgrad.diff", lambda m, x: m.diff(x, n=5), shapes=VECTORS, id="diff_past_size"),
    OpInfo("glassgrad.diff", lambda m, p, x, a: m.diff(x, 2, 0, prepend=p, append=a), shapes=_joinable(3), id="diff_prepend_append"),
    OpInfo("glassgrad.diff", lambda m, x, a: m.diff(x, dim=0, append=a), shapes=_joinable(2), id="diff_append"),
    OpInfo("glassgrad.diff", lambda m, x: m.diff(x, n=2), shapes=VECTORS, domains=Domain(dtype="bool"), order=0, id="diff_bool"),
    OpInfo("glassgrad.diff", lambda m, p, x: m.diff(x, 1, 0, prepend=p), shapes=_joinable(2), domains=(Domain(), index(3, -3)),
           id="diff_int_float_prepend"),
]
