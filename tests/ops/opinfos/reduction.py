"""OpInfos of reductions and scans (glassgrad/ops/reduction.py)."""

from __future__ import annotations

from typing import Any

from ..opinfo import Domain, OpInfo, fixed, unary

INF = float("inf")
ZEROS = Domain(-1, 1, integral=True)  # many exact zeros and ties
# Products of tiny values underflow, where glassgrad's DivBackward0 (self / other**2) and PyTorch's
# ((self / other) / other) round differently; exact zeros are tested with ZEROS.
AWAY_FROM_ZERO = Domain(kinks=(0.0,))
SPREAD = unary(min_side=2)  # at least two elements, so that var's degrees of freedom stay positive
MATRIX = unary(min_dims=2)


def _dims(name: str, call: Any, order: int = 2, **kwargs: Any) -> list[OpInfo]:
    """`call(m, x, **dim_kwargs)` over dim, keepdim, a negative dim and a tuple of dims."""
    variants = {
        "dim0": ({"dim": 0}, unary()), "dim1_keepdim": ({"dim": 1, "keepdim": True}, MATRIX),
        "neg_dim": ({"dim": -1}, unary()), "tuple_dim": ({"dim": (0, -1)}, MATRIX),
        "tuple_dim_keepdim": ({"dim": (-1, 0), "keepdim": True}, MATRIX),
    }
    return [
        OpInfo(f"glassgrad.{name}", lambda m, x, kw=kw: call(m, x, **kw), shapes=shapes, order=order,
               id=f"{name}_{label}", **kwargs)
        for label, (kw, shapes) in variants.items()
    ]


def _single_dims(name: str, call: Any, order: int = 2, **kwargs: Any) -> list[OpInfo]:
    """Variants of ops that take one int dim."""
    return [
        OpInfo(f"glassgrad.{name}", lambda m, x: call(m, x, 0), order=order, id=f"{name}_dim0", **kwargs),
        OpInfo(f"glassgrad.{name}", lambda m, x: call(m, x, -1, True), order=order, id=f"{name}_neg_keepdim", **kwargs),
        OpInfo(f"glassgrad.{name}", lambda m, x: call(m, x, 1), shapes=MATRIX, order=order, id=f"{name}_dim1", **kwargs),
    ]


def _out_of_range(name: str) -> Any:
    return lambda m: getattr(m, name)(m.ones(2, 3), 2)
def _spread(m: Any, x: Any) -> Any:
    """x plus a ramp: std is not differentiable where all values are equal, and there PyTorch's
    gradient is rounding noise (its variance of equal values is not exactly 0)."""
    return x + m.arange(x.numel(), dtype=m.float64).reshape(x.shape) * 0.37


def _nans(m: Any, x: Any) -> Any:
    """x with NaN wherever it was above 1 (NANS keeps values away from that kink)."""
    return m.where(x > 1, float("nan"), x)


NANS = Domain(kinks=(1.0,))


def _inplace(method: str, *args: Any) -> Any:
    def fn(m: Any, x: Any) -> Any:
        y = x.clone()
        getattr(y, method)(*args)
        return y

    return fn


_cumsum = OpInfo("glassgrad.cumsum", lambda m, x: m.cumsum(x, -1), errors=(
    lambda m: m.cumsum(m.ones(2), 1), lambda m: m.cumsum(m.ones(2)),
))
_cumprod = OpInfo("glassgrad.cumprod", lambda m, x: m.cumprod(x, 0), domains=ZEROS, id="cumprod_zeros")

OPS = [
    # sum, mean, prod
    OpInfo("glassgrad.sum", lambda m, x: m.sum(x), also=("Tensor.sum",), errors=(_out_of_range("sum"),)),
    OpInfo("glassgrad.sum", lambda m, x: x.sum(dtype=m.float64), id="sum_dtype"),
    OpInfo("glassgrad.sum", lambda m, x: x.sum(0, dtype=m.float32), order=0, rtol=1e-6, id="sum_dtype_float32"),
    OpInfo("glassgrad.sum", lambda m, x: m.sum(x.long(), 0), order=0, id="sum_int"),
    *_dims("sum", lambda m, x, **kw: m.sum(x, **kw)),
    OpInfo("glassgrad.mean", lambda m, x: m.mean(x), also=("Tensor.mean",), errors=(
        lambda m: m.mean(m.ones(2, dtype=m.int64)), _out_of_range("mean"),
    )),
    *_dims("mean", lambda m, x, **kw: m.mean(x, **kw)),
    OpInfo("glassgrad.prod", lambda m, x: m.prod(x), domains=AWAY_FROM_ZERO, also=("Tensor.prod",), errors=(
        lambda m: m.prod(m.ones(2, 2), (0, 1)), _out_of_range("prod"),
    )),
    OpInfo("glassgrad.prod", lambda m, x: m.prod(x), domains=ZEROS, id="prod_zeros"),
    OpInfo("glassgrad.prod", lambda m, x: m.prod(x.long(), 0), order=0, id="prod_int"),
    *_single_dims("prod", lambda m, x, *a: m.prod(x, *a), domains=AWAY_FROM_ZERO),
    OpInfo("glassgrad.prod", lambda m, x: m.prod(x, -1), domains=ZEROS, id="prod_dim_zeros"),
    # nansum, nanmean
    *(op for name in ("nansum", "nanmean") for op in (
        OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(_nans(m, x)), domains=NANS,
               also=(f"Tensor.{name}",), errors=(_out_of_range(name),)),
        *_dims(name, lambda m, x, name=name, **kw: getattr(m, name)(_nans(m, x), **kw), domains=NANS),
        OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(_nans(m, x).float(), 0, dtype=m.float64),
               shapes=unary(min_dims=1), domains=NANS, order=0, rtol=1e-6, id=f"{name}_dtype"),
    )),
    OpInfo("glassgrad.nansum", lambda m, x: m.nansum(x.long(), -1), domains=ZEROS, order=0, id="nansum_int"),
    OpInfo("glassgrad.nanmean", lambda m, x: m.nanmean(x, keepdim=True), id="nanmean_keepdim", errors=(
        lambda m: m.nanmean(m.ones(2, dtype=m.int64)), lambda m: m.nanmean(m.ones(2), dtype=m.int64),
    )),
    # scans
    _cumsum,
    OpInfo("Tensor.cumsum_", _inplace("cumsum_", -1), id="cumsum_"),
    OpInfo("glassgrad.cumsum", lambda m, x: m.cumsum(x, 1), shapes=MATRIX, id="cumsum_dim1"),
    OpInfo("glassgrad.cumsum", lambda m, x: m.cumsum(x.long(), 0), order=0, id="cumsum_int"),
    OpInfo("glassgrad.cumprod", lambda m, x: m.cumprod(x, -1), domains=AWAY_FROM_ZERO),
    _cumprod,
    OpInfo("Tensor.cumprod_", _inplace("cumprod_", 0), domains=ZEROS, id="cumprod_"),
    OpInfo("glassgrad.cumprod", lambda m, x: m.cumprod(x, 1), shapes=MATRIX, domains=ZEROS, id="cumprod_dim1_zeros"),
    # max, min, amax, amin, argmax, argmin
    *(OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(x), also=(f"Tensor.{name}",), errors=(
        lambda m, name=name: getattr(m, name)(m.empty(0)),
        lambda m, name=name: getattr(m, name)(m.ones(2, 0), 1),
        _out_of_range(name),
    )) for name in ("max", "min", "amax", "amin")),
    *(op for name in ("max", "min") for op in _single_dims(name, lambda m, x, *a, name=name: getattr(m, name)(x, *a))),
    *(OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(x, 0), domains=ZEROS, order=0, id=f"{name}_ties")
      for name in ("max", "min")),
    OpInfo("glassgrad.max", lambda m, a, b: m.max(a, b), shapes=fixed((2, 3), (3,)), id="max_binary"),
    *(op for name in ("amax", "amin") for op in _dims(name, lambda m, x, name=name, **kw: getattr(m, name)(x, **kw))),
    *(OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(x), order=0, also=(f"Tensor.{name}",),
             errors=(lambda m, name=name: getattr(m, name)(m.empty(0)), _out_of_range(name)))
      for name in ("argmax", "argmin")),
    *(OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(x, keepdim=True), order=0, id=f"{name}_keepdim")
      for name in ("argmax", "argmin")),
    *(op for name in ("argmax", "argmin") for op in _single_dims(name, lambda m, x, *a, name=name: getattr(m, name)(x, *a), order=0)),
    *(OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(x, -1), domains=ZEROS, order=0, id=f"{name}_ties")
      for name in ("argmax", "argmin")),
    # var, std, var_mean, std_mean
    *(OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(_spread(m, x)), errors=(
        lambda m, name=name: getattr(m, name)(m.ones(3, dtype=m.int64)),
        lambda m, name=name: getattr(m, name)(m.ones(3), unbiased=True, correction=1),
    ), shapes=SPREAD) for name in ("var", "std", "var_mean", "std_mean")),
    *(OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(_spread(m, x), dim=-1, correction=0, keepdim=True),
             shapes=SPREAD, id=f"{name}_correction0") for name in ("var", "std", "var_mean", "std_mean")),
    *(OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(_spread(m, x), (0, 1), False),
             shapes=unary(2, min_side=2), id=f"{name}_unbiased_false") for name in ("var", "std")),
    *(OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(_spread(m, x), True), shapes=SPREAD,
             id=f"{name}_positional_unbiased")
      for name in ("var", "std")),
    OpInfo("glassgrad.var", lambda m, x: x.var(1, correction=2), shapes=unary(2, min_side=3), id="var_correction2"),
    # logsumexp, norm
    OpInfo("glassgrad.logsumexp", lambda m, x: m.logsumexp(x, -1), domains=Domain(-5, 5), errors=(
        lambda m: m.logsumexp(m.ones(2)), _out_of_range("logsumexp"),
    )),
    OpInfo("glassgrad.logsumexp", lambda m, x: x.logsumexp((0, -1), keepdim=True), shapes=MATRIX, id="logsumexp_tuple"),
    OpInfo("glassgrad.logsumexp", lambda m, x: m.logsumexp(x.long(), 0), domains=ZEROS, order=0, rtol=1e-6,
           id="logsumexp_int"),
    OpInfo("glassgrad.norm", lambda m, x: m.norm(x), domains=AWAY_FROM_ZERO, errors=(
        lambda m: m.norm(m.ones(2, dtype=m.int64)), lambda m: m.norm(m.empty(0), INF),
        lambda m: m.norm(m.ones(2, 2), "abc"), lambda m: m.norm(m.ones(2, 2, 2), "fro", dim=(0, 1, 2)),
    )),
    *(OpInfo("glassgrad.norm", lambda m, x, p=p: m.norm(x, p), domains=AWAY_FROM_ZERO, id=f"norm_p{p}",
             # PyTorch's second derivative of the 1- and inf-norms is a ZeroTensor, which the harness cannot read
             order=1 if p in (1, 0.5, INF, -INF) else 2)
      for p in (1, 2, 3, 1.5, 0.5, -1, INF, -INF)),
    OpInfo("glassgrad.norm", lambda m, x: m.norm(x, 0), order=1, id="norm_p0"),
    OpInfo("glassgrad.norm", lambda m, x: x.norm(dim=-1, keepdim=True), domains=AWAY_FROM_ZERO, id="norm_dim"),
    OpInfo("glassgrad.norm", lambda m, x: x.norm(3, dim=(0, 1)), shapes=MATRIX, domains=AWAY_FROM_ZERO, id="norm_p3_dims"),
    OpInfo("glassgrad.norm", lambda m, x: x.norm(INF, dim=1), shapes=MATRIX, domains=AWAY_FROM_ZERO, order=1,
           id="norm_inf_dim"),
    # logical
    *(OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(x), domains=ZEROS, order=0,
             errors=(_out_of_range(name),))
      for name in ("all", "any", "count_nonzero")),
    *(OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(x, dim=(0, -1)), shapes=MATRIX, domains=ZEROS,
             order=0, id=f"{name}_dims") for name in ("all", "any", "count_nonzero")),
    *(OpInfo(f"glassgrad.{name}", lambda m, x, name=name: getattr(m, name)(x, -1, keepdim=True), domains=ZEROS, order=0,
             id=f"{name}_keepdim") for name in ("all", "any")),
    OpInfo("glassgrad.all", lambda m, x: m.all(x.to(m.uint8)), domains=ZEROS, order=0, id="all_uint8"),
    OpInfo("glassgrad.any", lambda m, x: m.any(x > 0, 0), domains=ZEROS, order=0, id="any_bool"),
    # hash_tensor: the xor of the elements' 64-bit patterns, as uint64
    OpInfo("glassgrad.hash_tensor", lambda m, x: m.hash_tensor(x), order=0, also=("Tensor.hash_tensor",),
           errors=(lambda m: m.hash_tensor(m.zeros(0)), lambda m: m.hash_tensor(m.ones(2), mode=1),
                   lambda m: m.hash_tensor(m.ones(2, dtype=m.complex64)), lambda m: m.hash_tensor(m.ones(2), 3))),
    OpInfo("glassgrad.hash_tensor", lambda m, x: x.hash_tensor(dim=(0, -1), keepdim=True), shapes=MATRIX, order=0,
           id="hash_tensor_dims"),
    OpInfo("glassgrad.hash_tensor", lambda m, x: m.hash_tensor((x * 8).long(), -1), order=0, id="hash_tensor_long"),
    OpInfo("glassgrad.hash_tensor", lambda m, x: m.hash_tensor(x.float(), 0), order=0, id="hash_tensor_float"),
    OpInfo("glassgrad.hash_tensor", lambda m, x: m.hash_tensor(x > 0), domains=ZEROS, order=0, id="hash_tensor_bool"),
]
