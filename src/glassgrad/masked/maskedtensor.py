"""MaskedTensor: a dense tensor and a bool mask of the elements that count, as torch.masked's prototype.

PyTorch's MaskedTensor is a Tensor subclass that dispatches every torch function; glassgrad's ops do not
dispatch to subclasses, so this one is a plain object with the methods programs call on it: the masked
reductions (whose results are MaskedTensors masked where any input element was), elementwise math and
arithmetic between MaskedTensors of one mask, `get_data`, `get_mask`, `to_tensor`, and autograd through the
data (`.grad` is a MaskedTensor too). `torch.exp(mt)` and other functions taking one are not supported.
"""

from __future__ import annotations

import numbers
from typing import Any

import glassgrad as gg
from glassgrad.tensor import Size, Tensor


class MaskedTensor:
    def __init__(self, data: Any, mask: Any, requires_grad: bool = False) -> None:
        if not isinstance(data, Tensor):
            raise TypeError("data must be a Tensor")
        if not isinstance(mask, Tensor):
            raise TypeError("mask must be a Tensor")
        if mask.dtype is not gg.bool:
            raise TypeError("mask must have dtype bool.")
        if data.dim() != mask.dim():
            raise ValueError("data.dim() must equal mask.dim()")
        if data.shape != mask.shape:
            raise ValueError("data.size() must equal mask.size()")
        self._masked_data = data.detach().requires_grad_(requires_grad) if requires_grad else data
        self._masked_mask = mask

    # -- what it holds ---------------------------------------------------------------------------------
    def get_data(self) -> Tensor:
        return self._masked_data

    def get_mask(self) -> Tensor:
        return self._masked_mask

    def to_tensor(self, value: Any) -> Tensor:
        """The data with every masked-out element set to value."""
        return self._masked_data.masked_fill(~self._masked_mask, value)

    @property
    def shape(self) -> Size:
        return self._masked_data.shape

    def size(self, dim: int | None = None) -> Any:
        return self._masked_data.size(dim)

    def dim(self) -> int:
        return self._masked_data.dim()

    @property
    def ndim(self) -> int:
        return self._masked_data.ndim

    @property
    def dtype(self) -> Any:
        return self._masked_data.dtype

    @property
    def requires_grad(self) -> bool:
        return self._masked_data.requires_grad

    @property
    def is_leaf(self) -> bool:
        return self._masked_data.is_leaf

    @property
    def grad(self) -> MaskedTensor | None:
        grad = self._masked_data.grad
        return None if grad is None else MaskedTensor(grad, self._masked_mask)

    def backward(self, gradient: Any = None, retain_graph: bool | None = None, create_graph: bool = False) -> None:
        self._masked_data.backward(gradient, retain_graph=retain_graph, create_graph=create_graph)

    def __repr__(self) -> str:
        if self.dim() == 0:
            value = self._masked_data.item()
            shown = f"{value:8.4f}" if isinstance(value, float) else str(value)
            present = bool(self._masked_mask.item())
            return f"MaskedTensor({shown if present else '--'}, {present})"
        body = "\n".join("  " + line for line in _rows(self._masked_data, self._masked_mask).split("\n"))
        return "MaskedTensor(\n" + body + "\n)"

    __str__ = __repr__

    # -- ops -------------------------------------------------------------------------------------------
    def _like(self, data: Tensor) -> MaskedTensor:
        return MaskedTensor(data, self._masked_mask)

    def _operand(self, other: Any) -> Any:
        if isinstance(other, MaskedTensor):
            if not gg.equal(other._masked_mask, self._masked_mask):
                raise ValueError("Input masks must match. If you need support for this, please open an issue on Github.")
            return other._masked_data
        if isinstance(other, (numbers.Number, Tensor)):
            return other
        return NotImplemented


def _rows(data: Tensor, mask: Tensor) -> str:
    """The nested rows of a MaskedTensor's repr: each element as PyTorch's prototype prints it, '--' if masked out."""
    if data.dim() == 1:
        cells = [(f"{v:8.4f}" if isinstance(v, float) else str(v), present) for v, present in zip(data.tolist(), mask.tolist(), strict=True)]
        width = max((len(text) if present else 8 for text, present in cells), default=0)
        return "[" + ", ".join(text if present else "--".rjust(width) for text, present in cells) + "]"
    inner = ("\n".join("  " + line for line in _rows(d, m).split("\n")) for d, m in zip(data, mask, strict=True))
    return "[\n" + ",\n".join(inner) + "\n]"


def _binary(name: str, reflected: bool = False) -> Any:
    def method(self: MaskedTensor, other: Any) -> Any:
        operand = self._operand(other)
        if operand is NotImplemented:
            return NotImplemented
        args = (operand, self._masked_data) if reflected else (self._masked_data, operand)
        return self._like(getattr(gg, name)(*args))

    return method


def _unary(name: str) -> Any:
    def method(self: MaskedTensor, *args: Any, **kwargs: Any) -> MaskedTensor:
        return self._like(getattr(self._masked_data, name)(*args, **kwargs))

    method.__name__ = name
    return method


def _reduction(name: str) -> Any:
    def method(self: MaskedTensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> MaskedTensor:
        from . import _ops

        result = getattr(_ops, name)(self._masked_data, dim, keepdim=keepdim, dtype=dtype, mask=self._masked_mask)
        dims = _ops._canonical_dim(dim, self.ndim)
        return MaskedTensor(result, gg.any(self._masked_mask, dims, keepdim) if dims else self._masked_mask)

    method.__name__ = name
    return method


for _name in ("add", "sub", "mul", "div"):
    setattr(MaskedTensor, f"__{_name}__", _binary(_name))
    setattr(MaskedTensor, f"__r{_name}__", _binary(_name, reflected=True))
MaskedTensor.__truediv__, MaskedTensor.__rtruediv__ = MaskedTensor.__div__, MaskedTensor.__rdiv__
for _name in ("exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "sqrt", "pow", "neg", "clamp"):
    setattr(MaskedTensor, _name, _unary(_name))
MaskedTensor.__neg__ = MaskedTensor.neg
for _name in ("sum", "mean", "amax", "amin", "prod"):
    setattr(MaskedTensor, _name, _reduction(_name))


def masked_tensor(data: Any, mask: Any, requires_grad: bool = False) -> MaskedTensor:
    return MaskedTensor(data, mask, requires_grad)


def as_masked_tensor(data: Any, mask: Any) -> MaskedTensor:
    """A MaskedTensor of data itself (gradients flow back into it), rather than of a detached copy."""
    return MaskedTensor(data, mask)


def is_masked_tensor(obj: Any) -> bool:
    return isinstance(obj, MaskedTensor)
