"""OpInfos of glassgrad.nn.functional losses (ops/losses.py)."""

from __future__ import annotations

import warnings
from typing import Any

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..opinfo import ANY, POSITIVE, Domain, Module, OpInfo, Shapes, index, unary

F = "glassgrad.nn.functional"
CLASSES = 4
PROBABILITY = Domain(0.05, 0.95)
SIGNS = Domain(-1, 1, integral=True)  # targets of ranking and embedding losses: -1, 0 or 1
# Class and element weights are not differentiable in PyTorch (it refuses weights that require grad):
# drawn as integers and cast to the input's dtype inside the call.
WEIGHTS = Domain(1, 4, dtype="int64")


def _f(m: Module) -> Any:
    return m.nn.functional


def _quiet(fn: Any) -> Any:
    """fn with warnings silenced: kl_div warns on every 'mean' call (the warning itself is an error case)."""

    def call(*args: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)

    return call


def _same(n: int, **kwargs: Any) -> st.SearchStrategy[Shapes]:
    """n inputs of one shape."""
    return unary(**kwargs).map(lambda s: s * n)


def _classes(*rest: str) -> st.SearchStrategy[Shapes]:
    """(N, C, d...) logits, then `rest`: "indices" (N, d...), "probs" (N, C, d...) or "weight" (C,)."""

    def build(n: int, spatial: tuple[int, ...]) -> Shapes:
        logits = (n, CLASSES, *spatial)
        shapes = {"indices": (n, *spatial), "probs": logits, "weight": (CLASSES,)}
        return (logits, *(shapes[r] for r in rest))

    return st.builds(build, st.integers(0, 3), hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=2))


def _reductions(name: str, fn: Any, **fields: Any) -> list[OpInfo]:
    """One OpInfo per reduction: fn(m, reduction, *inputs)."""
    return [
        OpInfo(f"{F}.{name}", lambda m, *xs, r=r: fn(m, r, *xs), id=f"{name}_{r}", **fields) for r in ("mean", "sum", "none")
    ]


def _loss(name: str, **kwargs: Any) -> Any:
    return lambda m, r, *xs: getattr(_f(m), name)(*xs, reduction=r, **kwargs)


def _bad_reduction(name: str, *shapes: tuple[int, ...]) -> Any:
    return lambda m: getattr(_f(m), name)(*(m.ones(s) for s in shapes), reduction="average")


def _mismatch(name: str) -> Any:
    """Mismatched sizes: PyTorch warns (an error under pytest's filter) or raises."""
    return lambda m: getattr(_f(m), name)(m.ones(2, 3), m.ones(3))


def _ce_weighted(m: Module, r: str, x: Any, t: Any, w: Any, **kwargs: Any) -> Any:
    return _f(m).cross_entropy(x, t, w.to(x.dtype), reduction=r, **kwargs)


_CE_ERRORS = (
    lambda m: _f(m).cross_entropy(m.ones(3, 4), m.zeros(3)),  # float target of class-index shape
    lambda m: _f(m).cross_entropy(m.ones(3, 4), m.zeros(3, 4, dtype=m.int64)),  # int target of probabilities shape
    lambda m: _f(m).cross_entropy(m.ones(3, 4), m.tensor([0, 4, 1])),  # out of range
    lambda m: _f(m).cross_entropy(m.ones(3, 4), m.tensor([0, -1, 1])),
    lambda m: _f(m).cross_entropy(m.ones(3, 4), m.tensor([0, 1])),  # batch sizes differ
    lambda m: _f(m).cross_entropy(m.ones(2, 3, 4), m.zeros(2, 5, dtype=m.int64)),
    lambda m: _f(m).cross_entropy(m.ones(3, 4), m.zeros(3, dtype=m.int64), weight=m.ones(3)),
    lambda m: _f(m).cross_entropy(m.ones(3, 4), m.zeros(3, dtype=m.int64), label_smoothing=1.5),
    lambda m: _f(m).cross_entropy(m.ones(3, 4), m.ones(3, 4), ignore_index=1),
    lambda m: _f(m).cross_entropy(m.ones(3, 4), m.zeros(3, dtype=m.int64), reduction="avg"),
    lambda m: _f(m).cross_entropy(m.ones(3, 4), m.zeros(3, dtype=m.int64), weight=m.ones(4, requires_grad=True)),
)
_NLL_ERRORS = (
    lambda m: _f(m).nll_loss(m.tensor(1.0), m.tensor(0)),
    lambda m: _f(m).nll_loss(m.ones(3, 4), m.zeros(3, 1, dtype=m.int64)),
    lambda m: _f(m).nll_loss(m.ones(3, 4), m.zeros(3, dtype=m.int64), weight=m.ones(4, dtype=m.float64)),
    lambda m: _f(m).nll_loss(m.ones(3, 4), m.tensor([0, 1, 7]), ignore_index=1),  # out of range, one ignored
    lambda m: _f(m).nll_loss(m.ones(3, 4), m.tensor([0, -2, 1])),  # negative, ignore_index outside the classes
    lambda m: _f(m).nll_loss(m.ones(3, 4), m.zeros(3, dtype=m.int32)),  # neither Long nor Byte
    lambda m: _f(m).nll_loss(m.ones(4), m.zeros(2, dtype=m.int64)),  # one sample, two targets
    lambda m: _f(m).nll_loss(m.ones(2, 3, 4), m.zeros(2, 5, dtype=m.int64)),  # spatial target of another size
)
_BCE_ERRORS = (
    lambda m: _f(m).binary_cross_entropy(m.ones(2, 3) * 2, m.ones(2, 3)),
    lambda m: _f(m).binary_cross_entropy(m.ones(2, 3) / 2, m.ones(3) / 2),
    lambda m: _f(m).binary_cross_entropy(m.ones(2, 3) / 2, m.ones(2, 3, dtype=m.int64)),
    lambda m: _f(m).binary_cross_entropy(m.ones(2, 3) / 2, m.ones(2, 3) / 2, weight=m.ones(3, requires_grad=True)),
    lambda m: _f(m).binary_cross_entropy(m.ones(2, 3) / 2, m.ones(2, 3) / 2, weight=m.ones(4)),
)
_BCE_LOGITS_ERRORS = (
    lambda m: _f(m).binary_cross_entropy_with_logits(m.ones(2, 3), m.ones(3)),
    lambda m: _f(m).binary_cross_entropy_with_logits(m.ones(2, 3), m.ones(2, 3, dtype=m.int64)),
    lambda m: _f(m).binary_cross_entropy_with_logits(m.ones(3), m.ones(3), pos_weight=m.ones(2, 3)),
    lambda m: _f(m).binary_cross_entropy_with_logits(m.ones(3), m.ones(3), pos_weight=m.ones(3, requires_grad=True)),
    _bad_reduction("binary_cross_entropy_with_logits", (2,), (2,)),
)

# soft_margin_loss's target is not differentiable: drawn as integers and cast inside the call.
_MARGIN_TARGETS = Domain(-2, 2, dtype="int64")
_SOFT_MARGIN_ERRORS = (
    lambda m: _f(m).soft_margin_loss(m.ones(2, 3), m.ones(2, 3, requires_grad=True)),
    lambda m: _f(m).soft_margin_loss(m.ones(2, 3, dtype=m.int64), m.ones(2, 3, dtype=m.int64)),
    lambda m: _f(m).soft_margin_loss(m.ones(3), m.ones(2, 3)),  # the loss keeps the input's shape
    lambda m: _f(m).soft_margin_loss(m.ones(3), m.ones(3), size_average=False),  # PyTorch's deprecation warning
    _bad_reduction("soft_margin_loss", (2,), (2,)),
)


def _last(shape: tuple[int, ...]) -> tuple[int, ...]:
    return shape[-1:]


OPS = [
    *_reductions("mse_loss", _loss("mse_loss"), shapes=_same(2),
                 errors=(_mismatch("mse_loss"), _bad_reduction("mse_loss", (2,), (2,)),
                         lambda m: _f(m).mse_loss(m.ones(2, 3), m.ones(2, 4)),
                         lambda m: _f(m).mse_loss(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)))),
    OpInfo(f"{F}.mse_loss", lambda m, x, t, w: _f(m).mse_loss(x, t, weight=w), shapes=_same(3), id="mse_loss_weight",
           domains=(ANY, ANY, POSITIVE), errors=(lambda m: _f(m).mse_loss(m.ones(2), m.ones(2), weight=m.ones(1)),)),
    *_reductions("l1_loss", _loss("l1_loss"), shapes=_same(2),
                 errors=(_mismatch("l1_loss"), _bad_reduction("l1_loss", (2,), (2,)))),
    *_reductions("smooth_l1_loss", _loss("smooth_l1_loss", beta=0.5), shapes=_same(2),
                 errors=(_mismatch("smooth_l1_loss"), lambda m: _f(m).smooth_l1_loss(m.ones(2), m.ones(2), beta=-1.0))),
    OpInfo(f"{F}.smooth_l1_loss", lambda m, x, t: _f(m).smooth_l1_loss(x, t, beta=0.0), shapes=_same(2), id="smooth_l1_loss_beta0",
           order=1),
    *_reductions("huber_loss", _loss("huber_loss", delta=0.5), shapes=_same(2),
                 errors=(_mismatch("huber_loss"), lambda m: _f(m).huber_loss(m.ones(2), m.ones(2), delta=0.0))),
    OpInfo(f"{F}.huber_loss", lambda m, x, t, w: _f(m).huber_loss(x, t, weight=w), shapes=_same(3), id="huber_loss_weight",
           domains=(ANY, ANY, POSITIVE)),
    *_reductions("cross_entropy", _ce_weighted, shapes=_classes("indices", "weight"), domains=(ANY, index(CLASSES - 1), WEIGHTS),
                 errors=_CE_ERRORS),
    OpInfo(f"{F}.cross_entropy", lambda m, x, t: _f(m).cross_entropy(x, t.reshape(())), shapes=st.just(((CLASSES,), (1,))),
           domains=(ANY, index(CLASSES - 1)), id="cross_entropy_single"),
    *(OpInfo(f"{F}.cross_entropy", lambda m, x, t, w, r=r: _ce_weighted(m, r, x, t, w, ignore_index=CLASSES, label_smoothing=0.2),
             shapes=_classes("indices", "weight"), domains=(ANY, index(CLASSES), WEIGHTS), id=f"cross_entropy_smoothing_{r}")
      for r in ("mean", "none")),
    OpInfo(f"{F}.cross_entropy", lambda m, x, t: _f(m).cross_entropy(x, t, ignore_index=2), shapes=_classes("indices"),
           domains=(ANY, index(CLASSES - 1)), id="cross_entropy_ignore"),
    *(OpInfo(f"{F}.cross_entropy", lambda m, x, p, w, r=r: _f(m).cross_entropy(x, p, w, reduction=r, label_smoothing=0.1),
             shapes=_classes("probs", "weight"), domains=(ANY, PROBABILITY, POSITIVE), id=f"cross_entropy_probs_{r}")
      for r in ("mean", "sum", "none")),
    OpInfo(f"{F}.cross_entropy", lambda m, x, p: _f(m).cross_entropy(x, p), shapes=st.just(((CLASSES,), (CLASSES,))),
           domains=(ANY, PROBABILITY), id="cross_entropy_single_probs"),
    *_reductions("nll_loss", lambda m, r, x, t, w: _f(m).nll_loss(x, t, w.to(x.dtype), ignore_index=0, reduction=r),
                 shapes=_classes("indices", "weight"), domains=(ANY, index(CLASSES - 1), WEIGHTS), errors=_NLL_ERRORS),
    *_reductions("binary_cross_entropy", lambda m, r, x, t, w: _f(m).binary_cross_entropy(x, t, w.to(x.dtype), reduction=r),
                 shapes=unary().map(lambda s: (s[0], s[0], _last(s[0]))), domains=(PROBABILITY, Domain(0, 1), WEIGHTS),
                 errors=_BCE_ERRORS),
    *_reductions("binary_cross_entropy_with_logits",
                 lambda m, r, x, t, w, p: _f(m).binary_cross_entropy_with_logits(x, t, w.to(x.dtype), reduction=r, pos_weight=p.to(x.dtype)),
                 shapes=unary().map(lambda s: (s[0], s[0], s[0], _last(s[0]))), domains=(Domain(-30, 30), Domain(0, 1), WEIGHTS, WEIGHTS),
                 errors=_BCE_LOGITS_ERRORS),
    OpInfo(f"{F}.binary_cross_entropy_with_logits", lambda m, x, t: _f(m).binary_cross_entropy_with_logits(x, t),
           shapes=_same(2), domains=(ANY, Domain(0, 1)), id="binary_cross_entropy_with_logits_plain"),
    *_reductions("kl_div", _quiet(_loss("kl_div")), shapes=_same(2), domains=(ANY, PROBABILITY),
                 errors=(_bad_reduction("kl_div", (2,), (2,)), lambda m: _f(m).kl_div(m.ones(2), m.ones(2)))),
    OpInfo(f"{F}.kl_div", lambda m, x, t: _f(m).kl_div(x, t, reduction="batchmean", log_target=True), shapes=_same(2),
           id="kl_div_batchmean_log"),
    *_reductions("margin_ranking_loss", _loss("margin_ranking_loss", margin=0.25), shapes=_same(3), domains=(ANY, ANY, SIGNS),
                 errors=(lambda m: _f(m).margin_ranking_loss(m.ones(2, 3), m.ones(2, 3), m.ones(3)),)),
    *_reductions("hinge_embedding_loss", _loss("hinge_embedding_loss"), shapes=_same(2), domains=(Domain(-3, 3, kinks=(1.0,)), SIGNS)),
    *_reductions("cosine_embedding_loss", _loss("cosine_embedding_loss", margin=0.25), domains=(ANY, ANY, SIGNS),
                 shapes=st.builds(lambda n, d: ((n, d), (n, d), (n,)), st.integers(0, 3), st.integers(1, 3)),
                 errors=(lambda m: _f(m).cosine_embedding_loss(m.ones(3), m.ones(3), m.ones(3)),
                         lambda m: _f(m).cosine_embedding_loss(m.ones(2, 3), m.ones(2, 3), m.ones(2, 3)))),
    OpInfo(f"{F}.cosine_embedding_loss", lambda m, a, b, t: _f(m).cosine_embedding_loss(a, b, t.reshape(())),
           domains=(ANY, ANY, SIGNS), shapes=st.builds(lambda d: ((d,), (d,), (1,)), st.integers(1, 3)), id="cosine_embedding_loss_single"),
    *_reductions("triplet_margin_loss", _loss("triplet_margin_loss", swap=True), shapes=_same(3, min_dims=1),
                 errors=(lambda m: _f(m).triplet_margin_loss(m.ones(2, 3), m.ones(2, 3), m.ones(3)),
                         lambda m: _f(m).triplet_margin_loss(m.ones(3), m.ones(3), m.ones(3), margin=0.0))),
    *_reductions("poisson_nll_loss", _loss("poisson_nll_loss", full=True), shapes=_same(2), domains=(ANY, Domain(0.2, 3)),
                 errors=(_bad_reduction("poisson_nll_loss", (2,), (2,)),)),
    OpInfo(f"{F}.poisson_nll_loss", lambda m, x, t: _f(m).poisson_nll_loss(x, t, log_input=False), shapes=_same(2),
           domains=(POSITIVE, Domain(0, 3)), id="poisson_nll_loss_rate"),
    *_reductions("gaussian_nll_loss", _loss("gaussian_nll_loss", full=True), shapes=_same(3), domains=(ANY, ANY, POSITIVE),
                 errors=(lambda m: _f(m).gaussian_nll_loss(m.ones(2, 3), m.ones(2, 3), -m.ones(2, 3)),
                         lambda m: _f(m).gaussian_nll_loss(m.ones(2, 3), m.ones(2, 3), m.ones(3, 3)),
                         lambda m: _f(m).gaussian_nll_loss(m.ones(2, 3), m.ones(2, 3), m.ones(2, 3), reduction="x"),
                         lambda m: _f(m).gaussian_nll_loss(m.ones(2, 3), m.ones(2, 3), 1))),
    OpInfo(f"{F}.gaussian_nll_loss", lambda m, x, t, v: _f(m).gaussian_nll_loss(x, t, v),
           shapes=unary(min_dims=1).map(lambda s: (s[0], s[0], s[0][:-1])), domains=(ANY, ANY, POSITIVE),
           id="gaussian_nll_loss_homoscedastic"),
    OpInfo(f"{F}.gaussian_nll_loss", lambda m, x, t: _f(m).gaussian_nll_loss(x, t, 0.5), shapes=_same(2),
           id="gaussian_nll_loss_float_var"),
    *_reductions("soft_margin_loss", lambda m, r, x, t: _f(m).soft_margin_loss(x, t.to(x.dtype) * 0.75, reduction=r),
                 shapes=_same(2), domains=(Domain(-3, 3), _MARGIN_TARGETS), errors=_SOFT_MARGIN_ERRORS),
    OpInfo(f"{F}.soft_margin_loss", lambda m, x, t: _f(m).soft_margin_loss(x, t, reduction="none"),
           shapes=unary(min_dims=1).map(lambda s: (s[0], _last(s[0]))), domains=(ANY, _MARGIN_TARGETS),
           id="soft_margin_loss_broadcast_int_target"),
    # PyTorch's gradient negates the target first, which a bool target refuses; so must glassgrad's.
    OpInfo(f"{F}.soft_margin_loss", lambda m, x, t: _f(m).soft_margin_loss(x, t), shapes=_same(2, min_side=1),
           domains=(ANY, Domain(dtype="bool")), id="soft_margin_loss_bool_target",
           xfail={"gradcheck": "the gradient refuses a bool target, as PyTorch's does"}),
]
