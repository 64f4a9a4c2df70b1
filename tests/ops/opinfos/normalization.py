"""OpInfos of the normalization functions (glassgrad/ops/normalization.py)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ..opinfo import Domain, OpInfo, Shapes

NN = "glassgrad.nn.functional."


def F(m: Any) -> Any:
    return m.nn.functional


@st.composite
def normalized(draw: Any, min_dims: int = 2, max_dims: int = 4, affine: bool = True, min_batch: int = 1,
               min_side: int = 1) -> Shapes:
    """An input (N, C, *spatial) and, when affine, a weight and a bias of size C."""
    ndim = draw(st.integers(min_dims, max_dims))
    x = (draw(st.sampled_from((min_batch, 0, 3))), draw(st.integers(1, 3)), *(draw(st.integers(min_side, 3)) for _ in range(ndim - 2)))
    return (x, (x[1],), (x[1],)) if affine else (x,)


def _running(m: Any, c: int) -> tuple[Any, Any]:
    """Running statistics made inside fn: they are state, not differentiable inputs."""
    return m.linspace(-0.5, 0.5, c, dtype=m.float64), m.linspace(0.5, 1.5, c, dtype=m.float64)


def _with_stats(norm: Any, **kw: Any) -> Any:
    """fn(m, x, w, b) -> (output, running mean, running var): the statistics after the in-place update."""

    def fn(m: Any, x: Any, w: Any, b: Any) -> Any:
        mean, var = _running(m, x.shape[1])
        return norm(F(m))(x, mean, var, w, b, **kw), mean, var

    return fn


def _output_only(fn: Any) -> Any:
    return lambda m, *xs: fn(m, *xs)[0]


@st.composite
def layer_shapes(draw: Any) -> Shapes:
    x = tuple(draw(st.integers(1, 3)) for _ in range(draw(st.integers(1, 3))))
    return (x, x[-1:], x[-1:])


@st.composite
def rms_shapes(draw: Any) -> Shapes:
    """An input and a weight of its last 1 to ndim dims."""
    x = tuple(draw(st.integers(0 if i == 0 else 1, 3)) for i in range(draw(st.integers(1, 3))))
    return (x, x[len(x) - draw(st.integers(1, len(x))) :])


_SPREAD = Domain(-2, 2)
# A row of one element normalizes to its sign: kept away from 0, where finite differences meet the jump.
_OFF_ZERO = Domain(-2, 2, kinks=(0.0,))
_ERRORS_RMS = (
    lambda m: F(m).rms_norm(m.zeros(2, 3), 3),
    lambda m: F(m).rms_norm(m.zeros(2, 3), ()),
    lambda m: F(m).rms_norm(m.zeros(2, 3), (2,)),
    lambda m: F(m).rms_norm(m.zeros(3), (2, 3)),
    lambda m: F(m).rms_norm(m.zeros(2, 3), (3,), m.ones(2)),
    lambda m: F(m).rms_norm(m.zeros(2, 3, dtype=m.int64), (3,)),
    lambda m: F(m).rms_norm(m.zeros(2, 3), (3,), m.ones(3, dtype=m.float64)),  # PyTorch's warning, an error here
)
_BN_TRAIN = _with_stats(lambda f: f.batch_norm, training=True, momentum=0.3)
_IN_TRAIN = _with_stats(lambda f: f.instance_norm, momentum=0.2)
_ERRORS_BN = (
    lambda m: F(m).batch_norm(m.zeros(2, 3, dtype=m.float64), m.zeros(4, dtype=m.float64), m.ones(3, dtype=m.float64)),
    lambda m: F(m).batch_norm(m.zeros(1, 3, dtype=m.float64), None, None, training=True),
    lambda m: F(m).batch_norm(m.zeros(2, 3, dtype=m.float64), m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64),
                              m.ones(2, dtype=m.float64)),
)

OPS = [
    OpInfo(NN + "layer_norm", lambda m, x, w, b: F(m).layer_norm(x, x.shape[-1:], w, b), shapes=layer_shapes(),
           domains=_SPREAD, rtol=1e-6, atol=1e-8,
           errors=(lambda m: F(m).layer_norm(m.zeros(2, 3), (2,)), lambda m: F(m).layer_norm(m.zeros(2, 3), (3,), m.ones(2)))),
    OpInfo(NN + "layer_norm", lambda m, x: F(m).layer_norm(x, x.shape[1:], eps=0.1), shapes=normalized(affine=False),
           domains=_SPREAD, rtol=1e-6, atol=1e-8, id="layer_norm_2d"),
    OpInfo(NN + "rms_norm", lambda m, x, w: F(m).rms_norm(x, w.shape, w), shapes=rms_shapes(), domains=_OFF_ZERO,
           rtol=1e-6, atol=1e-8, errors=_ERRORS_RMS),
    OpInfo(NN + "rms_norm", lambda m, x: F(m).rms_norm(x, x.shape[1:], eps=0.1), shapes=normalized(affine=False),
           domains=_SPREAD, rtol=1e-6, atol=1e-8, id="rms_norm_eps"),
    OpInfo(NN + "batch_norm", _output_only(_BN_TRAIN), shapes=normalized(min_batch=2), domains=(_SPREAD, Domain(), Domain()),
           rtol=1e-6, atol=1e-8, errors=_ERRORS_BN),
    # The running statistics change with the input but carry no gradient (and gradcheck would difference them).
    OpInfo(NN + "batch_norm", _BN_TRAIN, shapes=normalized(min_batch=2), order=0, rtol=1e-6, atol=1e-8, id="batch_norm_stats"),
    OpInfo(NN + "batch_norm", _with_stats(lambda f: f.batch_norm), shapes=normalized(), rtol=1e-6, atol=1e-8, id="batch_norm_eval"),
    OpInfo(NN + "batch_norm", lambda m, x: F(m).batch_norm(x, None, None, training=True, eps=0.5),
           shapes=normalized(min_batch=2, affine=False), domains=_SPREAD, rtol=1e-6, atol=1e-8, id="batch_norm_no_stats"),
    OpInfo(NN + "instance_norm", _output_only(_IN_TRAIN), shapes=normalized(3, 4, min_side=2),
           domains=(_SPREAD, Domain(), Domain()), rtol=1e-6, atol=1e-8,
           errors=(lambda m: F(m).instance_norm(m.zeros(2, 3, 1, dtype=m.float64)),)),
    OpInfo(NN + "instance_norm", _IN_TRAIN, shapes=normalized(3, 4, min_side=2), order=0, rtol=1e-6, atol=1e-8,
           id="instance_norm_stats"),
    OpInfo(NN + "instance_norm", lambda m, x: F(m).instance_norm(x, *_running(m, x.shape[1]), use_input_stats=False),
           shapes=normalized(3, 4, affine=False), id="instance_norm_running"),
    OpInfo(NN + "group_norm", lambda m, x, w, b: F(m).group_norm(x, 1 + (x.shape[1] % 2 == 0), w, b),
           shapes=normalized(2, 4, min_batch=2), domains=(_SPREAD, Domain(), Domain()), rtol=1e-6, atol=1e-8,
           errors=(lambda m: F(m).group_norm(m.zeros(2, 3, 4), 2),)),
    # torch.* twins with ATen's argument order and cuDNN flag.
    OpInfo("glassgrad.batch_norm", lambda m, x, w, b: m.batch_norm(x, w, b, *_running(m, x.shape[1]), False, 0.1, 1e-5, True),
           shapes=normalized(), rtol=1e-6, atol=1e-8),
    OpInfo("glassgrad.batch_norm", lambda m, x: m.batch_norm(x, None, None, None, None, True, 0.1, 0.5, False),
           shapes=normalized(min_batch=2, affine=False), domains=_SPREAD, rtol=1e-6, atol=1e-8, id="torch_batch_norm_train"),
    OpInfo("glassgrad.layer_norm", lambda m, x, w, b: m.layer_norm(x, x.shape[-1:], w, b, 1e-5, True), shapes=layer_shapes(),
           domains=_SPREAD, rtol=1e-6, atol=1e-8),
    OpInfo("glassgrad.group_norm", lambda m, x, w, b: m.group_norm(x, 1, w, b, 1e-5, True), shapes=normalized(2, 4, min_batch=2),
           domains=(_SPREAD, Domain(), Domain()), rtol=1e-6, atol=1e-8),
    OpInfo(NN + "local_response_norm", lambda m, x: F(m).local_response_norm(x, 3), shapes=normalized(3, 3, affine=False),
           errors=(lambda m: F(m).local_response_norm(m.zeros(2, 3), 2),)),
    OpInfo(NN + "local_response_norm", lambda m, x: F(m).local_response_norm(x, 2, alpha=0.5, beta=0.6, k=2.0),
           shapes=normalized(4, 5, affine=False), id="local_response_norm_4d"),
]
