"""OpInfos of glassgrad.nn.functional activations, softmax, linear layers and similarities (ops/activations.py)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..opinfo import POSITIVE, Domain, Module, OpInfo, Shapes, broadcasting, seeded, unary

F = "glassgrad.nn.functional"
WIDE = Domain(-4, 4)


def _f(m: Module) -> Any:
    return m.nn.functional


def _activation(name: str, domains: Domain = WIDE, order: int = 2, **kwargs: Any) -> OpInfo:
    """F.<name>(x, **kwargs) on any shape; kwargs also name the OpInfo."""
    label = "_".join(["F", name, *(f"{k}{v}" for k, v in kwargs.items())])  # "F_relu": glassgrad.relu has "relu"
    return OpInfo(f"{F}.{name}", lambda m, x: getattr(_f(m), name)(x, **kwargs), domains=domains, order=order, id=label)


def _inplace(name: str, domains: Domain = WIDE, order: int = 2, **kwargs: Any) -> OpInfo:
    """F.<name>(x, inplace=True) on a clone (a non-leaf, so the in-place op records a node)."""

    def fn(m: Module, x: Any) -> Any:
        y = x.clone()
        getattr(_f(m), name)(y, inplace=True, **kwargs)
        return y

    return OpInfo(f"{F}.{name}", fn, domains=domains, order=order, id=f"{name}_inplace")


def _even_last(min_dims: int = 1) -> st.SearchStrategy[Shapes]:
    return hnp.array_shapes(min_dims=min_dims, max_dims=3, min_side=0, max_side=3).map(lambda s: ((*s[:-1], 2 * s[-1]),))


def _linear_shapes(bias: bool) -> st.SearchStrategy[Shapes]:
    def build(batch: tuple[int, ...], features: int, outputs: int) -> Shapes:
        return ((*batch, features), (outputs, features), *(((outputs,),) if bias else ()))

    return st.builds(build, hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3), st.integers(0, 3),
                     st.integers(0, 3))


def _bilinear_shapes() -> st.SearchStrategy[Shapes]:
    def build(batch: tuple[int, ...], in1: int, in2: int, outputs: int) -> Shapes:
        return ((*batch, in1), (*batch, in2), (outputs, in1, in2), (outputs,))

    sides = st.integers(1, 3)
    return st.builds(build, hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3), sides, sides, sides)


@st.composite
def _prelu_shapes(draw: Any) -> Shapes:
    """An input and a weight of one slope per channel (dim 1, or 1 below two dims), or a single slope."""
    x = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=3))
    channels = x[1] if len(x) > 1 else 1
    return (x, draw(st.sampled_from([(channels,), (1,), ()])))


def _clone_then(fn: Any) -> Any:
    """fn on a clone of the input: a non-leaf, so that an in-place function records a node."""
    return lambda m, x: fn(m, x.clone())


_threshold_errors = (
    lambda m: _f(m).threshold(m.ones(2, dtype=m.bool), 0, 1),
    lambda m: _f(m).threshold(m.ones(2, dtype=m.int8), 200, 1),  # the threshold overflows int8
    lambda m: _f(m).threshold(m.ones(2), 0.5, 1e39),  # the value overflows float32
    lambda m: _f(m).threshold_(m.ones(2, requires_grad=True), 0.5, 1.0),  # in place on a leaf
)
_shrink_errors = (
    lambda m: _f(m).hardshrink(m.ones(2, dtype=m.int64)),
    lambda m: _f(m).softshrink(m.ones(2, dtype=m.int64)),
    lambda m: _f(m).softshrink(m.ones(2), -0.5),
)
_prelu_errors = (
    lambda m: _f(m).prelu(m.ones(2, 3), 0.25),
    lambda m: _f(m).prelu(m.ones(2, 3), m.ones(3, dtype=m.float64)),
    lambda m: _f(m).prelu(m.ones(2, 3), m.ones(2)),
    lambda m: _f(m).prelu(m.ones(2, 3), m.ones(1, 3)),
    lambda m: _f(m).prelu(m.tensor(1.0), m.ones(2)),
    lambda m: _f(m).prelu(m.ones(2, 3, dtype=m.int64), m.ones(3, dtype=m.int64)),
)
_rrelu_errors = (
    lambda m: _f(m).rrelu(m.ones(2), 0.5, 0.1),
    lambda m: _f(m).rrelu(m.ones(2, dtype=m.int64)),
    lambda m: _f(m).rrelu(m.ones(2, dtype=m.int64), training=True),
    lambda m: _f(m).rrelu_(m.ones(2, requires_grad=True)),
)
_softmax_errors = (
    lambda m: _f(m).softmax(m.ones(2, 3), dim=2),
    lambda m: _f(m).softmax(m.ones(2, 3, dtype=m.int64), dim=1),
    lambda m: _f(m).softmax(m.ones(2, 3)),  # the implicit-dim warning, an error under pytest's filter
)
_KINK = (0.0,)
_AWAY_FROM_ZERO = Domain(0.1, 2)  # no zero vectors: their norm is clamped to eps
# The norm has a kink at the zero vector; keeping entries off 0 also keeps squares from underflowing.
_OFF_ZERO = Domain(-2, 2, kinks=(0.0,))
_TIES = {"gradcheck": "the sample sits on the kinks on purpose; two-sided finite differences cannot agree there"}

OPS = [
    _activation("relu", Domain(-4, 4, kinks=_KINK), order=1),
    _inplace("relu", Domain(-4, 4, kinks=_KINK), order=1),
    _activation("relu6", Domain(-8, 8, kinks=(0.0, 6.0)), order=1),
    _inplace("relu6", Domain(-8, 8, kinks=(0.0, 6.0)), order=1),
    OpInfo(f"{F}.relu6", lambda m, x: _f(m).relu6(x), domains=Domain(-8, 8, integral=True), order=1, id="relu6_ties",
           xfail=_TIES),
    _activation("hardtanh", Domain(-3, 3, kinks=(-1.0, 1.0)), order=1),
    OpInfo(f"{F}.hardtanh", lambda m, x: _f(m).hardtanh(x, -0.5, 2.0), domains=Domain(-3, 3, integral=True), order=1,
           id="hardtanh_ties", errors=(lambda m: _f(m).hardtanh(m.ones(2), 2.0, 1.0),)),
    _inplace("hardtanh", Domain(-3, 3, kinks=(-1.0, 1.0)), order=1),
    _activation("leaky_relu", Domain(-4, 4, kinks=_KINK), order=1),
    OpInfo(f"{F}.leaky_relu", lambda m, x: _f(m).leaky_relu(x, 0.2), domains=Domain(-3, 3, integral=True), order=1,
           id="leaky_relu_ties", xfail=_TIES, errors=(lambda m: _f(m).leaky_relu(m.ones(2, dtype=m.int64)),)),
    _inplace("leaky_relu", Domain(-4, 4, kinks=_KINK), order=1, negative_slope=0.3),
    _activation("elu", Domain(-4, 4, kinks=_KINK)),
    _activation("elu", Domain(-4, 4, kinks=_KINK), alpha=0.5),
    _inplace("elu", Domain(-4, 4, kinks=_KINK)),
    _activation("selu", Domain(-4, 4, kinks=_KINK)),
    _inplace("selu", Domain(-4, 4, kinks=_KINK)),
    _activation("celu", Domain(-4, 4, kinks=_KINK), alpha=2.0),
    _inplace("celu", Domain(-4, 4, kinks=_KINK)),
    OpInfo(f"{F}.gelu", lambda m, x: _f(m).gelu(x), domains=Domain(-4, 4), id="gelu",
           errors=(lambda m: _f(m).gelu(m.ones(2), approximate="fast"), lambda m: _f(m).gelu(m.ones(2, dtype=m.int64)))),
    _activation("gelu", approximate="tanh"),
    # PyTorch's in-place functions (torch.selu_ and torch.celu_ are F's): their nodes save the result, which is why a
    # negative slope is refused in backward
    *[OpInfo(f"{F}.{name}", _clone_then(lambda m, y, name=name, args=args: getattr(_f(m), name)(y, *args)), domains=domains,
             order=order, id=f"F_{name}{'_'.join(map(str, args))}")
      for name, args, domains, order in (
          ("elu_", (), Domain(-4, 4, kinks=_KINK), 2), ("elu_", (0.5,), Domain(-4, 4, kinks=_KINK), 2),
          ("celu_", (0.7,), Domain(-4, 4, kinks=_KINK), 2), ("selu_", (), Domain(-4, 4, kinks=_KINK), 2),
          ("leaky_relu_", (0.2,), Domain(-4, 4, kinks=_KINK), 1), ("hardtanh_", (-0.5, 0.5), Domain(-3, 3, kinks=(-0.5, 0.5)), 1),
          ("hardtanh_", (2.0, 1.0), Domain(-3, 3, kinks=(1.0, 2.0)), 1), ("relu_", (), Domain(-4, 4, kinks=_KINK), 1),
      )],
    *[OpInfo(f"{F}.{name}", _clone_then(lambda m, y, name=name: getattr(_f(m), name)(y, -0.5)), domains=Domain(-4, 4, kinks=_KINK),
             order=1, id=f"F_{name}negative", xfail={"gradcheck": "PyTorch refuses this backward, and glassgrad does too"})
      for name in ("elu_", "celu_", "leaky_relu_")],
    OpInfo(f"{F}.elu_", lambda m, x: _f(m).elu_(x.long()), order=0, id="F_elu_int", errors=(lambda m: _f(m).elu_(m.ones(2, requires_grad=True)),)),
    _activation("silu"),
    _inplace("silu"),
    _activation("mish"),
    _inplace("mish"),
    _activation("softplus", Domain(-30, 30)),
    _activation("softplus", Domain(-4, 4, kinks=(1.0,)), beta=2, threshold=2),
    _activation("softsign", Domain(-4, 4, kinks=_KINK)),
    _activation("hardsigmoid", Domain(-5, 5, kinks=(-3.0, 3.0)), order=1),
    _inplace("hardsigmoid", Domain(-5, 5, kinks=(-3.0, 3.0)), order=1),
    _activation("hardswish", Domain(-5, 5, kinks=(-3.0, 3.0)), order=1),
    _inplace("hardswish", Domain(-5, 5, kinks=(-3.0, 3.0)), order=1),
    _activation("tanhshrink"),
    _activation("logsigmoid", Domain(-40, 40)),
    OpInfo(f"{F}.threshold", lambda m, x: _f(m).threshold(x, 0.5, -3.0), domains=Domain(-4, 4, kinks=(0.5,)),
           id="F_threshold", errors=_threshold_errors),
    OpInfo(f"{F}.threshold", lambda m, x: _f(m).threshold(x, -0.5, 9.7), domains=Domain(-3, 3, dtype="int64"), order=0,
           id="threshold_int"),  # both numbers are truncated to the input's integer type
    _inplace("threshold", Domain(-4, 4, kinks=(1.0,)), threshold=1.0, value=0.5),
    OpInfo(f"{F}.threshold_", _clone_then(lambda m, y: _f(m).threshold_(y, 1.0, 0.5)), domains=Domain(-4, 4, kinks=(1.0,)),
           id="F_threshold_"),
    _activation("hardshrink", Domain(-4, 4, kinks=(-0.5, 0.5))),
    OpInfo(f"{F}.hardshrink", lambda m, x: x.hardshrink(1.5), domains=Domain(-4, 4, kinks=(-1.5, 1.5)),
           id="Tensor.hardshrink", errors=_shrink_errors),
    _activation("softshrink", Domain(-4, 4, kinks=(-0.5, 0.5))),
    _activation("softshrink", Domain(-4, 4, kinks=(-1.5, 1.5)), lambd=1.5),
    OpInfo(f"{F}.prelu", lambda m, x, w: _f(m).prelu(x, w), shapes=_prelu_shapes(),
           domains=(Domain(-4, 4, kinks=_KINK), Domain(-1, 1)), id="F_prelu", errors=_prelu_errors),
    _activation("rrelu", Domain(-4, 4, kinks=_KINK)),
    _activation("rrelu", Domain(-4, 4, kinks=_KINK), lower=-0.5, upper=0.2),
    _inplace("rrelu", Domain(-4, 4, kinks=_KINK)),
    OpInfo(f"{F}.rrelu_", _clone_then(lambda m, y: _f(m).rrelu_(y, 0.2, 0.4)), domains=Domain(-4, 4, kinks=_KINK),
           id="F_rrelu_", errors=_rrelu_errors),
    # Training draws a slope per element from each library's generator: only shapes and dtypes can agree, while
    # gradcheck (one seed for every evaluation) checks the gradient; test_functional_extras.py checks the draws.
    OpInfo(f"{F}.rrelu", seeded(lambda m, x: _f(m).rrelu(x, 0.1, 0.3, training=True)), domains=Domain(-4, 4, kinks=_KINK),
           values=False, id="rrelu_training"),
    OpInfo(f"{F}.rrelu_", seeded(_clone_then(lambda m, y: _f(m).rrelu_(y, training=True))),
           domains=Domain(-4, 4, kinks=_KINK), values=False, id="rrelu__training"),
    OpInfo(f"{F}.softmax", lambda m, x: _f(m).softmax(x, dim=-1), id="softmax", errors=_softmax_errors),
    OpInfo(f"{F}.softmax", lambda m, x: _f(m).softmax(x, 0, dtype=m.float64), domains=Domain(-3, 3, dtype="int64"),
           id="softmax_dtype", order=0),
    OpInfo(f"{F}.log_softmax", lambda m, x: _f(m).log_softmax(x, dim=0), domains=Domain(-30, 30), id="log_softmax",
           errors=_softmax_errors),
    OpInfo(f"{F}.softmin", lambda m, x: _f(m).softmin(x, dim=-1), id="softmin"),
    OpInfo("Tensor.softmax", lambda m, x: x.softmax(-1), shapes=unary(min_dims=2), id="Tensor.softmax"),
    OpInfo("Tensor.log_softmax", lambda m, x: x.log_softmax(1, dtype=m.float64), shapes=unary(min_dims=2),
           id="Tensor.log_softmax"),
    OpInfo(f"{F}.glu", lambda m, x: _f(m).glu(x), shapes=_even_last(), id="glu",
           errors=(lambda m: _f(m).glu(m.ones(2, 3)), lambda m: _f(m).glu(m.tensor(1.0)), lambda m: _f(m).glu(m.ones(2), 1))),
    OpInfo(f"{F}.glu", lambda m, x: _f(m).glu(x, 0), shapes=_even_last().map(lambda s: (s[0][::-1],)), id="glu_dim0"),
    OpInfo(f"{F}.linear", lambda m, x, w, b: _f(m).linear(x, w, b), shapes=_linear_shapes(bias=True), id="F_linear",
           errors=(lambda m: _f(m).linear(m.ones(2, 3), m.ones(4, 2)), lambda m: _f(m).linear(m.tensor(1.0), m.ones(2, 1)),
                   lambda m: _f(m).linear(m.ones(2, 3), m.ones(4, 3), m.ones(3)))),
    OpInfo(f"{F}.linear", lambda m, x, w: _f(m).linear(x, w), shapes=_linear_shapes(bias=False), id="linear_nobias"),
    OpInfo(f"{F}.bilinear", lambda m, a, b, w, c: _f(m).bilinear(a, b, w, c), shapes=_bilinear_shapes(), id="bilinear",
           errors=(lambda m: _f(m).bilinear(m.ones(3, 2), m.ones(2, 2), m.ones(1, 2, 2)),
                   lambda m: _f(m).bilinear(m.ones(3, 2), m.ones(3, 2), m.ones(1, 3, 2)),
                   lambda m: _f(m).bilinear(m.ones(3, 2), m.ones(3, 2), m.ones(1, 2, 2), m.ones(2)))),
    OpInfo(f"{F}.normalize", lambda m, x: _f(m).normalize(x), shapes=unary(min_dims=2), id="normalize", domains=_OFF_ZERO,
           errors=(lambda m: _f(m).normalize(m.ones(3)), lambda m: _f(m).normalize(m.ones(2, 3, dtype=m.int64)))),
    OpInfo(f"{F}.normalize", lambda m, x: _f(m).normalize(x, p=1, dim=-1), shapes=unary(min_dims=1), id="normalize_p1",
           domains=Domain(-2, 2, kinks=_KINK), order=1),
    OpInfo(f"{F}.normalize", lambda m, x: _f(m).normalize(x, p=3.0, dim=0), domains=Domain(0.2, 2), id="normalize_p3"),
    OpInfo(f"{F}.normalize", lambda m, x: _f(m).normalize(x, p=float("inf"), dim=0), shapes=unary(min_dims=1, min_side=1),
           domains=Domain(-3, 3, integral=True), id="normalize_inf_ties", order=1,
           xfail=_TIES),
    OpInfo(f"{F}.cosine_similarity", lambda m, a, b: _f(m).cosine_similarity(a, b, dim=-1), id="cosine_similarity",
           shapes=broadcasting(2, min_dims=1), domains=_OFF_ZERO, errors=(lambda m: _f(m).cosine_similarity(m.ones(2, 3), m.ones(4)),
                                                        lambda m: _f(m).cosine_similarity(m.ones(2, 3), m.ones(2, 3), 2))),
    OpInfo(f"{F}.cosine_similarity", lambda m, a, b: _f(m).cosine_similarity(a, b), shapes=broadcasting(2, min_dims=2),
           domains=_AWAY_FROM_ZERO, id="cosine_similarity_dim1"),
    OpInfo(f"{F}.pairwise_distance", lambda m, a, b: _f(m).pairwise_distance(a, b), shapes=broadcasting(2),
           id="pairwise_distance", errors=(lambda m: _f(m).pairwise_distance(m.ones(2, 3), m.ones(4)),)),
    OpInfo(f"{F}.pairwise_distance", lambda m, a, b: _f(m).pairwise_distance(a, b, p=1.5, keepdim=True),
           shapes=broadcasting(2), domains=(Domain(2.1, 3), POSITIVE), id="pairwise_distance_p"),
    # Gumbel noise from each library's own generator: shapes and dtypes compared; the gradient is checked here.
    OpInfo(f"{F}.gumbel_softmax", seeded(lambda m, x: _f(m).gumbel_softmax(x, tau=0.5)), shapes=unary(min_dims=1), values=False),
    # Straight-through: the gradient is the soft sample's, while the one-hot output is flat almost everywhere.
    OpInfo(f"{F}.gumbel_softmax", seeded(lambda m, x: _f(m).gumbel_softmax(x, hard=True)), shapes=unary(min_dims=1, min_side=2),
           values=False, xfail={"gradcheck": "straight-through: the gradient is not the one-hot output's derivative"},
           id="gumbel_softmax_hard"),
]
