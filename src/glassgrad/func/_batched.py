"""The batched value of vmap: a physical glassgrad Tensor with the batch dimension at the front, and its level.

A BatchedTensor at level L shows the code inside vmap L its logical value, the physical one without dim 0.
Its physical tensor may itself be a BatchedTensor of an outer vmap (a lower level), so nested vmaps nest
wrappers, innermost level outermost, as functorch's do: the plain tensor at the core holds one batch dimension
per level it is batched at, in ascending level order, then the logical dimensions. The autograd graph is
recorded on those plain tensors by the ordinary ops, so the engine never sees a BatchedTensor.

BatchedTensor subclasses Tensor so that code that checks `isinstance(x, Tensor)` (functional_call, the pytree
of a transform's arguments, grad's argument checks) accepts it. It has no data of its own: its ops are the
dispatchers that vmap installs on Tensor for its duration (see _dispatch.py), and the few methods below answer
metadata questions from the physical tensor. Anything else that reaches for its data is an op called around
the dispatch, and raises saying so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from ..tensor import Size, Tensor, TensorBase


@dataclass(frozen=True)
class VmapLevel:
    """One active vmap call: its level (1 for the outermost), batch size and randomness mode."""

    number: int
    batch_size: int
    randomness: str


LEVELS: list[VmapLevel] = []  # the active vmaps, outermost first; LEVELS[L - 1] is level L

_ITEM = (
    "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on a Tensor, "
    "please try to rewrite what you're doing with other operations. If error is occurring somewhere inside PyTorch "
    "internals, please file a bug report."
)
_CONTROL_FLOW = (
    "vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. We don't support "
    "that yet, please file an issue at https://github.com/pytorch/pytorch/issues ."
)


def _undispatched(name: str) -> RuntimeError:
    return RuntimeError(
        f"vmap: glassgrad read {name!r} of a batched tensor directly: an op reached it without vmap's dispatch. "
        "Call ops through torch.*, torch.nn.functional.*, torch.linalg.* or Tensor methods (not a function "
        "imported from glassgrad's internals), and do not use a batched tensor after its vmap has returned."
    )


class _NoArray:
    """A batched tensor's array: an op that reads it was not dispatched by vmap, and says so."""

    __slots__ = ()

    def __getattr__(self, name: str) -> NoReturn:
        raise _undispatched("_data")


_NO_ARRAY = _NoArray()


class BatchedTensor(Tensor):
    __slots__ = ("_level", "_physical")

    _physical: Tensor
    _level: int

    # -- metadata: the logical view of the physical tensor -----------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._physical.shape[1:])

    def size(self, dim: int | None = None) -> Any:
        shape = self.shape
        return shape if dim is None else shape[self._wrap_dim(dim, len(shape))]

    @property
    def ndim(self) -> int:
        return self._physical.dim() - 1

    def dim(self) -> int:
        return self._physical.dim() - 1

    def ndimension(self) -> int:
        return self._physical.dim() - 1

    def numel(self) -> int:
        return self.shape.numel()

    def nelement(self) -> int:
        return self.shape.numel()

    @property
    def dtype(self) -> Any:
        return self._physical.dtype

    def element_size(self) -> int:
        return self._physical.element_size()

    @property
    def itemsize(self) -> int:
        return self._physical.element_size()

    def is_complex(self) -> bool:
        return self._physical.is_complex()

    def is_contiguous(self, memory_format: Any = None) -> bool:
        return self._physical.is_contiguous()

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        return BatchedTensor.wrap(self._physical.to(*args, **kwargs), self._level)

    # -- autograd: the graph lives on the plain tensor at the core ------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return core(self).requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        core(self).requires_grad = value

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        core(self).requires_grad_(requires_grad)
        return self

    @property
    def grad_fn(self) -> Any:  # type: ignore[override]
        return core(self).grad_fn

    @property
    def is_leaf(self) -> bool:
        return core(self).is_leaf

    @property
    def _version(self) -> int:
        return core(self)._version

    def detach(self) -> Tensor:
        return BatchedTensor.wrap(self._physical.detach(), self._level)

    def backward(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise RuntimeError(
            "backward() called inside a functorch transform. This is not supported, please use functorch.grad or "
            "functorch.vjp instead or call backward() outside of functorch transforms."
        )

    # -- Python values depend on the batch element: functorch refuses them ---------------------------------------
    def item(self) -> NoReturn:
        raise RuntimeError(_ITEM)

    __float__ = __int__ = __complex__ = __index__ = item  # type: ignore[assignment]

    def __bool__(self) -> NoReturn:
        raise RuntimeError(_CONTROL_FLOW)

    def tolist(self) -> NoReturn:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    numpy = __array__ = tolist  # type: ignore[assignment]

    def __len__(self) -> int:
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return int(self.shape[0])

    def __iter__(self) -> Any:
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __repr__(self) -> str:
        value = "\n".join("    " + line for line in repr(self._physical).split("\n"))
        return f"BatchedTensor(lvl={self._level}, bdim=0, value=\n{value}\n)"

    def __getattr__(self, name: str) -> Any:
        if name not in TensorBase.__slots__:
            return Tensor.__getattr__(self, name)  # a name no tensor has: the AttributeError a Tensor gives
        raise _undispatched(name)  # a tensor's field, unset on a batched tensor (the pure-Python path)

    @staticmethod
    def wrap(physical: Tensor, level: int) -> BatchedTensor:
        """`physical` (batch dimension first) seen as batched at `level`."""
        t = TensorBase.__new__(BatchedTensor)
        t._data = _NO_ARRAY  # compiled, a tensor's fields exist from the start (None): this one still refuses
        t._physical = physical
        t._level = level
        return t


def unwrap(x: Any, level: int) -> tuple[Any, bool]:
    """(the physical tensor with the batch first, True) when x is batched at `level`, else (x, False)."""
    if type(x) is BatchedTensor and x._level == level:
        return x._physical, True
    return x, False


def core(x: Tensor) -> Tensor:
    """The plain tensor at the core of x, holding the graph."""
    while type(x) is BatchedTensor:
        x = x._physical
    return x


def levels_of(x: Any) -> tuple[int, ...]:
    """Every level x is batched at, ascending: the order of the batch dimensions of its core tensor."""
    levels = []
    while type(x) is BatchedTensor:
        levels.append(x._level)
        x = x._physical
    return tuple(reversed(levels))


def rewrap(plain: Tensor, levels: tuple[int, ...]) -> Tensor:
    """A plain tensor whose leading dims are the batch dims of `levels` (ascending), wrapped at them."""
    for level in levels:
        plain = BatchedTensor.wrap(plain, level)
    return plain


def spread(x: Tensor, numbers: tuple[int, ...] | None = None) -> tuple[Tensor, Callable[[Tensor], Tensor]]:
    """x batched at the levels `numbers` (default: every active level), which must include those x is batched at:
    (its core tensor, a function wrapping a tensor of that shape likewise).

    grad inside vmap differentiates by such a core tensor, so that every batch element gets its own gradient
    (functorch's per-sample gradients of unbatched parameters); the leading dims of a missing level are an
    expand, so no data is copied.
    """
    if numbers is None:
        numbers = tuple(level.number for level in LEVELS)
    if not numbers:
        return x, lambda t: t
    have = levels_of(x)
    plain = core(x)
    for position, number in enumerate(numbers):
        if number not in have:
            plain = plain.unsqueeze(position)
            size = LEVELS[number - 1].batch_size
            plain = plain.expand(*plain.shape[:position], size, *plain.shape[position + 1 :])
    return plain, lambda t: rewrap(t, numbers)


def select(x: Any, level: int, index: int) -> Any:
    """Element `index` of x along the batch dimension of `level` (x itself when it is not batched there)."""
    if type(x) is not BatchedTensor or level not in levels_of(x):
        return x
    if x._level == level:
        return x._physical.select(0, index)
    return BatchedTensor.wrap(select(x._physical, level, index), x._level)
