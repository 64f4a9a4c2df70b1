"""OpInfos of convolutions, pooling, resampling, unfold/fold, pad and dropout
(glassgrad/ops/convolution.py, pooling.py and windows.py)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ..opinfo import Domain, OpInfo, Shapes, seeded

NN = "glassgrad.nn.functional."


def F(m: Any) -> Any:
    return m.nn.functional


@st.composite
def conv_shapes(draw: Any, n: int, transposed: bool = False, groups: tuple[int, ...] = (1,), bias: bool = True,
                kernels: tuple[int, ...] = (1, 2, 3), min_side: int | None = None) -> Shapes:
    """(input, weight[, bias]) for an n-d convolution; weights are (in, out/groups, *k) when transposed.
    Sides start at 3 (1 when transposed) unless `min_side` says otherwise."""
    g = draw(st.sampled_from(groups))
    batch, cin, cout = draw(st.integers(0, 2)), g * draw(st.integers(1, 2)), g * draw(st.integers(1, 2))
    kernel = tuple(draw(st.sampled_from(kernels)) for _ in range(n))
    low = min_side or (1 if transposed else 3)
    x = (batch, cin, *(draw(st.integers(low, 4)) for _ in range(n)))
    w = (cin, cout // g, *kernel) if transposed else (cout, cin // g, *kernel)
    return (x, w, (cout,)) if bias else (x, w)


@st.composite
def images(draw: Any, n: int, min_side: int = 3, max_side: int = 5, unbatched: bool = True) -> Shapes:
    """One (N, C, *spatial) input, sometimes without its batch dim."""
    lead = (draw(st.integers(0, 2)), draw(st.integers(1, 2)))
    if unbatched and draw(st.booleans()):
        lead = lead[1:]
    return ((*lead, *(draw(st.integers(min_side, max_side)) for _ in range(n))),)


def _conv(name: str, fn: Any, n: int, **kw: Any) -> OpInfo:
    return OpInfo(NN + name, fn, shapes=conv_shapes(n, **kw.pop("shape_kw", {})), **kw)


_CONV_ERRORS = (
    lambda m: F(m).conv2d(m.zeros(2, 3, dtype=m.float64), m.zeros(1, 1, 1, 1, dtype=m.float64)),  # input rank
    lambda m: F(m).conv2d(m.zeros(1, 3, 4, 4, dtype=m.float64), m.zeros(2, 1, 1, 1, dtype=m.float64), groups=3),
    lambda m: F(m).conv2d(m.zeros(1, 4, 4, 4, dtype=m.float64), m.zeros(3, 2, 1, 1, dtype=m.float64), groups=2),
    lambda m: F(m).conv2d(m.zeros(1, 1, 2, 2, dtype=m.float64), m.zeros(1, 1, 3, 3, dtype=m.float64)),  # kernel > input
    lambda m: F(m).conv2d(m.zeros(1, 1, 4, 4, dtype=m.float64), m.zeros(1, 1, 3, 3, dtype=m.float64), stride=2, padding="same"),
    lambda m: F(m).conv2d(m.zeros(1, 1, 4, 4, dtype=m.float64), m.zeros(1, 1, 3, 3, dtype=m.float64), padding="full"),
    lambda m: F(m).conv2d(m.zeros(1, 1, 4, 4, dtype=m.float64), m.zeros(1, 1, 3, 3, dtype=m.float32)),  # dtypes
    lambda m: F(m).conv2d(m.zeros(1, 1, 4, 4, dtype=m.float64), m.zeros(1, 1, 3, 3, dtype=m.float64), m.zeros(2, dtype=m.float64)),
)
_CONV_3D_ERRORS = (
    lambda m: F(m).conv3d(m.zeros(2, 3, 4, dtype=m.float64), m.zeros(1, 1, 1, 1, 1, dtype=m.float64)),  # input rank
    lambda m: F(m).conv3d(m.zeros(1, 2, 4, 4, 4, dtype=m.float64), m.zeros(1, 2, 3, 3, dtype=m.float64)),  # weight rank
    lambda m: F(m).conv3d(m.zeros(1, 2, 2, 4, 4, dtype=m.float64), m.zeros(1, 2, 3, 3, 3, dtype=m.float64)),  # kernel > input
)
_CONV_T_ERRORS = (
    lambda m: F(m).conv_transpose2d(m.zeros(1, 2, 3, 3, dtype=m.float64), m.zeros(3, 1, 2, 2, dtype=m.float64)),
    lambda m: F(m).conv_transpose2d(m.zeros(1, 2, 3, 3, dtype=m.float64), m.zeros(2, 1, 2, 2, dtype=m.float64), output_padding=1),
    lambda m: F(m).conv_transpose1d(m.zeros(1, 1, 1, dtype=m.float64), m.zeros(1, 1, 1, dtype=m.float64), padding=1),
    lambda m: F(m).conv_transpose3d(m.zeros(1, 2, 3, 3, 3, dtype=m.float64), m.zeros(2, 1, 2, 2, 2, dtype=m.float64),
                                    output_padding=(0, 1, 0), stride=(2, 1, 2)),
    lambda m: F(m).conv_transpose3d(m.zeros(1, 2, 3, 3, dtype=m.float64), m.zeros(2, 1, 2, 2, 2, dtype=m.float64)),
)

_CONVS = [
    _conv("conv1d", lambda m, x, w, b: F(m).conv1d(x, w, b), 1, errors=_CONV_ERRORS[:1]),
    _conv("conv1d", lambda m, x, w, b: F(m).conv1d(x, w, b, stride=2, padding=1, dilation=2, groups=x.shape[1] // w.shape[1]),
          1, shape_kw={"groups": (1, 2)}, id="conv1d_strided_groups"),
    _conv("conv1d", lambda m, x, w: F(m).conv1d(x, w, padding="same", dilation=2), 1, shape_kw={"bias": False}, id="conv1d_same"),
    _conv("conv2d", lambda m, x, w, b: F(m).conv2d(x, w, b), 2, errors=_CONV_ERRORS),
    _conv("conv2d", lambda m, x, w, b: F(m).conv2d(x, w, b, stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=x.shape[1] // w.shape[1]),
          2, shape_kw={"groups": (1, 2)}, id="conv2d_strided_groups"),
    # Even kernels warn in PyTorch ('same' then pads a copy); test_convolution_extra.py covers them.
    _conv("conv2d", lambda m, x, w: F(m).conv2d(x, w, padding="same"), 2, shape_kw={"bias": False, "kernels": (1, 3)},
          id="conv2d_same"),
    _conv("conv2d", lambda m, x, w: F(m).conv2d(x[0], w, padding="valid"), 2, shape_kw={"bias": False}, id="conv2d_unbatched"),
    _conv("conv3d", lambda m, x, w, b: F(m).conv3d(x, w, b, stride=(1, 2, 1), padding=(1, 0, 1), dilation=(2, 1, 1),
                                                   groups=x.shape[1] // w.shape[1]),
          3, shape_kw={"groups": (1, 2), "kernels": (1, 2), "min_side": 2}, errors=_CONV_3D_ERRORS),
    _conv("conv3d", lambda m, x, w: F(m).conv3d(x[0], w, padding="same"), 3,
          shape_kw={"bias": False, "kernels": (1, 3), "min_side": 2},
          id="conv3d_same_unbatched"),
    _conv("conv_transpose1d", lambda m, x, w, b: F(m).conv_transpose1d(x, w, b), 1, shape_kw={"transposed": True},
          errors=_CONV_T_ERRORS[2:]),
    _conv("conv_transpose1d", lambda m, x, w, b: F(m).conv_transpose1d(x, w, b, stride=3, padding=1, output_padding=2, groups=2),
          1, shape_kw={"transposed": True, "groups": (2,)}, id="conv_transpose1d_strided"),
    _conv("conv_transpose2d", lambda m, x, w, b: F(m).conv_transpose2d(x, w, b), 2, shape_kw={"transposed": True},
          errors=_CONV_T_ERRORS),
    _conv("conv_transpose2d", lambda m, x, w, b: F(m).conv_transpose2d(
        x, w, b, stride=2, padding=(0, 1), output_padding=(1, 0), groups=2, dilation=(1, 2)),
        2, shape_kw={"transposed": True, "groups": (2,), "kernels": (2, 3)}, id="conv_transpose2d_groups"),
    _conv("conv_transpose3d", lambda m, x, w, b: F(m).conv_transpose3d(x[0], w, b), 3,
          shape_kw={"transposed": True, "kernels": (1, 2)}, errors=_CONV_T_ERRORS[3:], id="conv_transpose3d_unbatched"),
    _conv("conv_transpose3d", lambda m, x, w, b: F(m).conv_transpose3d(
        x, w, b, stride=(3, 1, 2), padding=(1, 0, 0), output_padding=(2, 0, 1), groups=2, dilation=(1, 2, 1)),
        3, shape_kw={"transposed": True, "groups": (2,), "kernels": (1, 2)}, id="conv_transpose3d_groups"),
    # torch.conv2d is F.conv2d (the same function in both libraries); one run through the torch.* name.
    OpInfo("glassgrad.conv2d", lambda m, x, w, b: m.conv2d(x, w, b, padding=1), shapes=conv_shapes(2)),
]


@st.composite
def tbc_shapes(draw: Any) -> Shapes:
    """(time, batch, in), (kernel, in, out), (out,): time from kernel - 1 (no output steps) up."""
    kernel, cin, cout = draw(st.integers(1, 3)), draw(st.integers(1, 2)), draw(st.integers(1, 3))
    return (draw(st.integers(kernel - 1, 4)), draw(st.integers(0, 2)), cin), (kernel, cin, cout), (cout,)


_TBC_ERRORS = (
    lambda m: m.conv_tbc(m.zeros(5, 2, dtype=m.float64), m.zeros(2, 3, 4, dtype=m.float64), m.zeros(4, dtype=m.float64)),
    lambda m: m.conv_tbc(m.zeros(5, 2, 3, dtype=m.float64), m.zeros(2, 3, dtype=m.float64), m.zeros(4, dtype=m.float64)),
    lambda m: m.conv_tbc(m.zeros(5, 2, 3, dtype=m.float64), m.zeros(2, 3, 4, dtype=m.float64), m.zeros(4, 1, dtype=m.float64)),
    lambda m: m.conv_tbc(m.zeros(5, 2, 3, dtype=m.float64), m.zeros(2, 2, 4, dtype=m.float64), m.zeros(4, dtype=m.float64)),
    lambda m: m.conv_tbc(m.zeros(5, 2, 3, dtype=m.float64), m.zeros(2, 3, 4, dtype=m.float64), m.zeros(3, dtype=m.float64)),
    lambda m: m.conv_tbc(m.zeros(5, 2, 3, dtype=m.float64), m.zeros(2, 3, 4), m.zeros(4, dtype=m.float64)),
    lambda m: m.conv_tbc(m.zeros(1, 2, 3, dtype=m.float64), m.zeros(4, 3, 4, dtype=m.float64), m.zeros(4, dtype=m.float64)),
    lambda m: m.conv_tbc(m.zeros(5, 2, 3, dtype=m.float64), m.zeros(2, 3, 4, dtype=m.float64), m.zeros(4, dtype=m.float64), 1.5),
)
_CONVS += [
    OpInfo("glassgrad.conv_tbc", lambda m, x, w, b: m.conv_tbc(x, w, b), shapes=tbc_shapes(), errors=_TBC_ERRORS,
           also=(NN + "conv_tbc",)),
    OpInfo("glassgrad.conv_tbc", lambda m, x, w, b: F(m).conv_tbc(x, w, b, pad=1), shapes=tbc_shapes(), id="conv_tbc_pad"),
    OpInfo("glassgrad.conv_tbc", lambda m, x, w, b: m.conv_tbc(x, w, b, -1), shapes=tbc_shapes().filter(lambda s: s[0][0] >= s[1][0] + 1),
           id="conv_tbc_crop"),
]

# Integer values make ties, where PyTorch sends the gradient to the first maximum; finite differences
# there see a kink (half to each), so only the comparison with PyTorch applies.
_TIES = "finite differences are undefined at ties"
_POOL_ERRORS = (
    lambda m: F(m).max_pool2d(m.zeros(1, 1, 4, 4, dtype=m.float64), 2, padding=2),  # pad > kernel / 2
    lambda m: F(m).max_pool2d(m.zeros(1, 1, 1, 1, dtype=m.float64), 2),  # output too small
    lambda m: F(m).max_pool2d(m.zeros(4, 4, dtype=m.float64), 2),  # input rank
)


def _adaptive_1d_errors(name: str) -> tuple[Any, ...]:
    return (
        lambda m: getattr(F(m), name)(m.zeros(2, 3, 7), (2, 3)),
        lambda m: getattr(F(m), name)(m.zeros(1, 2, 3, 7), 2),
        lambda m: getattr(F(m), name)(m.zeros(2, 3, 7), None),
        lambda m: getattr(F(m), name)(m.zeros(2, 3, 0), 2),
        lambda m: getattr(F(m), name)(m.zeros(2, 3, 4, dtype=m.int64), 2),
        lambda m: getattr(F(m), name)(m.zeros(2, 3, 4), -1),
    )


_POOLS = [
    OpInfo(NN + "max_pool1d", lambda m, x: F(m).max_pool1d(x, 2), shapes=images(1), errors=_POOL_ERRORS[:1]),
    OpInfo(NN + "max_pool1d", lambda m, x: F(m).max_pool1d(x, 3, stride=2, padding=1, dilation=1, ceil_mode=True, return_indices=True),
           shapes=images(1), id="max_pool1d_ceil_indices"),
    OpInfo(NN + "max_pool2d", lambda m, x: F(m).max_pool2d(x, 2), shapes=images(2), errors=_POOL_ERRORS),
    OpInfo(NN + "max_pool2d", lambda m, x: F(m).max_pool2d(x, (3, 2), stride=(2, 1), padding=1, dilation=(1, 2), ceil_mode=True,
                                                            return_indices=True), shapes=images(2), id="max_pool2d_all"),
    OpInfo(NN + "max_pool2d", lambda m, x: F(m).max_pool2d(x, 2, stride=1, return_indices=True), shapes=images(2),
           domains=Domain(-1, 1, integral=True), xfail={"gradcheck": _TIES}, id="max_pool2d_ties"),
    OpInfo(NN + "avg_pool1d", lambda m, x: F(m).avg_pool1d(x, 2), shapes=images(1)),
    OpInfo(NN + "avg_pool1d", lambda m, x: F(m).avg_pool1d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
           shapes=images(1), id="avg_pool1d_ceil"),
    OpInfo(NN + "avg_pool2d", lambda m, x: F(m).avg_pool2d(x, 2), shapes=images(2),
           errors=(lambda m: F(m).avg_pool2d(m.zeros(1, 1, 4, 4, dtype=m.float64), 2, padding=2),)),
    OpInfo(NN + "avg_pool2d", lambda m, x: F(m).avg_pool2d(x, (3, 2), stride=2, padding=1, ceil_mode=True), shapes=images(2),
           id="avg_pool2d_ceil_pad"),
    OpInfo(NN + "avg_pool2d", lambda m, x: F(m).avg_pool2d(x, 2, stride=1, padding=1, count_include_pad=False, divisor_override=3),
           shapes=images(2), id="avg_pool2d_divisor"),
    OpInfo(NN + "avg_pool2d", lambda m, x: F(m).avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
           shapes=images(2), id="avg_pool2d_exclude_pad"),
    OpInfo(NN + "adaptive_avg_pool1d", lambda m, x: F(m).adaptive_avg_pool1d(x, 3), shapes=images(1, 2, 7)),
    OpInfo(NN + "adaptive_avg_pool2d", lambda m, x: F(m).adaptive_avg_pool2d(x, (2, 3)), shapes=images(2, 2, 6)),
    OpInfo(NN + "adaptive_avg_pool2d", lambda m, x: F(m).adaptive_avg_pool2d(x, (None, 2)), shapes=images(2), id="adaptive_avg_pool2d_none"),
    OpInfo(NN + "adaptive_avg_pool1d", lambda m, x: F(m).adaptive_avg_pool1d(x, 1), shapes=images(1), id="adaptive_avg_pool1d_mean",
           errors=_adaptive_1d_errors("adaptive_avg_pool1d")),
    OpInfo(NN + "adaptive_avg_pool2d", lambda m, x: F(m).adaptive_avg_pool2d(x, 1), shapes=images(2), id="adaptive_avg_pool2d_mean",
           errors=(lambda m: F(m).adaptive_avg_pool2d(m.zeros(1, 1, 2, 2), -1),
                   lambda m: F(m).adaptive_avg_pool2d(m.zeros(1, 1, 2, 2, dtype=m.int64), 1))),
    OpInfo(NN + "adaptive_avg_pool3d", lambda m, x: F(m).adaptive_avg_pool3d(x, (2, None, 3)), shapes=images(3, 1, 4)),
    OpInfo(NN + "adaptive_avg_pool3d", lambda m, x: F(m).adaptive_avg_pool3d(x, 1), shapes=images(3, 1, 3), id="adaptive_avg_pool3d_mean"),
    OpInfo(NN + "adaptive_max_pool1d", lambda m, x: F(m).adaptive_max_pool1d(x, 3, return_indices=True), shapes=images(1, 2, 7),
           errors=_adaptive_1d_errors("adaptive_max_pool1d")),
    OpInfo(NN + "adaptive_max_pool1d", lambda m, x: F(m).adaptive_max_pool1d(x, (5,)), shapes=images(1, 2, 4), id="adaptive_max_pool1d_up"),
    OpInfo(NN + "adaptive_max_pool1d", lambda m, x: F(m).adaptive_max_pool1d(x, 2), shapes=images(1, 4, 6),
           domains=Domain(-1, 1, integral=True), id="adaptive_max_pool1d_ties"),
    OpInfo(NN + "adaptive_max_pool2d", lambda m, x: F(m).adaptive_max_pool2d(x, (2, 3), return_indices=True), shapes=images(2, 2, 6)),
    OpInfo(NN + "adaptive_max_pool2d", lambda m, x: F(m).adaptive_max_pool2d(x, 2), shapes=images(2),
           domains=Domain(-1, 1, integral=True), xfail={"gradcheck": _TIES}, id="adaptive_max_pool2d_ties"),
]

_INTERP_ERRORS = (
    lambda m: F(m).interpolate(m.zeros(1, 1, 3, 3), size=2, mode="linear"),
    lambda m: F(m).interpolate(m.zeros(1, 1, 3, 3), size=2, align_corners=True),
    lambda m: F(m).interpolate(m.zeros(1, 1, 3, 3), size=2, scale_factor=2.0),
    lambda m: F(m).interpolate(m.zeros(1, 1, 3, 3)),
    lambda m: F(m).interpolate(m.zeros(1, 1, 3, 3), size=2, mode="area", align_corners=False),
    lambda m: F(m).interpolate(m.zeros(1, 1, 3, 3), size=2, mode="nearest-exact", align_corners=True),
    lambda m: F(m).interpolate(m.zeros(1, 1, 3), size=2, mode="bicubic"),
    lambda m: F(m).interpolate(m.zeros(1, 1, 3, 3), size=2, mode="trilinear"),
    lambda m: F(m).interpolate(m.zeros(1, 1, 3, 3), size=2, mode="bilinear", recompute_scale_factor=True),
    lambda m: F(m).interpolate(m.zeros(1, 1, 3, 3), size=2, mode="nearest", antialias=True),
    lambda m: F(m).interpolate(m.zeros(1, 1, 3, 3), size=2, mode="cubic"),
    lambda m: F(m).interpolate(m.zeros(3, 3), size=2),
    lambda m: F(m).interpolate(m.zeros(1, 1, 3, 3), size=(2,)),
    lambda m: F(m).interpolate(m.zeros(1, 1, 3, 3), scale_factor=(2.0, 2.0, 2.0)),
    lambda m: F(m).interpolate(m.zeros(1, 1, 3, 3), scale_factor=0.2, mode="bicubic"),  # an empty output
    lambda m: F(m).interpolate(m.zeros(1, 1, 3, 3, dtype=m.int64), size=2, mode="nearest-exact"),
    lambda m: F(m).interpolate(m.zeros(1, 1, 3, 3, dtype=m.uint8), size=2, mode="area"),
)
_RESAMPLING = [
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, size=5), shapes=images(1, 2, 6, unbatched=False), errors=_INTERP_ERRORS),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, scale_factor=2), shapes=images(2, 2, 3, unbatched=False), id="nearest_x2"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, scale_factor=(1.7, 0.6)), shapes=images(2, 2, 5, unbatched=False),
           id="nearest_scale"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, size=4, mode="linear"), shapes=images(1, 2, 6, unbatched=False),
           id="linear"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, size=5, mode="linear", align_corners=True),
           shapes=images(1, 1, 6, unbatched=False), id="linear_corners"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, scale_factor=(1.5, 0.7), mode="bilinear"),
           shapes=images(2, 2, 4, unbatched=False), id="bilinear_scale"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, size=(3, 5), mode="bilinear", align_corners=True),
           shapes=images(2, 1, 4, unbatched=False), id="bilinear_corners"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, size=(3, 2, 5)), shapes=images(3, 1, 3, unbatched=False),
           id="nearest_3d"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, scale_factor=(1.7, 0.6, 1.0)),
           shapes=images(3, 2, 3, unbatched=False), id="nearest_3d_scale"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, size=7, mode="nearest-exact"), shapes=images(1, 2, 6, unbatched=False),
           id="nearest_exact_1d"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, scale_factor=(2.0, 0.6), mode="nearest-exact"),
           shapes=images(2, 2, 5, unbatched=False), id="nearest_exact_scale"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, size=(2, 4, 3), mode="nearest-exact"),
           shapes=images(3, 1, 3, unbatched=False), id="nearest_exact_3d"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, size=4, mode="linear", scale_factor=None, recompute_scale_factor=False),
           shapes=images(1, 2, 6, unbatched=False), id="linear_recompute_false"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, scale_factor=1.6, mode="linear", recompute_scale_factor=True),
           shapes=images(1, 2, 6, unbatched=False), id="linear_recompute"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, size=(5, 3), mode="bicubic"), shapes=images(2, 1, 5, unbatched=False),
           id="bicubic"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, size=(4, 6), mode="bicubic", align_corners=True),
           shapes=images(2, 1, 5, unbatched=False), id="bicubic_corners"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, scale_factor=(1.5, 0.7), mode="bicubic"),
           shapes=images(2, 2, 5, unbatched=False), id="bicubic_scale"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, scale_factor=2.5, mode="bicubic", align_corners=True),
           shapes=images(2, 1, 3, unbatched=False), id="bicubic_scale_corners"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, size=(3, 5, 2), mode="trilinear"),
           shapes=images(3, 1, 3, unbatched=False), id="trilinear"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, scale_factor=(1.5, 0.5, 2.0), mode="trilinear", align_corners=True),
           shapes=images(3, 2, 3, unbatched=False), id="trilinear_scale_corners"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, size=3, mode="area"), shapes=images(1, 2, 7, unbatched=False),
           id="area_1d"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, scale_factor=(0.5, 1.5), mode="area"),
           shapes=images(2, 2, 5, unbatched=False), id="area_scale"),
    OpInfo(NN + "interpolate", lambda m, x: F(m).interpolate(x, size=(1, 3, 2), mode="area"), shapes=images(3, 1, 4, unbatched=False),
           id="area_3d"),
    OpInfo(NN + "unfold", lambda m, x: F(m).unfold(x, 2), shapes=images(2, 2, 4, unbatched=False)),
    OpInfo(NN + "unfold", lambda m, x: F(m).unfold(x, (2, 1), dilation=(2, 1), padding=1, stride=(1, 2)),
           shapes=images(2, 2, 4), id="unfold_all", errors=(lambda m: F(m).unfold(m.zeros(2, 3), 2),)),
    OpInfo(NN + "fold", lambda m, x: F(m).fold(x, (2, 3), (1, 2)), shapes=st.sampled_from([((1, 2, 4),), ((2, 4, 4),), ((4, 4),)]),
           errors=(lambda m: F(m).fold(m.zeros(1, 4, 5), (3, 3), 2),)),
    OpInfo(NN + "fold", lambda m, x: F(m).fold(x, (3, 3), (2, 1), dilation=(1, 2), padding=1, stride=2),
           shapes=st.sampled_from([((1, 2, 6),), ((2, 4, 6),), ((2, 6),)]), id="fold_all",
           errors=(lambda m: F(m).fold(m.zeros(1, 1, 2, 3), (2, 2), 1),)),
]

_PAD_ERRORS = (
    lambda m: F(m).pad(m.zeros(1, 2, 3), (1, 1), mode="wrap"),
    lambda m: F(m).pad(m.zeros(1, 2, 3), (1,)),
    lambda m: F(m).pad(m.zeros(1, 2, 3), (3, 3), mode="reflect"),
    lambda m: F(m).pad(m.zeros(1, 2, 3), (1, 1), mode="reflect", value=1.0),
    lambda m: F(m).pad(m.zeros(1, 2, 3), (1, 1, 1, 1, 1, 1), mode="replicate"),
    lambda m: F(m).pad(m.zeros(3), (-2, -2)),
)
_PADS = [
    OpInfo(NN + "pad", lambda m, x: F(m).pad(x, (1, 2)), shapes=images(1, 0, 4), errors=_PAD_ERRORS),
    OpInfo(NN + "pad", lambda m, x: F(m).pad(x, (1, -1, 0, 2), value=0.5), shapes=images(2, 1, 3), id="pad_value_crop"),
    OpInfo(NN + "pad", lambda m, x: F(m).pad(x, (2, 1), mode="reflect"), shapes=images(1), id="pad_reflect1d"),
    OpInfo(NN + "pad", lambda m, x: F(m).pad(x, (1, 2, 2, 0), mode="reflect"), shapes=images(2), id="pad_reflect2d"),
    OpInfo(NN + "pad", lambda m, x: F(m).pad(x, (3, 1, 0, 2), mode="replicate"), shapes=images(2, 1, 3), id="pad_replicate"),
    OpInfo(NN + "pad", lambda m, x: F(m).pad(x, (2, 1, 1, 3), mode="circular"), shapes=images(2), id="pad_circular"),
]




_DROPOUT_ERRORS = (lambda m: F(m).dropout(m.zeros(3), p=1.5), lambda m: F(m).alpha_dropout(m.zeros(3), p=-0.1))
_DROPOUT = [
    OpInfo(NN + "dropout", seeded(lambda m, x: F(m).dropout(x, 0.3)), values=False, errors=_DROPOUT_ERRORS),
    OpInfo(NN + "dropout", lambda m, x: F(m).dropout(x, 0.3, training=False), id="dropout_eval"),
    # torch.dropout is ATen's: `train` required and positional-friendly, a RuntimeError for a bad p.
    OpInfo("glassgrad.dropout", seeded(lambda m, x: m.dropout(x, 0.3, True)), values=False, id="torch_dropout",
           errors=(lambda m: m.dropout(m.zeros(3), 1.5, True), lambda m: m.dropout(m.zeros(3), p=-0.5, train=False))),
    OpInfo("glassgrad.dropout", lambda m, x: m.dropout(x, p=0.3, train=False), id="torch_dropout_eval"),
    OpInfo(NN + "alpha_dropout", seeded(lambda m, x: F(m).alpha_dropout(x, 0.2, training=True)), values=False),
    OpInfo(NN + "alpha_dropout", lambda m, x: F(m).alpha_dropout(x, 0.2), id="alpha_dropout_eval"),
    # Channel-wise dropout: one draw per (sample, channel), or per channel of an unbatched input.
    OpInfo(NN + "dropout1d", seeded(lambda m, x: F(m).dropout1d(x, 0.3)), shapes=images(1), values=False,
           errors=(lambda m: F(m).dropout1d(m.zeros(2, 2, 2, 2)), lambda m: F(m).dropout1d(m.zeros(2, 3), p=2.0))),
    OpInfo(NN + "dropout2d", seeded(lambda m, x: F(m).dropout2d(x, 0.3)), shapes=images(2, unbatched=False), values=False,
           errors=(lambda m: F(m).dropout2d(m.zeros(3), 0.5), lambda m: F(m).dropout2d(m.zeros(1, 2, 3, 3), p=-1.0))),
    OpInfo(NN + "dropout2d", lambda m, x: F(m).dropout2d(x, 0.3, training=False), shapes=images(2), id="dropout2d_eval"),
    OpInfo(NN + "dropout3d", seeded(lambda m, x: F(m).dropout3d(x, 0.3)), shapes=images(3, 1, 2), values=False),
    OpInfo(NN + "feature_alpha_dropout", seeded(lambda m, x: F(m).feature_alpha_dropout(x, 0.2, training=True)),
           shapes=images(2, unbatched=False), values=False, errors=(lambda m: F(m).feature_alpha_dropout(m.zeros(3), 0.5, True),)),
    OpInfo(NN + "feature_alpha_dropout", lambda m, x: F(m).feature_alpha_dropout(x, 0.2), shapes=images(2),
           id="feature_alpha_dropout_eval"),
]

OPS = [*_CONVS, *_POOLS, *_RESAMPLING, *_PADS, *_DROPOUT]
