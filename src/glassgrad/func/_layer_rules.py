"""Batching rules for nn.functional's layers and losses, and for random draws (see _rules.py for the families).

- linear is matmul and add on the logical values, so each part takes its own rule;
- convolution, pooling and the other layers that take an optional leading batch (N, C, *spatial) fold the vmap
  batch into N, when only the input is batched;
- losses: the per-element loss (reduction='none') by the pointwise rule or on the folded batch, then reduced per
  batch element as the reduction says;
- layer_norm normalises the last dims, which the batch in front leaves alone; batched affine parameters apply
  after it;
- random draws under randomness='different' draw for the whole physical tensor at once, so each element draws
  its own values; under 'same' they draw once, for one element, and that draw is shared (the other random ops
  go through the loop with the generator rewound before each element).
"""

from __future__ import annotations

from typing import Any

from .. import ops
from ..tensor import Tensor
from ._rules import NO_RULE, Call, Rule, functions, pointwise, register, shape_arg

F = "glassgrad.nn.functional"


def _linear(call: Call) -> Any:
    bound = call.bind().arguments
    out = bound["input"].matmul(bound["weight"].mT)
    return out if bound["bias"] is None else out + bound["bias"]


register(_linear, *functions("linear", namespace=F))


def _expanded(call: Call, x: Tensor) -> Tensor:
    """x's physical tensor, batched by an expand when x is not batched at this level."""
    p, batched = call.physical(x)
    return p if batched else x.unsqueeze(0).expand(call.level.batch_size, *x.shape)


def _per_element_sum(per: Tensor) -> Tensor:
    """A physical tensor summed over everything but its batch dim."""
    return per.reshape(per.shape[0], per.shape[1:].numel()).sum(1)


def _legacy_reduction(arguments: dict[str, Any]) -> bool:
    return arguments.get("size_average") is not None or arguments.get("reduce") is not None


def _class_loss(call: Call) -> Any:
    """cross_entropy and nll_loss (no class weights): per-element losses on the batch folded into N."""
    bound = call.bind()
    a = bound.arguments
    if a["weight"] is not None or _legacy_reduction(a):
        return NO_RULE
    x, target = a["input"], a["target"]
    px, pt = _expanded(call, x), _expanded(call, target)
    size = call.level.batch_size
    indices = not target.dtype.is_floating_point
    reduction = a["reduction"]
    a["reduction"] = "none"
    if x.dim() == 1:  # one sample (C,): the batch is N
        a["input"], a["target"] = px, pt
        per = call.apply(*bound.args, **bound.kwargs)
    else:
        a["input"] = px.reshape(size * px.shape[1], *px.shape[2:])
        a["target"] = pt.reshape(size * pt.shape[1], *pt.shape[2:])
        per = call.apply(*bound.args, **bound.kwargs)
        per = per.reshape(size, px.shape[1], *per.shape[1:])
    if reduction == "none":
        return call.batched(per)
    single = per.dim() == 1
    total = per if single else _per_element_sum(per)
    if reduction == "sum":
        return call.batched(total)
    if not indices:
        return call.batched(total / per.shape[1:].numel())
    kept = pt.ne(a["ignore_index"])  # the mean is over the targets not ignored
    return call.batched(total / (kept if single else _per_element_sum(kept)))


register(_class_loss, *functions("cross_entropy nll_loss", namespace=F))


def _pointwise_loss(call: Call) -> Any:
    """Losses that are pointwise before their reduction: the pointwise rule, then the reduction per element."""
    bound = call.bind()
    a = bound.arguments
    if _legacy_reduction(a):
        return NO_RULE
    reduction = a["reduction"]
    a["reduction"] = "none"
    per = pointwise(Call(call.fn, call.apply, call.level, bound.args, bound.kwargs))
    if reduction == "none":
        return per
    if reduction == "batchmean":  # kl_div: the sum over the first dim's size
        return per.sum() / (a["input"].shape[0] if a["input"].dim() else 1)
    return per.sum() if reduction == "sum" else per.mean()


register(
    _pointwise_loss,
    *functions(
        "mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy binary_cross_entropy_with_logits "
        "soft_margin_loss kl_div",
        namespace=F,
    ),
)


def _layer_norm(call: Call) -> Any:
    bound = call.bind()
    a = bound.arguments
    affine = [a["weight"], a["bias"]]
    if not any(isinstance(t, Tensor) and call.physical(t)[1] for t in affine):
        p, batched = call.physical(a["input"])
        if not batched:
            return NO_RULE
        a["input"] = p
        return call.batched(call.apply(*bound.args, **bound.kwargs))
    # Batched affine parameters: normalise without them, then scale and shift on the logical values.
    a["weight"] = a["bias"] = None
    out = call.apply(*bound.args, **bound.kwargs)
    weight, bias = affine
    out = out if weight is None else out * weight
    return out if bias is None else out + bias


register(_layer_norm, *functions("layer_norm", namespace=F))


def _folding(spatial: int | None) -> Rule:
    """A rule for a layer whose input is (N, C, *spatial) or (C, *spatial) (or always (N, C, ...) when spatial
    is None, as for the normalisations): the vmap batch joins N."""

    def rule(call: Call) -> Any:
        x = call.args[0]
        p, batched = call.physical(x)
        others = [v for v in [*call.args[1:], *call.kwargs.values()] if isinstance(v, Tensor)]
        if not batched or any(call.physical(v)[1] for v in others):
            return NO_RULE
        if spatial is not None and x.dim() == spatial + 1:
            return call.batched(call.apply(p, *call.args[1:], **call.kwargs))
        size, n = p.shape[0], p.shape[1]
        result = call.apply(p.reshape(size * n, *p.shape[2:]), *call.args[1:], **call.kwargs)

        def unfold(r: Tensor) -> Tensor:
            return r.reshape(size, n, *r.shape[1:])

        return call.batched(tuple(unfold(r) for r in result) if isinstance(result, tuple) else unfold(result))

    return rule


for _spatial in (1, 2, 3):
    _names = "conv{0}d conv_transpose{0}d max_pool{0}d avg_pool{0}d lp_pool{0}d adaptive_avg_pool{0}d "
    _names += "adaptive_max_pool{0}d max_pool{0}d_with_indices adaptive_max_pool{0}d_with_indices"
    register(_folding(_spatial), *functions(_names.format(_spatial), namespace=F))
del _spatial, _names


def _without_running_update(call: Call) -> Any:
    """batch_norm and instance_norm fold the batch into N where they use the running statistics without updating
    them (an update from batched values into unbatched buffers is what functorch refuses)."""
    a = call.bind().arguments
    per_sample = a.get("use_input_stats", False) and a["running_mean"] is None
    if not (a.get("training") is False or per_sample):
        return NO_RULE
    return _folding(None)(call)


register(_folding(None), *functions("group_norm", namespace=F))
register(_without_running_update, *functions("batch_norm instance_norm", namespace=F))


def _direct(call: Call) -> Any:
    """Ops that act on their input's last dims whatever leads them, with their other tensors unbatched: the
    physical tensor as it is (one_hot with its classes given, constant padding)."""
    a = call.bind().arguments
    p, batched = call.physical(call.args[0])
    others = [v for v in [*call.args[1:], *call.kwargs.values()] if isinstance(v, Tensor)]
    if not batched or any(call.physical(v)[1] for v in others) or a.get("num_classes") == -1:
        return NO_RULE
    if a.get("mode", "constant") != "constant":
        return NO_RULE
    return call.batched(call.apply(p, *call.args[1:], **call.kwargs))


register(_direct, *functions("one_hot pad", namespace=F))


def _embedding(call: Call) -> Any:
    bound = call.bind()
    a = bound.arguments
    p, batched = call.physical(a["input"])
    if not batched or call.physical(a["weight"])[1] or a["max_norm"] is not None:
        return NO_RULE
    a["input"] = p
    return call.batched(call.apply(*bound.args, **bound.kwargs))


register(_embedding, *functions("embedding", namespace=F))


# -- random draws -------------------------------------------------------------------------------------------------


def _random(apart: Rule) -> Rule:
    """A rule for a random op shaped like its first argument: under 'different' `apart`, which draws for every
    element at once; under 'same' one draw, for one element's shape, shared by every element."""

    def rule(call: Call) -> Any:
        if call.bind().arguments.get("inplace") or any(
            call.physical(v)[1] for v in [*call.args[1:], *call.kwargs.values()] if isinstance(v, Tensor)
        ):
            return NO_RULE
        return apart(call) if call.level.randomness == "different" else _shared_draw(call)

    return rule


def _whole_physical(call: Call) -> Any:
    return call.batched(call.apply(_expanded(call, call.args[0]).contiguous(), *call.args[1:], **call.kwargs))


def _shared_draw(call: Call) -> Any:
    x = call.args[0]
    one_element = call.physical(x)[0].select(0, 0)
    if call.fn in _DROPOUTS:  # the mask of one element's dropout, applied to every element
        return x * call.apply(one_element.new_ones(one_element.shape), *call.args[1:], **call.kwargs)
    if call.fn in _LIKE:
        return call.apply(one_element, *call.args[1:], **call.kwargs)
    return NO_RULE


_LIKE = set(functions("rand_like randn_like"))
_DROPOUTS = set(functions("dropout dropout1d dropout2d dropout3d", namespace=F))


def _draw_in_place(call: Call) -> Any:
    p, batched = call.physical(call.args[0])
    if not batched or call.level.randomness == "same":
        return NO_RULE
    call.apply(p, *call.args[1:], **call.kwargs)
    return call.args[0]


def _draw_sized(call: Call) -> Any:
    """rand(*size) and randn(*size): one draw with the batch size in front."""
    return call.batched(call.apply(call.level.batch_size, *shape_arg(call.args), **call.kwargs))


register(_random(_whole_physical), *_LIKE, *functions("bernoulli"), *functions("dropout alpha_dropout", namespace=F))
for _spatial in (1, 2, 3):
    register(_random(_folding(_spatial)), *functions(f"dropout{_spatial}d", namespace=F))
register(_draw_in_place, *(ops.METHODS[name] for name in ("uniform_", "normal_", "bernoulli_", "exponential_")))
register(_draw_sized, *functions("rand randn"))
