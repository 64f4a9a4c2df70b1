"""OpInfos of affine_grid and grid_sample (glassgrad/ops/grid_sampling.py): every mode and padding mode, 2-d and 3-d,
with and without align_corners, gradients for the input, the grid and theta."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ..opinfo import Domain, OpInfo, Shapes

NN = "glassgrad.nn.functional."
GRID = Domain(-1.3, 1.3)  # past [-1, 1] too, where the padding modes differ


def F(m: Any) -> Any:
    return m.nn.functional


@st.composite
def _sampled(draw: Any, n: int) -> Shapes:
    """input (N, C, *spatial) and grid (N, *out, n)."""
    batch = draw(st.integers(1, 2))
    spatial = tuple(draw(st.integers(1, 4)) for _ in range(n))
    out = tuple(draw(st.integers(1, 3)) for _ in range(n))
    return ((batch, draw(st.integers(1, 2)), *spatial), (batch, *out, n))


def _sample(**kw: Any) -> Any:
    return lambda m, x, g: F(m).grid_sample(x, g, **kw)


_ERRORS = (
    lambda m: F(m).grid_sample(m.zeros(1, 1, 2, 2), m.zeros(1, 2, 2, 2), mode="area", align_corners=False),
    lambda m: F(m).grid_sample(m.zeros(1, 1, 2, 2), m.zeros(1, 2, 2, 2), padding_mode="wrap", align_corners=False),
    lambda m: F(m).grid_sample(m.zeros(1, 1, 2, 2), m.zeros(1, 2, 2, 1), align_corners=False),
    lambda m: F(m).grid_sample(m.zeros(2, 1, 2, 2), m.zeros(1, 2, 2, 2), align_corners=False),
    lambda m: F(m).grid_sample(m.zeros(1, 1, 2, 2), m.zeros(1, 2, 2, 2, dtype=m.float64), align_corners=False),
    lambda m: F(m).grid_sample(m.zeros(1, 1, 0, 2), m.zeros(1, 2, 2, 2), align_corners=False),
    lambda m: F(m).grid_sample(m.zeros(1, 1, 2, 2, 2), m.zeros(1, 2, 2, 2, 3), mode="bicubic", align_corners=False),
    lambda m: F(m).affine_grid(m.zeros(2, 2, 3), (2, 1, 3), align_corners=False),
    lambda m: F(m).affine_grid(m.zeros(2, 2, 3, dtype=m.int64), (2, 1, 3, 4), align_corners=False),
    lambda m: F(m).affine_grid(m.zeros(2, 2, 3), (2, 1, 0, 4), align_corners=False),
    lambda m: F(m).affine_grid(m.zeros(2, 1, 3), (2, 1, 3, 4), align_corners=False),
)

OPS = [
    OpInfo(NN + "grid_sample", _sample(align_corners=False), shapes=_sampled(2), domains=(Domain(), GRID), errors=_ERRORS[:7]),
    *(OpInfo(NN + "grid_sample", _sample(mode=mode, padding_mode=padding, align_corners=aligned), shapes=_sampled(n),
             domains=(Domain(), GRID), id=f"grid_sample_{n}d_{mode}_{padding}{'_aligned' if aligned else ''}")
      for n in (2, 3) for mode in ("bilinear", "nearest") for padding in ("zeros", "border", "reflection")
      for aligned in (False, True) if (n, mode, padding, aligned) != (2, "bilinear", "zeros", False)),
    OpInfo(NN + "affine_grid", lambda m, t: F(m).affine_grid(t, (t.shape[0], 1, 3, 4), align_corners=False),
           shapes=st.sampled_from([((1, 2, 3),), ((2, 2, 3),)]), errors=_ERRORS[7:]),
    OpInfo(NN + "affine_grid", lambda m, t: F(m).affine_grid(t, (t.shape[0], 2, 2, 3, 4), align_corners=True),
           shapes=st.sampled_from([((1, 3, 4),), ((2, 3, 4),)]), id="affine_grid_3d_aligned"),
    OpInfo(NN + "affine_grid", lambda m, t, x: F(m).grid_sample(x, F(m).affine_grid(t, (2, 1, 2, 3), align_corners=False),
                                                                  align_corners=False),
           shapes=st.just(((2, 2, 3), (2, 1, 2, 3))), id="spatial_transformer"),
]
