"""OpInfos of 3-d, LP, fractional and adaptive max pooling, max unpooling and the *_with_indices functions
(glassgrad/ops/pooling.py and resampling.py); the 1-d and 2-d max/avg pools are in convolution.py's list."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from ..opinfo import Domain, OpInfo
from .convolution import F, images

NN = "glassgrad.nn.functional."
_TIES = "finite differences are undefined at ties"


def _samples(m: Any, x: Any, n: int) -> Any:
    """Fixed fractional-pooling offsets for x's planes, the same in both libraries (PyTorch's _random_samples)."""
    planes = (1, *x.shape[:1]) if x.ndim == n + 1 else tuple(x.shape[:2])
    return m.tensor(np.random.default_rng(planes).random((planes[-2], planes[-1], n)), dtype=x.dtype)


def _unpool(n: int, **pool: Any) -> Any:
    def fn(m: Any, x: Any) -> Any:
        out, indices = getattr(F(m), f"max_pool{n}d")(x, 2, return_indices=True, **pool)
        return getattr(F(m), f"max_unpool{n}d")(out, indices, 2, **pool)

    return fn


_UNPOOL_ERRORS = (
    lambda m: F(m).max_unpool2d(m.zeros(1, 1, 2, 2), m.zeros(1, 1, 2, 2), 2),  # float indices
    lambda m: F(m).max_unpool2d(m.zeros(1, 1, 2, 2), m.full((1, 1, 2, 2), 16, dtype=m.int64), 2),  # index past the output
    lambda m: F(m).max_unpool2d(m.zeros(1, 1, 2, 2), m.zeros(1, 1, 2, 1, dtype=m.int64), 2),  # shapes differ
    lambda m: F(m).max_unpool2d(m.zeros(2, 2), m.zeros(2, 2, dtype=m.int64), 2),  # rank
    lambda m: F(m).max_unpool2d(m.zeros(1, 1, 2, 2), m.zeros(1, 1, 2, 2, dtype=m.int64), 2, output_size=(9, 9)),
    lambda m: F(m).max_unpool1d(m.zeros(1, 1, 2), m.zeros(1, 1, 2, dtype=m.int64), 2, output_size=(1, 2, 3, 4)),
    lambda m: F(m).max_unpool2d(m.zeros(1, 1, 2, 2, dtype=m.int32), m.zeros(1, 1, 2, 2, dtype=m.int64), 2),
)
_FRACTIONAL_ERRORS = (
    lambda m: F(m).fractional_max_pool2d(m.zeros(1, 1, 4, 4), 3, output_size=3),  # window too large
    lambda m: F(m).fractional_max_pool2d(m.zeros(1, 1, 4, 4), 2),  # neither size nor ratio
    lambda m: F(m).fractional_max_pool2d(m.zeros(1, 1, 4, 4), 2, output_size=2, _random_samples=m.zeros(1, 1, 2, dtype=m.float64)),
    lambda m: F(m).fractional_max_pool2d(m.zeros(1, 1, 4, 4), 2, output_size=2, _random_samples=m.zeros(1, 1, 3)),
    lambda m: F(m).fractional_max_pool2d(m.zeros(1, 1, 4, 4), 2, output_ratio=(0.5, 0.5, 0.5)),
    lambda m: F(m).fractional_max_pool2d(m.zeros(1, 1, 4, 4, dtype=m.int64), 2, output_size=2),
    lambda m: F(m).fractional_max_pool3d(m.zeros(1, 1, 4, 4, 4), 2, output_size=3),  # 3-d checks strictly
)
_3D_ERRORS = (
    lambda m: F(m).max_pool3d(m.zeros(1, 4, 4), 2),
    lambda m: F(m).avg_pool3d(m.zeros(1, 1, 1, 4, 4), 2),
    lambda m: F(m).lp_pool2d(m.zeros(1, 1, 4, 4), 2, 5),
)

OPS = [
    OpInfo(NN + "max_pool3d", lambda m, x: F(m).max_pool3d(x, 2), shapes=images(3, 2, 3), errors=_3D_ERRORS[:1]),
    OpInfo(NN + "max_pool3d", lambda m, x: F(m).max_pool3d(x, (2, 1, 2), stride=(1, 2, 1), padding=(1, 0, 0), dilation=(1, 1, 2),
                                                            ceil_mode=True, return_indices=True),
           shapes=st.sampled_from([((1, 2, 2, 3),), ((2, 1, 3, 2, 4),), ((0, 2, 2, 3, 3),)]), id="max_pool3d_all"),
    OpInfo(NN + "max_pool3d", lambda m, x: F(m).max_pool3d(x, 2, stride=1), shapes=images(3, 2, 3),
           domains=Domain(-1, 1, integral=True), xfail={"gradcheck": _TIES}, id="max_pool3d_ties"),
    OpInfo(NN + "max_pool1d_with_indices", lambda m, x: F(m).max_pool1d_with_indices(x, 2, padding=1), shapes=images(1)),
    OpInfo(NN + "max_pool2d_with_indices", lambda m, x: F(m).max_pool2d_with_indices(x, (2, 1), ceil_mode=True), shapes=images(2)),
    OpInfo(NN + "max_pool3d_with_indices", lambda m, x: F(m).max_pool3d_with_indices(x, 2), shapes=images(3, 2, 3)),
    OpInfo(NN + "avg_pool3d", lambda m, x: F(m).avg_pool3d(x, 2), shapes=images(3, 2, 3), errors=_3D_ERRORS[1:2]),
    OpInfo(NN + "avg_pool3d", lambda m, x: F(m).avg_pool3d(x, (2, 3, 1), stride=(1, 2, 2), padding=(1, 1, 0), ceil_mode=True,
                                                            count_include_pad=False),
           shapes=st.sampled_from([((1, 2, 3, 2),), ((2, 1, 3, 4, 3),), ((0, 2, 2, 3, 2),)]), id="avg_pool3d_all"),
    OpInfo(NN + "avg_pool3d", lambda m, x: F(m).avg_pool3d(x, 2, stride=1, divisor_override=3), shapes=images(3, 2, 3),
           id="avg_pool3d_divisor"),
    OpInfo(NN + "lp_pool1d", lambda m, x: F(m).lp_pool1d(x, 2, 3, stride=2, ceil_mode=True), shapes=images(1, 3, 5)),
    OpInfo(NN + "lp_pool2d", lambda m, x: F(m).lp_pool2d(x, 3.5, (2, 3)), shapes=images(2, 3, 4), domains=Domain(0.5, 2.0),
           errors=_3D_ERRORS[2:]),
    OpInfo(NN + "lp_pool2d", lambda m, x: F(m).lp_pool2d(x, 1, 2, stride=1), shapes=images(2), id="lp_pool2d_p1"),
    OpInfo(NN + "lp_pool2d", lambda m, x: F(m).lp_pool2d(x, float("inf"), 2), shapes=images(2), id="lp_pool2d_inf"),
    OpInfo(NN + "lp_pool3d", lambda m, x: F(m).lp_pool3d(x, 2, 2), shapes=images(3, 2, 3)),
    OpInfo(NN + "max_unpool1d", _unpool(1), shapes=images(1, 2, 5), errors=_UNPOOL_ERRORS[5:6]),
    OpInfo(NN + "max_unpool2d", _unpool(2), shapes=images(2, 2, 5), errors=_UNPOOL_ERRORS),
    # Overlapping windows repeat an index: the forward keeps the last write, PyTorch's gradient gathers at every one.
    OpInfo(NN + "max_unpool2d", _unpool(2, stride=1, padding=1), shapes=images(2, 2, 4), id="max_unpool2d_overlapping",
           xfail={"gradcheck": "the gradient is PyTorch's gather, not the derivative of a last-write-wins scatter"}),
    OpInfo(NN + "max_unpool3d", _unpool(3), shapes=images(3, 2, 3)),
    OpInfo(NN + "fractional_max_pool2d", lambda m, x: F(m).fractional_max_pool2d(
        x, (2, 1), output_size=(2, 3), return_indices=True, _random_samples=_samples(m, x, 2)), shapes=images(2, 3, 5),
        errors=_FRACTIONAL_ERRORS),
    OpInfo(NN + "fractional_max_pool2d", lambda m, x: F(m).fractional_max_pool2d(
        x, 2, output_ratio=(0.5, 0.6), _random_samples=_samples(m, x, 2)), shapes=images(2, 3, 6), id="fractional_max_pool2d_ratio"),
    OpInfo(NN + "fractional_max_pool3d", lambda m, x: F(m).fractional_max_pool3d(
        x, 1, output_size=(1, 1, 2), return_indices=True, _random_samples=_samples(m, x, 3)),
        shapes=st.sampled_from([((1, 2, 2, 3),), ((2, 2, 3, 3, 4),), ((0, 1, 2, 3, 3),)])),
    OpInfo(NN + "fractional_max_pool2d_with_indices", lambda m, x: F(m).fractional_max_pool2d_with_indices(
        x, 2, output_size=2, _random_samples=_samples(m, x, 2)), shapes=images(2, 3, 4)),
    OpInfo(NN + "fractional_max_pool3d_with_indices", lambda m, x: F(m).fractional_max_pool3d_with_indices(
        x, (1, 1, 2), output_size=1, _random_samples=_samples(m, x, 3)),
        shapes=st.sampled_from([((1, 2, 2, 3),), ((2, 1, 3, 4, 3),)])),
    OpInfo(NN + "adaptive_max_pool3d", lambda m, x: F(m).adaptive_max_pool3d(x, (2, None, 1), return_indices=True),
           shapes=images(3, 1, 4)),
    OpInfo(NN + "adaptive_max_pool1d_with_indices", lambda m, x: F(m).adaptive_max_pool1d_with_indices(x, 3), shapes=images(1, 2, 6)),
    OpInfo(NN + "adaptive_max_pool2d_with_indices", lambda m, x: F(m).adaptive_max_pool2d_with_indices(x, (3, 2)),
           shapes=images(2, 2, 5)),
    OpInfo(NN + "adaptive_max_pool3d_with_indices", lambda m, x: F(m).adaptive_max_pool3d_with_indices(x, 2), shapes=images(3, 1, 3)),
]
