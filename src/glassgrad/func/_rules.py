"""Batching rules: how an op runs on the physical tensors of one vmap level, batch dimension first.

A rule gets the Call (the op, the level, the arguments as given) and returns the op's result with every
tensor batched at that level, or NO_RULE where the arguments fall outside what it handles (an op's batched
index, an implicit dim), and the op then goes through the fallback loop. Rules call ops on physical tensors as
methods or through call.apply (the op's own dispatch), never as the imported functions, so that physical
tensors batched at an outer level are batched there in turn.

The families (each keyed by the op's function, so a function, its method and its operator share one rule):
- pointwise: NumPy broadcasting aligns the logical dims from the right, so a batched operand needs only
  size-1 dims after its batch dim to reach the others' rank, and the batch stays in front;
- dims: reductions, scans, softmax and views that take dimension arguments see them shifted by one;
- shapes: view/reshape/expand/repeat/permute take the logical shape with the batch size in front;
- matrix functions act on the last two dims, whatever leads them;
- joins, matmul, einsum and indexing (_combining_rules.py);
- layers and random draws (_layer_rules.py): nn.functional's linear, losses, normalisation, convolution,
  pooling, embedding; dropout and the random factories.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import ops
from ..ops.reduction import NO_DIM
from ..tensor import Tensor
from ._batched import BatchedTensor, VmapLevel, unwrap

NO_RULE: Any = object()  # a rule's answer for arguments it does not batch: the op falls back to the loop

Rule = Callable[["Call"], Any]
RULES: dict[Callable[..., Any], Rule] = {}

_signatures: dict[Callable[..., Any], inspect.Signature] = {}


class Call:
    """One batched call of an op: the op (its function `fn`, and `apply`, which runs it on physical tensors
    batched at outer levels), the vmap level and the arguments as given."""

    __slots__ = ("apply", "args", "fn", "kwargs", "level")

    def __init__(
        self,
        fn: Callable[..., Any],
        apply: Callable[..., Any],
        level: VmapLevel,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        self.fn, self.apply, self.level, self.args, self.kwargs = fn, apply, level, args, kwargs

    def physical(self, x: Any) -> tuple[Any, bool]:
        return unwrap(x, self.level.number)

    def bind(self) -> inspect.BoundArguments:
        """The arguments by parameter name, defaults filled in."""
        signature = _signatures.get(self.fn)
        if signature is None:
            signature = _signatures[self.fn] = inspect.signature(self.fn)
        bound = signature.bind(*self.args, **self.kwargs)
        bound.apply_defaults()
        return bound

    def batched(self, result: Any) -> Any:
        """A result computed on physical tensors, every tensor in it seen as batched at this level."""
        if isinstance(result, Tensor):
            return BatchedTensor.wrap(result, self.level.number)
        if isinstance(result, tuple):
            return _rebuilt(result, [self.batched(r) for r in result])
        if isinstance(result, list):
            return [self.batched(r) for r in result]
        return result


def _rebuilt(result: tuple[Any, ...], items: list[Any]) -> tuple[Any, ...]:
    """A tuple like `result` (a plain tuple, or a named one such as max's values and indices) of `items`."""
    return type(result)(*items) if hasattr(result, "_fields") else tuple(items)


def register(rule: Rule, *fns: Callable[..., Any]) -> None:
    for fn in fns:
        RULES[fn] = rule


def functions(names: str, namespace: str = "glassgrad") -> list[Callable[..., Any]]:
    """The ops of these (space-separated) names in a namespace, and the Tensor methods of the names."""
    space = ops.NAMESPACES[namespace]
    found = []
    for name in names.split():
        fns = [space.get(name), ops.METHODS.get(name) if namespace == "glassgrad" else None]
        if not any(fns):
            raise KeyError(f"vmap's batching rules name {namespace}.{name}, which is no op")
        found += [fn for fn in fns if fn is not None]
    return found


def logical_ndim(call: Call, x: Any) -> int:
    p, batched = call.physical(x)
    return p.dim() - 1 if batched else x.dim()


def pad_batched(p: Tensor, ndim: int) -> Tensor:
    """A physical tensor (batch first) with size-1 dims after the batch, to `ndim` logical dims."""
    missing = ndim - (p.dim() - 1)
    if missing <= 0:
        return p
    return p.reshape((p.shape[0],) + (1,) * missing + tuple(p.shape[1:]))


def wrap_dim(dim: int, ndim: int) -> int:
    bound = max(ndim, 1)
    if not -bound <= dim < bound:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], but got {dim})")
    return dim % bound


# -- pointwise ----------------------------------------------------------------------------------------------------


def _aligned(call: Call) -> tuple[list[Any], dict[str, Any], bool]:
    """The arguments with batched tensors padded to the common logical rank; whether the first is batched."""
    values = [*call.args, *call.kwargs.values()]
    ndim = max((logical_ndim(call, v) for v in values if isinstance(v, Tensor)), default=0)

    def align(v: Any) -> Any:
        p, batched = call.physical(v) if isinstance(v, Tensor) else (v, False)
        return pad_batched(p, ndim) if batched else v

    first_batched = bool(call.args) and call.physical(call.args[0])[1]
    return [align(a) for a in call.args], {k: align(v) for k, v in call.kwargs.items()}, first_batched


def pointwise(call: Call) -> Any:
    args, kwargs, _ = _aligned(call)
    return call.batched(call.apply(*args, **kwargs))


def inplace_into_unbatched(op: str) -> RuntimeError:
    """functorch's refusal of an in-place op that would write batched values into an unbatched tensor."""
    return RuntimeError(
        f"vmap: {op}(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has "
        "more elements than `self`. This happened due to `other` being vmapped over but `self` not being vmapped "
        f"over in a vmap. Please try to use out-of-place operators instead of {op}. If said operator is being called "
        "inside the PyTorch framework, please file a bug report instead."
    )


def pointwise_inplace(call: Call) -> Any:
    """An in-place op writes into the physical tensor of its batched first argument and returns that argument."""
    args, kwargs, self_batched = _aligned(call)
    if not self_batched and call.fn is ops.METHODS["copy_"]:
        raise inplace_into_unbatched("inplace arithmetic")
    if not self_batched:  # arithmetic says it as a broadcast that does not fit the output, as PyTorch's does
        shapes = [tuple(a.shape) for a in [*args, *kwargs.values()] if isinstance(a, Tensor)]
        raise RuntimeError(
            f"output with shape {list(call.args[0].shape)} doesn't match the broadcast shape "
            f"{list(np.broadcast_shapes(*shapes))}"
        )
    call.apply(*args, **kwargs)
    return call.args[0]


POINTWISE = (
    "abs absolute acos acosh add addcdiv addcmul angle arccos arccosh arcsin arcsinh arctan arctan2 arctanh asin "
    "asinh atan atan2 atanh bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor "
    "ceil clamp clamp_max clamp_min clip clone conj conj_physical contiguous copysign cos cosh deg2rad digamma div "
    "divide eq erf erfc erfinv exp exp2 expm1 fix float_power floor floor_divide fmax fmin fmod frac frexp ge gcd "
    "greater greater_equal gt heaviside hypot i0 isclose isfinite isinf isnan isneginf isposinf isreal lcm ldexp le "
    "lerp less less_equal lgamma log log10 log1p log2 logaddexp logaddexp2 logical_and logical_not logical_or "
    "logical_xor logit lt masked_fill maximum minimum mul multiply mvlgamma nan_to_num ne neg negative nextafter "
    "not_equal polygamma positive pow rad2deg reciprocal relu remainder resolve_conj resolve_neg round rsqrt rsub "
    "sgn sigmoid sign signbit sin sinc sinh sqrt square sub subtract tan tanh true_divide trunc xlogy zeros_like "
    "ones_like empty_like full_like hardshrink"
)
POINTWISE_F = (
    "sigmoid tanh relu relu6 hardtanh leaky_relu elu selu celu gelu silu mish softplus softsign hardsigmoid "
    "hardswish tanhshrink logsigmoid threshold hardshrink softshrink"
)

register(pointwise, *functions(POINTWISE), *functions(POINTWISE_F, namespace="glassgrad.nn.functional"))
register(pointwise, ops.METHODS["where"], ops.OPERATORS["__rsub__"], ops.OPERATORS["__rtruediv__"])
for _name, _fn in ops.OPERATORS.items():
    if _fn in RULES or _name in ("__getitem__", "__setitem__"):
        continue
    if getattr(_fn, "reflects", None) in RULES:
        register(pointwise, _fn)
    elif getattr(_fn, "inplace_of", None) in RULES:
        register(pointwise_inplace, _fn)
for _name, _fn in ops.INPLACE_METHODS.items():
    if ops.INPLACE.get(_name) in RULES:
        register(pointwise_inplace, _fn)
del _name, _fn
register(pointwise_inplace, ops.METHODS["copy_"], ops.METHODS["zero_"], ops.METHODS["fill_"])


def _where(call: Call) -> Any:
    return pointwise(call) if len(call.args) + len(call.kwargs) == 3 else NO_RULE  # where(c) is nonzero


register(_where, ops.FUNCTIONS["where"])


# -- dims ---------------------------------------------------------------------------------------------------------


def dims(*names: str, extra: int = 0, flat_when_none: bool = False) -> Rule:
    """A rule for an op of one batched tensor whose `names` arguments are dimensions (ints or sequences of them).

    `extra`: how many dims the op adds, for wrapping (unsqueeze's dim ranges over ndim + 1). `flat_when_none`:
    a None (or empty) dimension means all dims, as for sum() or argmax(); that runs on the physical tensor
    flattened after the batch, reduced along dim 1. Otherwise a None dimension falls back to the loop.
    """

    def rule(call: Call) -> Any:
        bound = call.bind()
        arguments = bound.arguments
        given = [arguments[name] for name in names]
        if any(isinstance(g, Tensor) for g in given):  # max(a, b) is maximum(a, b)
            return pointwise(call)
        first, *rest = arguments.values()
        p, batched = call.physical(first)
        if not batched or any(call.physical(v)[1] for v in _tensors(rest)):
            return NO_RULE
        ndim = p.dim() - 1
        if flat_when_none and (ndim == 0 or any(_all_dims(g) for g in given)):
            return _flat(call, bound, p, names)
        if any(g is None for g in given):
            return NO_RULE
        for name, g in zip(names, given, strict=True):
            if isinstance(g, int):
                arguments[name] = wrap_dim(g, ndim + extra) + 1
            else:
                arguments[name] = type(g)(wrap_dim(d, ndim + extra) + 1 for d in g)
        arguments[next(iter(arguments))] = p
        return call.batched(call.apply(*bound.args, **bound.kwargs))

    return rule


def _all_dims(dim: Any) -> bool:
    """Whether a reduction's dim argument means every dim: None, sum's default, or an empty sequence."""
    return dim is None or dim is NO_DIM or (isinstance(dim, tuple | list) and not dim)


def _tensors(values: Sequence[Any]) -> list[Tensor]:
    return [v for v in values if isinstance(v, Tensor)]


def _flat(call: Call, bound: inspect.BoundArguments, p: Tensor, names: tuple[str, ...]) -> Any:
    """A reduction over all logical dims: along dim 1 of the physical tensor flattened after the batch."""
    arguments = bound.arguments
    no_dim = all(_all_dims(arguments[name]) for name in names)
    arguments[next(iter(arguments))] = p.reshape(p.shape[0], p.shape[1:].numel())
    for name in names:
        arguments[name] = 1
    result = call.apply(*bound.args, **bound.kwargs)
    if no_dim and isinstance(result, tuple) and hasattr(result, "indices"):  # max(x) gives the value alone, max(x, dim) values and indices
        result = result[0]
    if arguments.get("keepdim"):
        shape = (p.shape[0],) + (1,) * (p.dim() - 1)
        result = _rebuilt(result, [r.reshape(shape) for r in result]) if isinstance(result, tuple) else result.reshape(shape)
    return call.batched(result)


register(
    dims("dim", flat_when_none=True),
    *functions(
        "sum mean nansum nanmean amax amin all any logsumexp prod argmax argmin max min median nanmedian "
        "count_nonzero std var std_mean var_mean"
    ),
)
register(dims("dim", flat_when_none=True), ops.METHODS["norm"], ops.FUNCTIONS["norm"])
register(
    dims("dim"),
    *functions(
        "softmax log_softmax cumsum cumprod logcumsumexp cummax cummin sort argsort topk kthvalue mode "
        "unbind select narrow split chunk tensor_split index_select unflatten diff squeeze"
    ),
    *functions("softmax log_softmax softmin glu normalize", namespace="glassgrad.nn.functional"),
)
register(dims("dim", extra=1), *functions("unsqueeze"))


def _aligned_dim(call: Call) -> Any:
    """Ops of several tensors broadcast together, along one dim (cross, cosine_similarity): the pointwise
    alignment, and the dim shifted past the batch."""
    by_name = dict(call.bind().arguments)
    _, kwargs, _ = _aligned(Call(call.fn, call.apply, call.level, (), by_name))
    if kwargs["dim"] is None:
        return NO_RULE
    ndim = max(logical_ndim(call, v) for v in by_name.values() if isinstance(v, Tensor))
    for name, value in by_name.items():  # unbatched ones to the full rank too: cross wants equal ranks
        if isinstance(value, Tensor) and not call.physical(value)[1]:
            kwargs[name] = value.reshape((1,) * (ndim + 1 - value.dim()) + tuple(value.shape))
    kwargs["dim"] = wrap_dim(kwargs["dim"], ndim) + 1
    return call.batched(call.apply(**kwargs))


register(_aligned_dim, *functions("cross"), *functions("cosine_similarity", namespace="glassgrad.nn.functional"))


register(dims("dim0", "dim1"), *functions("transpose swapaxes swapdims"))
register(dims("dim1", "dim2"), *functions("diagonal"))
register(dims("source", "destination"), *functions("movedim moveaxis"))
register(dims("dims"), *functions("roll"))


def _squeeze(call: Call) -> Any:
    bound = call.bind()
    p, batched = call.physical(bound.arguments["input"])
    if not batched or bound.arguments["dim"] is not None:
        return dims("dim")(call)
    ones = tuple(i + 1 for i, size in enumerate(p.shape[1:]) if size == 1)
    return call.batched(p.squeeze(ones) if ones else p.view(p.shape))


register(_squeeze, *functions("squeeze"))


def _flatten(call: Call) -> Any:
    bound = call.bind()
    p, _ = call.physical(bound.arguments["input"])
    ndim = p.dim() - 1
    if ndim == 0:
        return call.batched(p.reshape(p.shape[0], 1))
    start, end = (wrap_dim(bound.arguments[n], ndim) + 1 for n in ("start_dim", "end_dim"))
    return call.batched(p.flatten(start, end))


register(_flatten, *functions("flatten"))


# -- shapes -------------------------------------------------------------------------------------------------------


def shape_arg(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """A shape given as separate ints or as one sequence."""
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], Sequence | Tensor) else tuple(args)


def first_batched_only(call: Call) -> Tensor | None:
    """The physical tensor of an op whose only batched argument is its first, else None."""
    p, batched = call.physical(call.args[0])
    if not batched or any(call.physical(v)[1] for v in _tensors([*call.args[1:], *call.kwargs.values()])):
        return None
    return p


def _sized(transform: Callable[[Tensor, tuple[Any, ...]], Tensor]) -> Rule:
    """A rule for an op of one batched tensor and a shape or dims, given as ints or as one sequence (view,
    expand, permute, ...): transform(physical tensor, the shape or dims)."""

    def rule(call: Call) -> Any:
        p = first_batched_only(call)
        if p is None or call.kwargs:
            return NO_RULE
        return call.batched(transform(p, shape_arg(call.args[1:])))

    return rule


def _shifted(p: Tensor, dims: tuple[int, ...]) -> tuple[int, ...]:
    """Logical dims of a physical tensor's element as dims of the physical tensor."""
    return tuple(wrap_dim(d, p.dim() - 1) + 1 for d in dims)


def _like(method: str) -> Rule:
    """view_as/reshape_as/expand_as: the other tensor's logical shape."""

    def rule(call: Call) -> Any:
        if not call.physical(call.args[0])[1]:
            return NO_RULE
        return getattr(call.args[0], method)(*call.args[1].shape)

    return rule


def _t(call: Call) -> Any:
    p = first_batched_only(call)
    if p is None:
        return NO_RULE
    return call.batched(p.transpose(1, 2) if p.dim() == 3 else p.view(p.shape))


def _reversed_dims(call: Call) -> Any:
    p = first_batched_only(call)
    if p is None:
        return NO_RULE
    return call.batched(p.permute(0, *range(p.dim() - 1, 0, -1)))


def _last_two(call: Call) -> Any:
    """mT, mH, adjoint and the matrix functions act on the last two dims (batched over any in front), which the
    batch dim in front leaves alone."""
    p = first_batched_only(call)
    return NO_RULE if p is None else call.batched(call.apply(p, *call.args[1:], **call.kwargs))


register(_sized(lambda p, shape: p.view((p.shape[0], *shape))), ops.METHODS["view"])
register(_sized(lambda p, shape: p.reshape((p.shape[0], *shape))), *functions("reshape"))
register(_like("view"), ops.METHODS["view_as"])
register(_like("reshape"), ops.METHODS["reshape_as"])
register(_like("expand"), ops.METHODS["expand_as"])
# expand and repeat may add leading dims, which go after the batch dim.
register(
    _sized(lambda p, sizes: pad_batched(p, len(sizes)).expand(p.shape[0], *sizes)),
    ops.METHODS["expand"],
    *functions("broadcast_to"),
)
register(_sized(lambda p, sizes: pad_batched(p, len(sizes)).repeat(1, *sizes)), ops.METHODS["repeat"])
register(_sized(lambda p, dims: p.permute(0, *_shifted(p, dims))), *functions("permute"))
register(_sized(lambda p, dims: p.flip(*_shifted(p, dims))), *functions("flip"))
register(_t, *functions("t"))
register(_reversed_dims, vars(Tensor)["T"].fget)
register(_last_two, vars(Tensor)["mT"].fget, ops.PROPERTIES["mH"], *functions("adjoint"))
register(
    _last_two,
    *functions("inverse det logdet slogdet matrix_exp pinverse"),
    *functions(
        "cholesky det eigh eigvalsh inv matrix_exp pinv qr slogdet svd svdvals matrix_norm",
        namespace="glassgrad.linalg",
    ),
)
register(dims("dim", flat_when_none=True), *functions("vector_norm", namespace="glassgrad.linalg"))


def _new_tensor(call: Call) -> Any:
    """new_zeros/new_full/...: the tensor made once (the batched one lends only its dtype), then one per element,
    writable, as functorch's are."""
    p = first_batched_only(call)
    if p is None:
        return NO_RULE
    made = call.apply(p, *call.args[1:], **call.kwargs)
    return call.batched(made.unsqueeze(0).expand(call.level.batch_size, *made.shape).contiguous())


register(_new_tensor, *functions("new_zeros new_ones new_empty new_full new_tensor"))
