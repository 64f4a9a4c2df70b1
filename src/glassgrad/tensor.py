"""Tensor: a NumPy array, a version counter shared with its views, and autograd metadata.

Arithmetic and the other ops are defined in `glassgrad.ops`; their tensor
methods are installed from the op registry there, so adding an op touches
one place.
"""

from __future__ import annotations

import itertools
import warnings
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from . import _device, _dtype, _layout
from ._device import CPU, device
from ._dtype import dtype
from .autograd import grad_mode
from .autograd.grad_mode import state as mode_state  # read by every new tensor: one lookup fewer than grad_mode.state
from .autograd.grad_mode import usage as mode_usage

if TYPE_CHECKING:
    from .autograd.graph import AccumulateGrad, Node, RemovableHandle


class VersionCounter:
    """Shared by a tensor, its views and its detached aliases; in-place ops bump it and say where."""

    __slots__ = ("modified_at", "value")

    def __init__(self) -> None:
        self.value = 0
        self.modified_at: Any = None  # where the last in-place op ran (a sites.Position), for the version error


class Size(tuple):
    """torch.Size: a tuple of ints that prints as PyTorch's does."""

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(map(str, self))}])"

    def __getitem__(self, index: Any) -> Any:
        # A slice of a Size is a Size in PyTorch (it shows in messages such as MHA's "key's sequence and batch dims").
        item = super().__getitem__(index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other: Any) -> Any:
        # Size + tuple and tuple + Size are Sizes in PyTorch (batch_shape + event_shape shows in messages)
        return Size(tuple.__add__(self, other)) if isinstance(other, tuple) else NotImplemented

    def __radd__(self, other: Any) -> Any:
        return Size(tuple.__add__(other, self)) if isinstance(other, tuple) else NotImplemented

    def numel(self) -> int:
        return int(np.prod(self, dtype=np.int64))


NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
    "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf "
    "Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
    "you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)


# A leaf's _grad_dtype when set to None: its gradients keep whatever dtype autograd computes.
ANY_GRAD_DTYPE: Any = object()


class TensorBase:
    """A tensor's fields and how an empty one is filled in.

    Compiled, this is an extension type (tensor.pxd gives its C layout), so the compiled core reads and writes
    these fields directly; `Tensor` below is a Python class over it, as PyTorch's torch.Tensor is over
    torch._C.TensorBase, because the ops install their methods on it (a compiled type's attributes are fixed).
    `__getattr__` belongs there too: on a compiled base, Python would route every attribute read of a subclass
    through it.
    """

    __slots__ = (
        "__weakref__",
        "_accumulator",
        "_backward_hooks",
        "_base",
        "_counter",
        "_data",
        "_grad",
        "_grad_dtype",
        "_is_inference",
        "_output_nr",
        "_post_accumulate_hooks",
        "_requires_grad",
        "_retains_grad",
        "_view_chain",
        "_views",
        "grad_fn",
    )

    def _init(self, array: np.ndarray) -> None:
        self._data = array
        self._counter: VersionCounter | None = None
        self._requires_grad = False
        self._grad: Tensor | None = None
        self._grad_dtype: np.dtype | None = None  # None: the tensor's own; ANY_GRAD_DTYPE: whatever autograd computes
        self.grad_fn: Node | None = None
        self._output_nr = 0
        self._base: Tensor | None = None
        self._view_chain: tuple[tuple[Callable[..., Tensor], tuple[Any, ...]], ...] = ()
        self._views: list[weakref.ref[Tensor]] | None = None  # on a base: its views autograd sees (see inplace.py)
        self._accumulator: weakref.ref[AccumulateGrad] | None = None
        self._backward_hooks: dict[int, Callable[..., Any]] | None = None
        self._post_accumulate_hooks: dict[int, Callable[..., Any]] | None = None
        self._retains_grad = False
        self._is_inference = mode_usage.inference and mode_state.inference

    def _with_history(self, node: Node, output_nr: int) -> Tensor:
        self.grad_fn = node
        self._output_nr = output_nr
        self._requires_grad = True
        return self

    def _shared_counter(self) -> VersionCounter:
        """`_version_counter`, for the compiled core (a C call there, where the property is a Python lookup)."""
        # Made on first use: most tensors are temporaries that are never saved, viewed or modified in place.
        counter = self._counter
        if counter is None:
            counter = self._counter = VersionCounter()
        return counter


# Module globals: compiled, reading np.ndarray or TensorBase.__new__ would be an attribute lookup per call
_NDARRAY = np.ndarray
_NEW_TENSOR_BASE = TensorBase.__new__


def wrap_array(array: Any) -> Tensor:
    """A new tensor around `array` (no copy) with no autograd history: `Tensor._wrap`."""
    if type(array) is not _NDARRAY:
        array = np.asarray(array)
    t = _NEW_TENSOR_BASE(Tensor)
    t._init(array)
    return t


# What `del t.<name>` raises, as PyTorch's
_UNDELETABLE: dict[str, tuple[type[Exception], str]] = {
    "data": (RuntimeError, "Deleting tensor data is not allowed. Delete tensor instead!"),
    "requires_grad": (RuntimeError, "requires_grad must be a bool"),
    "_grad_fn": (RuntimeError, "Deletion of _grad_fn not allowed. Detach tensor instead!"),
    "_backward_hooks": (RuntimeError, "Deletion of _backwards_hooks not allowed!"),
    "grad_fn": (AttributeError, "attribute 'grad_fn' of 'torch._C.TensorBase' objects is not writable"),
}


class Tensor(TensorBase):
    __slots__ = ()

    # -- construction ----------------------------------------------------------
    # glassgrad.ops.legacy.legacy_new, installed with the ops (the core does not import them)
    _legacy_new: ClassVar[Callable[..., Tensor]]

    def __new__(cls, *args: Any, **kwargs: Any) -> Tensor:
        """The legacy constructor of the default dtype: Tensor(*sizes) is uninitialised, Tensor(data) copies and
        Tensor(other) aliases, as in PyTorch. Ops make tensors with `_wrap`, which does not come through here."""
        return Tensor._legacy_new(None, args, kwargs)

    # A module function (which the compiled core types, tensor.pxd) in the place every caller knows it by.
    _wrap = staticmethod(wrap_array)

    @property
    def _version_counter(self) -> VersionCounter:
        return self._shared_counter()

    @_version_counter.setter
    def _version_counter(self, counter: VersionCounter) -> None:
        self._counter = counter

    # -- metadata --------------------------------------------------------------
    @property
    def dtype(self) -> dtype:
        return _dtype._BY_NUMPY[self._data.dtype]

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[self._wrap_dim(dim)]

    def _wrap_dim(self, dim: int, ndim: int | None = None) -> int:
        n = self._data.ndim if ndim is None else ndim
        bound = max(n, 1)
        if not -bound <= dim < bound:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], but got {dim})")
        return dim % bound

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def ndimension(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    def nelement(self) -> int:
        return int(self._data.size)

    def element_size(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return int(self._data.nbytes)

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    def __getattr__(self, name: str) -> Any:  # reached only when a name is missing: say it is PyTorch's, and where
        from ._missing import missing

        raise missing("glassgrad.Tensor", name, f"'Tensor' object has no attribute '{name}'")

    @property
    def device(self) -> device:
        return CPU

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def is_cpu(self) -> bool:
        return True

    @property
    def volatile(self) -> bool:
        """Removed from PyTorch long ago (no_grad replaced it); reading it warns and gives False, as there."""
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
        return False

    def _is_view(self) -> bool:
        """Whether autograd sees this tensor as a view of another (its `_base`); an inference tensor never is."""
        return self._base is not None and not self._is_inference

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def output_nr(self) -> int:
        """Which output of its grad_fn this tensor is (0 for a leaf)."""
        return self._output_nr

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._data.dtype.kind == "c"

    def is_conj(self) -> bool:
        return False  # glassgrad's conj() computes the conjugate: no tensor carries PyTorch's lazy conjugate bit

    def is_neg(self) -> bool:
        return False

    def is_contiguous(self, memory_format: _layout.memory_format | None = None) -> bool:
        order = getattr(memory_format, "order", None)
        if order is None:  # contiguous_format, or the argument left out
            return bool(self._data.flags.c_contiguous)
        return self._data.ndim == len(order) and _layout.is_laid_out(self._data.shape, self.stride(), order)

    def is_inference(self) -> bool:
        return self._is_inference

    @property
    def _version(self) -> int:
        return self._version_counter.value

    @property
    def is_sparse(self) -> bool:
        return False

    @property
    def layout(self) -> _layout.layout:
        return _layout.strided

    def data_ptr(self) -> int:
        return int(self._data.__array_interface__["data"][0])

    const_data_ptr = data_ptr

    def storage(self) -> Any:
        """The deprecated TypedStorage of this tensor's memory (untyped_storage() is the current way)."""
        from .storage import typed_storage

        return typed_storage(self)

    def storage_offset(self) -> int:
        """Elements between the start of the memory this tensor views and its first element, as in PyTorch."""
        from numpy.lib.array_utils import byte_bounds

        root = self._data
        while isinstance(root.base, np.ndarray):
            root = root.base
        return (self.data_ptr() - int(byte_bounds(root)[0])) // self._data.itemsize

    def dim_order(self, *, ambiguity_check: bool | list[_layout.memory_format] = False) -> tuple[int, ...]:
        """The dimensions from outermost to innermost in memory (larger strides first, ties in logical order)."""
        strides, shape = self.stride(), self._data.shape
        if ambiguity_check is not False and (any(a == b for a, b in itertools.pairwise(strides)) or 1 in shape):
            formats = ambiguity_check if isinstance(ambiguity_check, list) else []
            if sum(self.is_contiguous(memory_format=f) for f in formats) != 1:
                raise RuntimeError(
                    "The tensor does not have unique dim order, or cannot map to exact one of the given memory formats."
                )
            raise RuntimeError("The tensor does not have unique dim order.")
        return tuple(sorted(range(self._data.ndim), key=lambda d: -strides[d]))

    def is_set_to(self, tensor: Tensor) -> bool:
        """Whether both tensors view the same memory with the same shape and strides."""
        mine, theirs = self._data, tensor._data
        return mine.shape == theirs.shape and mine.strides == theirs.strides and self.data_ptr() == tensor.data_ptr()

    def is_same_size(self, other: Tensor) -> bool:
        return self._data.shape == other._data.shape

    def is_signed(self) -> bool:
        return self.dtype.is_signed

    def is_nonzero(self) -> bool:
        if self._data.size != 1:
            amount = "no values" if self._data.size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
        return bool(self._data.reshape(()).item())

    def get_device(self) -> int:
        return -1  # PyTorch's answer for a CPU tensor

    # A dense CPU tensor, never pinned, as PyTorch answers for one: glassgrad has no other kind.
    def is_pinned(self, device: Any = None) -> bool:
        return False

    def is_shared(self) -> bool:
        from .storage import is_shared

        return is_shared(self._data)

    def share_memory_(self) -> Tensor:
        """Move this tensor's storage into memory that other processes can map, in place (its views follow)."""
        from .storage import share_memory

        share_memory([self])
        return self

    def is_distributed(self) -> bool:
        return False

    def dense_dim(self) -> int:
        return self._data.ndim

    def sparse_dim(self) -> int:
        return 0

    def to_dense(self, dtype: dtype | None = None, *, masked_grad: bool | None = None) -> Tensor:
        return self if dtype is None else self.to(dtype)

    def stride(self, dim: int | None = None) -> Any:
        strides = tuple(s // self._data.itemsize for s in self._data.strides)
        return strides if dim is None else strides[self._wrap_dim(dim)]

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __hash__(self) -> int:
        return id(self)

    # -- autograd attributes ---------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self.grad_fn is not None:
            if value:
                return
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
            )
        if value and not _dtype.is_inexact(self._data.dtype):
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if value and self._is_inference and not grad_mode.state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = bool(value)

    @property
    def grad(self) -> Tensor | None:
        if self._grad is None and self.grad_fn is not None and not self._retains_grad:
            import warnings

            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            _check_assigned_grad(self, value)
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def grad_dtype(self) -> dtype | None:
        """The dtype a leaf's .grad must have (the tensor's own unless set; None: any), which backward casts to."""
        if self.grad_fn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        grad_dtype = self._grad_dtype
        if grad_dtype is None:
            return self.dtype
        return None if grad_dtype is ANY_GRAD_DTYPE else _dtype.from_numpy_dtype(grad_dtype)

    @grad_dtype.setter
    def grad_dtype(self, value: dtype | None) -> None:
        if self.grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and not isinstance(value, dtype):
            raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}")
        grad = self._grad
        if value is not None and grad is not None and grad._data.dtype != value.np:
            raise RuntimeError(
                f"Cannot set grad_dtype to '{value.scalar_name}' because there is already a gradient with dtype "
                f"'{_dtype.CPP_NAMES.get(grad.dtype, grad.dtype.name)}'. Please clear the gradient (.grad = None) "
                "before changing grad_dtype, or ensure the new grad_dtype matches the existing gradient's dtype."
            )
        self._grad_dtype = ANY_GRAD_DTYPE if value is None else value.np

    def as_subclass(self, cls: type[Tensor]) -> Tensor:
        """A `cls` instance aliasing this tensor (AliasBackward0 when it requires grad), as PyTorch's as_subclass."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(
                "Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. Make sure "
                "your class inherits from Tensor."
            )
        alias = self[...]
        result = TensorBase.__new__(cls)
        for slot in TensorBase.__slots__[1:]:  # all but __weakref__
            setattr(result, slot, getattr(alias, slot))
        return result

    def module_load(self, other: Tensor, assign: bool = False) -> Tensor:
        """How Module.load_state_dict turns the state dict's `other` into what replaces this parameter or buffer."""
        return other.detach() if assign else self.copy_(other).detach()

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        self.requires_grad = requires_grad
        return self

    def retain_grad(self) -> None:
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        node = self.grad_fn
        if node._retains_grad is None:
            node._retains_grad = {}
        node._retains_grad[self._output_nr] = weakref.ref(self)

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """hook(grad) runs when this tensor's gradient is computed; it may return a replacement."""
        from .autograd.graph import add_hook

        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn._register_tensor_hook(self._output_nr, hook)
        if self._backward_hooks is None:
            self._backward_hooks = {}
        return add_hook(self._backward_hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        from .autograd.graph import add_hook

        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = {}
        return add_hook(self._post_accumulate_hooks, hook)

    def detach(self) -> Tensor:
        """A tensor sharing storage and version counter, with no history."""
        t = Tensor._wrap(self._data)
        t._version_counter = self._version_counter
        t._is_inference = self._is_inference
        return t

    def detach_(self) -> Tensor:
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._output_nr = 0
        self._requires_grad = False
        from .autograd import forward_ad

        forward_ad.set_tangent(self, None)  # a dual tensor loses its tangent too, as in PyTorch
        return self

    @property
    def data(self) -> Tensor:
        """Like detach(), but in-place changes through it are not seen by autograd (a new version counter)."""
        return Tensor._wrap(self._data)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if value.is_sparse:  # a dense tensor cannot become a sparse one in place
            raise RuntimeError(
                "Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have incompatible tensor type."
            )
        if self._requires_grad and not _dtype.is_inexact(value._data.dtype):
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
        self._data = value._data

    def __delattr__(self, name: str) -> None:
        """PyTorch's errors for deleting what a tensor cannot be without (a deleter on each would not stop `del` of
        a slot, and a property in its place would slow every read)."""
        refused = _UNDELETABLE.get(name)
        if refused is not None:
            raise refused[0](refused[1])
        super().__delattr__(name)

    # -- conversion --------------------------------------------------------------
    def numpy(self, *, force: bool = False) -> np.ndarray:
        if self._requires_grad and grad_mode.state.grad_enabled and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._exported()

    def _exported(self) -> np.ndarray:
        """The array, for NumPy's eyes: PyTorch refuses to hand NumPy a bfloat16 or float8 tensor."""
        if _dtype.is_low_precision(self._data.dtype):
            raise TypeError(f"Got unsupported ScalarType {self.dtype.scalar_name}")
        return self._data

    # NumPy defers to a tensor's reflected operators (np.float64(2.0) * t is t.__rmul__), as to PyTorch's tensors
    __array_priority__ = 1000

    def __array_wrap__(self, array: np.ndarray, context: Any = None, return_scalar: bool = False) -> Tensor:
        """A NumPy ufunc applied to a tensor gives a tensor (np.exp(t)), as in PyTorch."""
        return Tensor._wrap(np.asarray(array))

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        data = self._exported()
        return data if dtype is None else data.astype(dtype)

    def item(self) -> Any:
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self) -> Any:
        return self._data.tolist()

    def __float__(self) -> float:
        return float(self.item())

    def __complex__(self) -> complex:
        return complex(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    __bool__ = is_nonzero

    def cpu(self) -> Tensor:
        return self

    def pin_memory(self, device: Any = None) -> Tensor:
        _device.refuse_pinning(device)

    def record_stream(self, stream: Any) -> None:
        if isinstance(stream, _device.Stream):
            raise NotImplementedError(
                "Could not run 'aten::record_stream' with arguments from the 'CPU' backend. A CPU tensor is never in "
                "use by another stream, so there is nothing to record."
            )
        raise RuntimeError("unknown parameter type")

    def float(self) -> Tensor:
        return self.to(_dtype.float32)

    def double(self) -> Tensor:
        return self.to(_dtype.float64)

    def half(self) -> Tensor:
        return self.to(_dtype.float16)

    def bfloat16(self) -> Tensor:
        return self.to(_dtype.low_precision("bfloat16"))

    def cfloat(self) -> Tensor:
        return self.to(_dtype.complex64)

    def cdouble(self) -> Tensor:
        return self.to(_dtype.complex128)

    def long(self) -> Tensor:
        return self.to(_dtype.int64)

    def int(self) -> Tensor:
        return self.to(_dtype.int32)

    def bool(self) -> Tensor:
        return self.to(_dtype.bool_)

    def byte(self) -> Tensor:
        return self.to(_dtype.uint8)

    def char(self) -> Tensor:
        return self.to(_dtype.int8)

    def short(self) -> Tensor:
        return self.to(_dtype.int16)

    def __repr__(self) -> str:
        from ._format import format_tensor

        return format_tensor(self)

    def __format__(self, spec: str) -> str:
        # As PyTorch: a 0-d plain tensor formats as its number, even with no spec ('{} %'.format(100 * correct / n));
        # anything else as object does (its str, and a TypeError for a spec).
        if self._data.ndim == 0 and type(self) is Tensor:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild, (self._data, self._requires_grad))

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment."
            )
        copy = Tensor._wrap(self._data.copy())
        copy._requires_grad = self._requires_grad
        if self.grad is not None:
            copy.grad = self.grad.__deepcopy__(memo)
        memo[id(self)] = copy
        return copy


def _move_to_accelerator(kind: str) -> Callable[..., Tensor]:
    def move(self: Tensor, device: Any = None, non_blocking: bool = False, memory_format: Any = None) -> Tensor:
        _device.require_device(kind, device)

    move.__name__ = move.__qualname__ = kind
    return move


# Tensor.cuda() and its kin: a CPU-only PyTorch refuses each move, in its own words.
for _kind in ("cuda", "xpu", "ipu", "mtia"):
    setattr(Tensor, _kind, _move_to_accelerator(_kind))

# Where a tensor lives and how it is stored, as PyTorch's CPU build answers for a dense CPU tensor: scripts branch
# on these (pytorch/examples' dcgan asks `input.is_cuda or input.is_xpu` before splitting work over GPUs).
for _kind in ("xpu", "mps", "meta", "xla", "ipu", "maia", "mtia", "vulkan", "mkldnn", "quantized", "nested", "sparse_csr"):
    setattr(Tensor, f"is_{_kind}", property(lambda self: False, doc=f"False: glassgrad tensors are never {_kind}."))
del _kind


def _check_assigned_grad(t: Tensor, grad: object) -> None:
    """PyTorch's checks on `t.grad = grad`: a tensor of t's shape and dtype, and not t itself."""
    if not isinstance(grad, Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(grad).__name__}")
    if grad is t:
        raise RuntimeError("can't assign Variable as its own grad")
    grad_dtype = t._grad_dtype if t._grad_dtype is not None else t._data.dtype
    if grad_dtype is not ANY_GRAD_DTYPE and grad._data.dtype != grad_dtype:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{_dtype.CPP_NAMES.get(grad.dtype, grad.dtype.name)}' to a "
            f"tensor with grad_dtype '{_dtype.from_numpy_dtype(grad_dtype).scalar_name}'. The gradient must match the tensor's grad_dtype "
            "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or "
            "None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may "
            "break downstream systems that assume they match."
        )
    if grad._data.shape != t._data.shape:
        raise RuntimeError(
            f"attempting to assign a gradient of size '{list(grad._data.shape)}' to a tensor of size "
            f"'{list(t._data.shape)}'. Please ensure that the gradient and the tensor are the same size"
        )


def _rebuild(array: np.ndarray, requires_grad: bool) -> Tensor:
    """Unpickling target for Tensor.__reduce_ex__."""
    with grad_mode.no_grad():
        t = Tensor._wrap(np.array(array))
    t._requires_grad = requires_grad
    return t


def is_tensor(obj: object) -> bool:
    return isinstance(obj, Tensor)
