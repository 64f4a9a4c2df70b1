"""OpInfos of sorting and selection (glassgrad/ops/sorting.py).

TIES draws small integers, so most slices hold equal values: the indices compared with PyTorch's
then show that glassgrad picks the same one of several equal elements.
"""

from __future__ import annotations

from typing import Any

from ..opinfo import Domain, OpInfo, unary

TIES = Domain(-2, 2, integral=True)
NAN_TIES = Domain(-1, 1, integral=True, kinks=())
LONG_ROWS = unary(min_dims=1, max_dims=2, min_side=5, max_side=20)  # past PyTorch's small-size special cases
MATRIX = unary(min_dims=2)


# Unstable sorts of more than 16 elements run x86-simd-sort in PyTorch (on AVX2/AVX-512 machines),
# whose order of equal elements glassgrad does not replay: its sort is always stable.
SIMD_SORT = {"torch": "PyTorch's unstable sort of >16 elements orders ties as x86-simd-sort does; glassgrad's is stable"}


def _variants(name: str, calls: dict[str, Any], unstable: tuple[str, ...] = (), **kwargs: Any) -> list[OpInfo]:
    """One differentiable OpInfo per call, and the same calls on ties (indices only) and on long rows."""
    ops = []
    for label, call in calls.items():
        ops.append(OpInfo(f"glassgrad.{name}", call, id=f"{name}_{label}", **kwargs))
        ops.append(OpInfo(f"glassgrad.{name}", call, domains=TIES, order=0, id=f"{name}_{label}_ties", **kwargs))
        ops.append(OpInfo(f"glassgrad.{name}", call, domains=TIES, shapes=LONG_ROWS, order=0,
                          id=f"{name}_{label}_long_ties", xfail=SIMD_SORT if label in unstable else {}))
    return ops


def _with_nan(m: Any, x: Any) -> Any:
    """x with NaN wherever it was 1."""
    return m.where(x == 1, float("nan"), x)


OPS = [
    *_variants("sort", {
        "default": lambda m, x: m.sort(x), "descending": lambda m, x: m.sort(x, 0, True),
        "stable": lambda m, x: m.sort(x, stable=True, dim=-1, descending=True),
    }, unstable=("default", "descending"), errors=(lambda m: m.sort(m.ones(2, 3), 2),)),
    *_variants("argsort", {
        "default": lambda m, x: m.argsort(x), "descending": lambda m, x: x.argsort(dim=0, descending=True),
    }, unstable=("default", "descending")),
    *_variants("topk", {
        "k1": lambda m, x: m.topk(x, 1, dim=-1) if x.ndim == 0 or x.shape[-1] else m.topk(x, 0),
        "smallest": lambda m, x: x.topk(min(2, x.shape[0]) if x.ndim else 1, 0, largest=False),
        "unsorted": lambda m, x: m.topk(x, x.shape[-1] if x.ndim else 1, sorted=False),
    }, errors=(lambda m: m.topk(m.ones(2), 3), lambda m: m.topk(m.ones(2, dtype=m.bool), 1))),
    *_variants("kthvalue", {
        "first": lambda m, x: m.kthvalue(x, 1), "last_keepdim": lambda m, x: x.kthvalue(x.shape[0] if x.ndim else 1, 0, True),
        "middle": lambda m, x: m.kthvalue(x, (x.shape[-1] + 1) // 2 if x.ndim else 1),
    }, errors=(lambda m: m.kthvalue(m.ones(2), 0), lambda m: m.kthvalue(m.ones(2, dtype=m.bool), 1))),
    *_variants("median", {
        "all": lambda m, x: m.median(x), "dim": lambda m, x: m.median(x, -1), "keepdim": lambda m, x: x.median(0, True),
    }, errors=(lambda m: m.median(m.ones(2, dtype=m.bool)), lambda m: m.median(m.ones(2, 0), 1))),
    *_variants("mode", {"default": lambda m, x: m.mode(x), "dim0_keepdim": lambda m, x: x.mode(0, True)},
               errors=(lambda m: m.mode(m.empty(0)),)),
    *(OpInfo(f"glassgrad.{name}", lambda m, x, call=call: call(m, _with_nan(m, x)), domains=NAN_TIES, order=0,
             id=f"{name}_nan") for name, call in {
        "sort": lambda m, x: m.sort(x, descending=True), "topk": lambda m, x: m.topk(x, 1) if x.ndim == 0 or x.shape[-1] else x,
        "kthvalue": lambda m, x: m.kthvalue(x, 1) if x.ndim == 0 or x.shape[-1] else x,
        "median": lambda m, x: m.median(x, -1) if x.ndim == 0 or x.shape[-1] else x,
        "mode": lambda m, x: m.mode(x) if x.ndim == 0 or x.shape[-1] else x,
    }.items()),
    OpInfo("glassgrad.median", lambda m, x: m.median(_with_nan(m, x)), domains=NAN_TIES, id="median_nan_all"),
    OpInfo("glassgrad.unique", lambda m, x: m.unique(x), domains=TIES, order=0),
    OpInfo("glassgrad.unique", lambda m, x: x.unique(return_inverse=True, return_counts=True), domains=TIES, order=0,
           id="unique_inverse_counts"),
    OpInfo("glassgrad.unique", lambda m, x: m.unique(x, sorted=False, return_counts=True), domains=TIES, order=0,
           id="unique_unsorted"),
    OpInfo("glassgrad.unique", lambda m, x: m.unique(x, dim=0, return_inverse=True), shapes=MATRIX, domains=TIES,
           order=0, id="unique_dim"),
    OpInfo("glassgrad.unique", lambda m, x: m.unique(_with_nan(m, x), return_counts=True), domains=NAN_TIES, order=0,
           id="unique_nan"),
]
