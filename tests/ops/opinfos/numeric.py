"""OpInfos of glassgrad/ops/numeric.py: deg2rad, rad2deg, positive, float_power, frexp, renorm."""

from __future__ import annotations

from ..opinfo import ANY, POSITIVE, Domain, OpInfo, index, unary
from .elementwise import BOOL, call, inplace, integers, onto_first
from .elementwise import unary as unary_ops

MATRICES = unary(min_dims=2, max_side=3)  # renorm needs two dims at least
# glassgrad's norms of values below 1e-154 underflow to 0 where PyTorch's do not (which changes renorm's second
# derivative, nan at a zero norm in both); ZEROS draws exact zeros.
AWAY_FROM_ZERO = Domain(kinks=(0.0,))
ZEROS = Domain(-1, 1, integral=True)
# frexp's mantissa jumps at every power of two
POWERS_OF_TWO = Domain(-1.9, 1.9, kinks=(-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0))

OPS: list[OpInfo] = [
    *unary_ops("deg2rad", Domain(-200, 200)),
    *unary_ops("rad2deg"),
    integers("deg2rad"),
    integers("rad2deg", domains=BOOL),
    inplace(integers("deg2rad"), "deg2rad_", id="deg2rad_int_"),  # an integer tensor cannot hold the float result
    OpInfo("glassgrad.positive", call("positive"), errors=(lambda m: m.positive(m.tensor([True])), lambda m: m.positive(2))),
    integers("positive"),
    # float_power: float64 whatever comes in, the node is pow's after a cast
    OpInfo("glassgrad.float_power", call("float_power"), shapes=onto_first(2), domains=(POSITIVE, ANY),
           errors=(lambda m: m.float_power(2, 3),)),
    OpInfo("glassgrad.float_power", call("float_power", 3), id="float_power_scalar_exponent"),
    OpInfo("glassgrad.float_power", lambda m, x: m.float_power(2.5, x), id="float_power_scalar_base"),
    OpInfo("glassgrad.float_power", call("float_power"), shapes=onto_first(2), domains=(index(5, 1), ANY),
           id="float_power_int_base"),
    integers("float_power", 2),
    integers("float_power", 0.5, domains=BOOL),
    inplace(OpInfo("glassgrad.float_power", call("float_power"), shapes=onto_first(2), domains=(POSITIVE, ANY)), "float_power_",
            errors=(lambda m: m.ones(2).float_power_(2), lambda m: m.ones(2, dtype=m.int64).float_power_(2))),
    inplace(OpInfo("glassgrad.float_power", call("float_power", 2)), "float_power_", args=(2,), id="float_power_scalar_"),
    OpInfo("glassgrad.frexp", call("frexp"), domains=POWERS_OF_TWO,
           errors=(lambda m: m.frexp(m.tensor([1, 2])), lambda m: m.frexp(m.tensor([True])))),
    # renorm: slices along dim whose norm exceeds maxnorm are scaled down to it
    *[OpInfo("glassgrad.renorm", lambda m, x, p=p, dim=dim, maxnorm=maxnorm: m.renorm(x, p, dim, maxnorm), shapes=MATRICES,
             domains=AWAY_FROM_ZERO, id=f"renorm_{label}")
      for label, p, dim, maxnorm in (("p2", 2, 0, 1.0), ("p1_dim1", 1, 1, 1.5), ("inf", float("inf"), -1, 0.8),
                                     ("p1_5", 1.5, 0, 0.5), ("p0_5", 0.5, 1, 2.0), ("zero_maxnorm", 2, 0, 0.0))],
    OpInfo("glassgrad.renorm", lambda m, x: m.renorm(x, 2, 0, 0.5), shapes=MATRICES, domains=ZEROS, order=1, id="renorm_zeros"),
    OpInfo("Tensor.renorm", lambda m, x: x.renorm(3, -2, 1.0), shapes=MATRICES, domains=AWAY_FROM_ZERO,
           errors=(lambda m: m.ones(2, 3).renorm(0, 0, 1.0), lambda m: m.ones(2, 3).renorm(2, 0, -1.0),
                   lambda m: m.ones(3).renorm(2, 0, 1.0), lambda m: m.ones(2, 3).renorm(2, 2, 1.0),
                   lambda m: m.ones(2, 3, dtype=m.int64).renorm(2, 0, 1.0))),
    inplace(OpInfo("glassgrad.renorm", lambda m, x: m.renorm(x, 2, 1, 1.0), shapes=MATRICES, domains=AWAY_FROM_ZERO), "renorm_",
            args=(2, 1, 1.0)),
]
