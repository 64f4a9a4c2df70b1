"""torch.ops.aten: an op object per glassgrad op, as the modes of utils._python_dispatch see them.

glassgrad has no ATen below its public ops: `torch.ops.aten.<name>` is the op glassgrad offers under that name
(torch.<name>, Tensor.<name>, or torch.nn.functional.<name>), and calling it calls that op. An op has the overload
`default`; the binary arithmetic and comparison ops have `Tensor` (the overload PyTorch dispatches `a * b` and `a * 2`
to) and `Scalar` too, all three the same glassgrad op. Each (op, overload) is one object, so a policy may compare
them with `is` or `==` as it does under PyTorch. The few ATen ops whose arguments no public function takes are
written here (ATEN_ONLY).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tensor import Tensor

_BINARY = frozenset({
    "add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "eq", "ne", "lt", "le", "gt", "ge", "pow", "pow_",
    "remainder", "remainder_", "fmod", "fmod_", "bitwise_and", "bitwise_or", "bitwise_xor",
})
# Python's operator names, by the op PyTorch records for them; a reflected operator that does not commute takes its
# operands the other way round, so it is an op of its own (rsub is ATen's too)
_OPERATORS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub", "__rsub__": "rsub", "__isub__": "sub_",
    "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_", "__truediv__": "div", "__rtruediv__": "rdiv",
    "__itruediv__": "div_", "__matmul__": "matmul", "__rmatmul__": "rmatmul", "__pow__": "pow", "__rpow__": "rpow",
    "__ipow__": "pow_", "__neg__": "neg", "__abs__": "abs", "__eq__": "eq", "__ne__": "ne", "__lt__": "lt",
    "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__getitem__": "index", "__setitem__": "index_put_",
    "__floordiv__": "floor_divide", "__mod__": "remainder", "__and__": "bitwise_and", "__or__": "bitwise_or",
    "__xor__": "bitwise_xor", "__invert__": "bitwise_not",
}


# Core Tensor methods that are ATen ops too, which only the modes see (vmap and the profiler leave them alone)
TENSOR_METHODS = ("detach",)


def convolution_backward(
    grad_output: Tensor, input: Tensor, weight: Tensor, bias_sizes: Sequence[int] | None, stride: Sequence[int],
    padding: Sequence[int], dilation: Sequence[int], transposed: bool, output_padding: Sequence[int], groups: int,
    output_mask: Sequence[bool],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    """(grad_input, grad_weight, grad_bias) of a convolution, None where output_mask leaves one out; computed by
    differentiating the convolution itself, so tangents of the arguments reach the gradients."""
    from .autograd.engine import grad
    from .autograd.forward_ad import keeping_tangent
    from .autograd.grad_mode import enable_grad
    from .ops.convolution import _conv, _conv_transpose

    n = weight.ndim - 2
    wanted = [i for i in (0, 1) if output_mask[i]]
    grads: Sequence[Tensor] = ()
    if wanted:
        with enable_grad():
            x = keeping_tangent(input, input.detach().requires_grad_())
            w = keeping_tangent(weight, weight.detach().requires_grad_())
            if transposed:
                out = _conv_transpose(n, f"conv_transpose{n}d", x, w, None, stride, padding, output_padding, groups, dilation)
            else:
                out = _conv(n, f"conv{n}d", x, w, None, stride, padding, dilation, groups)
            grads = grad(out, [(x, w)[i] for i in wanted], grad_output)
    result: list[Tensor | None] = [None, None, None]
    for i, g in zip(wanted, grads, strict=True):
        result[i] = g
    if output_mask[2]:  # the bias adds to every position of its channel
        result[2] = grad_output.sum([d for d in range(grad_output.ndim) if d != 1])
    return result[0], result[1], result[2]


def _new_zeros_with_same_feature_meta(self: Tensor, other: Tensor, *, self_num_batch_dims: int = 0) -> Tensor:
    from .autograd.forward_ad import zeros_with_same_feature_meta

    return zeros_with_same_feature_meta(other, tuple(self.shape[:self_num_batch_dims]))


# ATen ops whose arguments no public glassgrad function takes
ATEN_ONLY: dict[str, Callable[..., Any]] = {
    "convolution_backward": convolution_backward,
    "_new_zeros_with_same_feature_meta": _new_zeros_with_same_feature_meta,
}


class FunctionSchema:
    """The little of torch.FunctionSchema a mode reads: the op's name and overload."""

    def __init__(self, name: str, overload_name: str) -> None:
        self.name, self.overload_name = name, "" if overload_name == "default" else overload_name

    def __str__(self) -> str:
        return self.name + (f".{self.overload_name}" if self.overload_name else "")


class OpOverload:
    """torch.ops.aten.<name>.<overload>: calls the glassgrad op of that name."""

    def __init__(self, packet: OpOverloadPacket, overload: str) -> None:
        self.overloadpacket, self._overloadname = packet, overload
        self.__name__ = f"{packet.__name__}.{overload}"
        self.namespace = packet.namespace
        self._schema = FunctionSchema(f"{packet.namespace}::{packet.__name__}", overload)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _call(self.overloadpacket._op, args, kwargs)

    def name(self) -> str:
        return self._schema.name

    def __repr__(self) -> str:
        return f"<OpOverload(op='{self.overloadpacket}', overload='{self._overloadname}')>"

    def __str__(self) -> str:
        return f"{self.namespace}.{self.__name__}"


class OpOverloadPacket:
    """torch.ops.aten.<name> (or a custom op's namespace): the op's overloads as attributes; calling it calls the op."""

    def __init__(self, name: str, op: Callable[..., Any], namespace: str = "aten") -> None:
        self.__name__, self._op, self.namespace = name, op, namespace
        self._overloads = {o: OpOverload(self, o) for o in (("default", "Tensor", "Scalar") if name in _BINARY else ("default",))}

    def __getattr__(self, overload: str) -> OpOverload:
        overloads = self.__dict__.get("_overloads", {})
        if overload not in overloads:
            raise AttributeError(f"The underlying op of '{self}' has no overload name '{overload}'")
        return overloads[overload]

    def overloads(self) -> list[str]:
        return list(self._overloads)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _call(self._op, args, kwargs)

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self}')>"

    def __str__(self) -> str:
        return f"{self.namespace}.{self.__name__}"


def _call(op: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """An op object's call: to the modes entered on this thread (a handler calling its `func` reaches the modes
    outside its own), else the op."""
    from .utils._python_dispatch import dispatch

    return dispatch(op, op, args, kwargs)


def _aten_name(public_name: str) -> str:
    """'Tensor.__rmul__' -> 'mul', 'glassgrad.nn.functional.linear' -> 'linear'."""
    name = public_name.rpartition(".")[2]
    return _OPERATORS.get(name, name)


class _Aten:
    """torch.ops.aten: a packet per op name glassgrad has, made on first use."""

    def __init__(self) -> None:
        self._packets: dict[str, OpOverloadPacket] = {}
        self._by_op: dict[Callable[..., Any], OpOverloadPacket] = {}

    def __getattr__(self, name: str) -> OpOverloadPacket:
        if name.startswith("__"):
            raise AttributeError(name)
        packet = self._packets.get(name)
        if packet is None:
            op = self._ops_by_name().get(name)
            if op is None:
                raise AttributeError(f"'_OpNamespace' 'aten' object has no attribute '{name}'")
            packet = self._packets[name] = OpOverloadPacket(name, op)
        return packet

    def _ops_by_name(self) -> dict[str, Callable[..., Any]]:
        from .ops.call_sites import OPS
        from .tensor import Tensor

        by_name: dict[str, Callable[..., Any]] = {name: vars(Tensor)[name] for name in TENSOR_METHODS} | ATEN_ONLY
        for op, public in OPS.items():
            by_name.setdefault(_aten_name(public), op)  # the first public name: glassgrad.<name> before Tensor.<name>
        return by_name

    def overload_for(self, op: Callable[..., Any]) -> OpOverload:
        """The op object a mode is handed for a call of the glassgrad op `op` (or of a custom op's own)."""
        if isinstance(op, OpOverload):
            return op
        packet = self._by_op.get(op)
        if packet is None:
            from .ops.call_sites import OPS

            name = _aten_name(OPS[op]) if op in OPS else op.__name__
            packet = self._packets.get(name) or OpOverloadPacket(name, op)
            self._packets.setdefault(name, packet)
            self._by_op[op] = packet
        return packet.Tensor if packet.__name__ in _BINARY else packet.default


aten = _Aten()
