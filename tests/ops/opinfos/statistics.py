"""OpInfos of statistics (glassgrad/ops/statistics.py, histograms.py, scans.py's trapezoids and gradient, sorting.py's
nanmedian).

NaN-ignoring ops get their NaNs inside `fn` (where the drawn value is above 1.2), so that the gradient also flows
around them. Histograms draw integral values half the time, so that many land on bin edges, where the rules of
PyTorch's kernel decide.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from ..opinfo import ANY, POSITIVE, Domain, OpInfo, broadcasting, fixed, index, unary

_TIES = Domain(-2, 2, integral=True)  # many equal values: ties in extremes, values on bin edges
_NONEMPTY = unary(min_side=1)


def _with_nans(m: Any, x: Any) -> Any:
    return m.where(x > 1.2, math.nan, x)


def _quantile(name: str, interpolation: str, nans: bool) -> OpInfo:
    def fn(m: Any, x: Any) -> Any:
        q = m.tensor([0.0, 0.3, 0.5, 1.0], dtype=x.dtype)
        y = _with_nans(m, x) if nans else x
        return getattr(m, name)(y, q, dim=-1, keepdim=True, interpolation=interpolation)

    first = interpolation == "linear" and not nans
    return OpInfo(f"glassgrad.{name}", fn, shapes=unary(1, 3, min_side=1), id=f"{name}_{interpolation}{'_nan' if nans else ''}",
                  also=(f"Tensor.{name}",) if first else (), errors=_QUANTILE_ERRORS if first else ())


_QUANTILE_ERRORS = (
    lambda m: m.quantile(m.zeros(3), 1.5), lambda m: m.quantile(m.zeros(3), m.zeros(2, 2)),
    lambda m: m.quantile(m.zeros(3), m.tensor([0.5], dtype=m.float64)), lambda m: m.quantile(m.tensor([1, 2]), 0.5),
    lambda m: m.quantile(m.zeros(3), 0.5, interpolation="foo"), lambda m: m.quantile(m.zeros(0), 0.5),
    lambda m: m.nanquantile(m.zeros(3), m.tensor([2.0])),
)


def _flat(result: Any) -> tuple[Any, ...]:
    """histogramdd's (hist, (edges, ...)) as one flat tuple, as the generic tests compare outputs."""
    return (result.hist, *result.bin_edges)


def _histc(m: Any, x: Any) -> Any:
    return m.histc(x, 5), m.histc(x.float(), 7, min=-1, max=1.5)


_COV_ERRORS = (
    lambda m: m.cov(m.zeros(2, 2, 2)), lambda m: m.cov(m.ones(3, 2, dtype=m.bool)),
    lambda m: m.cov(m.zeros(4, 6), fweights=m.ones(6)), lambda m: m.cov(m.zeros(4, 6), fweights=m.tensor([1, -1, 1, 1, 1, 1])),
    lambda m: m.cov(m.zeros(4, 6), fweights=m.ones(1, 6, dtype=m.int64)), lambda m: m.cov(m.zeros(4, 6), fweights=m.ones(5, dtype=m.int64)),
    lambda m: m.cov(m.zeros(4, 6), aweights=m.ones(6, dtype=m.int64)), lambda m: m.cov(m.zeros(4, 6), aweights=-m.ones(6)),
    lambda m: m.cov(m.zeros(4, 6), correction=7),  # a UserWarning, an error under the test-suite's warning filter
)
_HISTOGRAM_ERRORS = (
    lambda m: m.histogram(m.tensor([1, 2]), 3), lambda m: m.histogram(m.tensor([1.0, 2]), m.tensor([1.0], dtype=m.float64)),
    lambda m: m.histogram(m.tensor([1.0, 2]), m.tensor([])), lambda m: m.histogram(m.tensor([1.0, 2]), m.tensor([[1.0, 2]])),
    lambda m: m.histogram(m.tensor([1.0, 2]), 0), lambda m: m.histogram(m.tensor([1.0, 2]), 2, range=(3.0, 1.0)),
    lambda m: m.histogram(m.tensor([1.0, 2]), 2, weight=m.ones(3)), lambda m: m.histogram(m.tensor([1.0, math.inf]), 2),
    lambda m: m.histogram(m.tensor([1.0, 2]), 2, weight=m.ones(2, dtype=m.float64)),
)

OPS = [
    # -- aminmax, nanmedian ------------------------------------------------------------------------------
    OpInfo("glassgrad.aminmax", lambda m, x: m.aminmax(x), shapes=_NONEMPTY, also=("Tensor.aminmax",),
           errors=(lambda m: m.aminmax(m.zeros(0)), lambda m: m.aminmax(m.zeros(0, 3), dim=0))),
    OpInfo("glassgrad.aminmax", lambda m, x: m.aminmax(x, dim=-1, keepdim=True), domains=_TIES, shapes=_NONEMPTY, id="aminmax_dim_ties"),
    OpInfo("glassgrad.aminmax", lambda m, x: x.aminmax(dim=0), domains=Domain(-3, 3, dtype="int64"), order=0, id="aminmax_int"),
    OpInfo("glassgrad.nanmedian", lambda m, x: m.nanmedian(_with_nans(m, x)), also=("Tensor.nanmedian",),
           errors=(lambda m: m.nanmedian(m.tensor([True]), 0), lambda m: m.nanmedian(m.zeros(0, 2), 0))),
    OpInfo("glassgrad.nanmedian", lambda m, x: m.nanmedian(_with_nans(m, x), -1, keepdim=True), shapes=_NONEMPTY, id="nanmedian_dim"),
    OpInfo("glassgrad.nanmedian", lambda m, x: m.nanmedian(_with_nans(m, x), 0), domains=_TIES, shapes=_NONEMPTY, id="nanmedian_ties"),
    OpInfo("glassgrad.nanmedian", lambda m, x: m.nanmedian(m.where(x > 0, math.nan, x), 0), domains=_TIES, shapes=_NONEMPTY, order=0,
           id="nanmedian_all_nan_rows"),
    # -- quantile, nanquantile ----------------------------------------------------------------------------
    *(_quantile(name, mode, nans) for name in ("quantile", "nanquantile") for mode in ("linear", "lower", "higher", "midpoint", "nearest")
      for nans in (False, True)),
    OpInfo("glassgrad.quantile", lambda m, x: m.quantile(x, 0.7), shapes=_NONEMPTY, id="quantile_flat"),
    OpInfo("glassgrad.quantile", lambda m, x, q: m.quantile(x, q, dim=0), shapes=st.tuples(unary(1, 2, min_side=1).map(lambda s: s[0]), st.just((3,))),
           domains=(ANY, Domain(0.0, 1.0)), id="quantile_gradient_to_q"),
    # -- cov, corrcoef, dist ------------------------------------------------------------------------------
    OpInfo("glassgrad.cov", lambda m, x: m.cov(x), shapes=unary(1, 2, min_side=2), also=("Tensor.cov",), errors=_COV_ERRORS),
    OpInfo("glassgrad.cov", lambda m, x: m.cov(x), shapes=unary(0, 2, max_side=1), order=0, id="cov_one_observation"),
    OpInfo("glassgrad.cov", lambda m, x, f, a: m.cov(x, correction=0, fweights=f, aweights=a),
           shapes=st.integers(1, 4).map(lambda n: ((3, n), (n,), (n,))), domains=(ANY, index(3, 1), POSITIVE), id="cov_weights"),
    OpInfo("glassgrad.cov", lambda m, x, a: m.cov(x, aweights=a), shapes=st.integers(2, 4).map(lambda n: ((2, n), (n,))),
           domains=(ANY, POSITIVE), id="cov_aweights_corrected"),
    OpInfo("glassgrad.cov", lambda m, x: m.cov(x), domains=Domain(-3, 3, dtype="int64"), shapes=unary(1, 2, min_side=2), order=0, id="cov_int",
           rtol=1e-6),
    OpInfo("glassgrad.corrcoef", lambda m, x: m.corrcoef(x), shapes=unary(1, 2, min_side=2), also=("Tensor.corrcoef",),
           errors=(lambda m: m.corrcoef(m.zeros(2, 2, 2)),)),
    OpInfo("glassgrad.corrcoef", lambda m, x: m.corrcoef(x.round()), shapes=unary(2, 2, min_side=1), order=0, id="corrcoef_constant_rows"),
    *(OpInfo("glassgrad.dist", lambda m, a, b, p=p: m.dist(a, b, p), shapes=broadcasting(2), domains=Domain(kinks=(0.0,)),
             id=f"dist_{p}", also=("Tensor.dist",), order=1 if p in (1, math.inf, -math.inf) else 2,
             errors=(lambda m: m.dist(m.tensor([1, 2]), m.tensor([1, 3])), lambda m: m.dist(m.zeros(2), m.zeros(3))))
      for p in (2, 1, 3, 0.5, math.inf, -math.inf)),
    OpInfo("glassgrad.dist", lambda m, a, b: m.dist(a, b, 0), shapes=broadcasting(2), id="dist_0", order=1,
           xfail={"gradcheck": "PyTorch's backward of dist(p=0) raises for `other` (it negates an undefined gradient); glassgrad's too"}),
    OpInfo("glassgrad.dist", lambda m, a, b: m.dist(a.float(), b), shapes=broadcasting(2), id="dist_promoted", order=0, rtol=1e-6),
    # -- histograms ---------------------------------------------------------------------------------------
    *(OpInfo("glassgrad.histc", _histc, domains=d, order=0, id=f"histc{suffix}", also=("Tensor.histc",),
             errors=(lambda m: m.histc(m.tensor([1, 2]), 3), lambda m: m.histc(m.tensor([1.0, math.nan]), 3),
                     lambda m: m.histc(m.tensor([1.0, 2]), 3, 2, 1), lambda m: m.histc(m.tensor([1.0]), 0)))
      for d, suffix in ((ANY, ""), (_TIES, "_on_edges"))),
    *(OpInfo("glassgrad.histogram", lambda m, x: m.histogram(x, 6), domains=d, order=0, id=f"histogram{suffix}",
             also=("Tensor.histogram",), errors=_HISTOGRAM_ERRORS)
      for d, suffix in ((ANY, ""), (_TIES, "_on_edges"))),
    OpInfo("glassgrad.histogram", lambda m, x, w: m.histogram(x.float(), 5, range=(-1.0, 1.5), weight=w.float(), density=True),
           shapes=broadcasting(1).map(lambda s: s * 2), domains=(_TIES, POSITIVE), order=0, id="histogram_float32_weighted",
           rtol=1e-6),
    OpInfo("glassgrad.histogram", lambda m, x, w: m.histogram(x, m.tensor([-2.0, -0.5, 0.0, 1.0, 2.0], dtype=x.dtype), weight=w),
           shapes=broadcasting(1).map(lambda s: s * 2), domains=(_TIES, ANY), order=0, id="histogram_edges"),
    OpInfo("glassgrad.histogramdd", lambda m, x: _flat(m.histogramdd(x, [3, 2])), shapes=unary(2, 3).map(lambda s: ((*s[0][:-1], 2),)),
           domains=_TIES, order=0,
           errors=(lambda m: m.histogramdd(m.ones(3), 2), lambda m: m.histogramdd(m.ones(3, 2), [2, 3, 4]),
                   lambda m: m.histogramdd(m.ones(3, 2), 2, range=[0.0, 1.0]))),
    OpInfo("glassgrad.histogramdd", lambda m, x, w: _flat(m.histogramdd(
        x, [m.tensor([-2.0, 0.0, 2.0], dtype=x.dtype), m.tensor([-1.0, 1.0], dtype=x.dtype)], weight=w, density=True)),
           shapes=st.integers(0, 5).map(lambda n: ((n, 2), (n,))), domains=(_TIES, POSITIVE), order=0, id="histogramdd_edges"),
    OpInfo("glassgrad.histogramdd", lambda m, x: _flat(m.histogramdd(x, 4, range=[-1.0, 1.0, 0.0, 2.0, -2.0, 2.0])), shapes=fixed((4, 3)),
           order=0, id="histogramdd_range"),
    # -- trapezoids, gradient ------------------------------------------------------------------------------
    OpInfo("glassgrad.trapezoid", lambda m, y: m.trapezoid(y), shapes=unary(1), errors=(lambda m: m.trapezoid(m.ones(3, dtype=m.bool)),)),
    OpInfo("glassgrad.trapezoid", lambda m, y, x: m.trapezoid(y, x, dim=0), shapes=unary(1, 3).map(lambda s: (s[0], s[0][:1])),
           id="trapezoid_points", errors=(lambda m: m.trapezoid(m.ones(3), m.ones(4)),)),
    OpInfo("glassgrad.trapezoid", lambda m, y, x: m.trapezoid(y, x), shapes=broadcasting(2, min_dims=1), id="trapezoid_broadcast_points"),
    OpInfo("glassgrad.trapz", lambda m, y: m.trapz(y, dx=0.5, dim=0), shapes=unary(1)),
    OpInfo("glassgrad.trapz", lambda m, y, x: m.trapz(y, x), shapes=unary(1, 3).map(lambda s: (s[0], s[0][-1:])), id="trapz_points"),
    OpInfo("glassgrad.cumulative_trapezoid", lambda m, y: m.cumulative_trapezoid(y, dx=2.0), shapes=unary(1),
           errors=(lambda m: m.cumulative_trapezoid(m.ones(3, dtype=m.bool)), lambda m: m.cumulative_trapezoid(m.ones(3), m.ones(2)))),
    OpInfo("glassgrad.cumulative_trapezoid", lambda m, y, x: m.cumulative_trapezoid(y, x, dim=0),
           shapes=unary(1, 3, min_side=1).map(lambda s: (s[0], s[0][:1])), id="cumulative_trapezoid_points"),
    *(OpInfo("glassgrad.gradient", lambda m, y, e=e: m.gradient(y, edge_order=e), shapes=unary(1, 3, min_side=e + 1),
             id=f"gradient_edge_order_{e}",
             errors=(lambda m: m.gradient(m.ones(3, dtype=m.uint8)), lambda m: m.gradient(m.ones(3), spacing=[1.0, 2.0]),
                     lambda m: m.gradient(m.ones(3), edge_order=3), lambda m: m.gradient(m.ones(2), edge_order=2),
                     lambda m: m.gradient(m.ones(3, 3), spacing=[1.0], dim=[0, 1])))
      for e in (1, 2)),
    OpInfo("glassgrad.gradient", lambda m, y: m.gradient(y, spacing=[0.5, 2.0], dim=(1, 0), edge_order=2), shapes=unary(2, 2, min_side=3),
           id="gradient_spacings"),
    *(OpInfo("glassgrad.gradient", lambda m, y, s, e=e: m.gradient(y, spacing=(m.cumsum(s, 0),), dim=-1, edge_order=e),
             shapes=unary(1, 3, min_side=e + 1).map(lambda s: (s[0], s[0][-1:])), domains=(ANY, POSITIVE), id=f"gradient_points_{e}")
      for e in (1, 2)),
]
