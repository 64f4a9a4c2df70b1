"""Tensor creation and glassgrad's own random generator (streams need not match PyTorch's)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _device, _dtype
from ..tensor import Size, Tensor


class Generator:
    """A seedable random stream (NumPy's PCG64)."""

    def __init__(self, device: Any = "cpu") -> None:
        if _device.as_device(device, op="Generator").type == "cuda":
            raise RuntimeError(
                "Cannot get CUDA generator without ATen_cuda library." + _device.ONLY_CPU.format(name="CUDA")
            )
        self._seed = 67280421310721
        self._rng = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed: int) -> Generator:
        self._seed = int(seed)
        self._rng = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        """The stream's position as a uint8 tensor (PCG64's state, increment and buffered half-word, and the seed that
        initial_seed answers, which PyTorch's state also carries), for set_state."""
        pcg = self._rng.bit_generator.state
        fields = (pcg["state"]["state"], pcg["state"]["inc"], pcg["has_uint32"], pcg["uinteger"], self._seed)
        raw = b"".join(value.to_bytes(size, "little") for value, size in zip(fields, _STATE_FIELDS, strict=True))
        return Tensor._wrap(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state: Tensor) -> Generator:
        if not isinstance(new_state, Tensor) or new_state.dtype is not _dtype.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = new_state._data.tobytes()
        if len(raw) != sum(_STATE_FIELDS):
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {sum(_STATE_FIELDS)} but found the input RNG state size to be "
                f"{len(raw)}"
            )
        fields, start = [], 0
        for size in _STATE_FIELDS:
            fields.append(int.from_bytes(raw[start : start + size], "little"))
            start += size
        state, inc, has_uint32, uinteger, self._seed = fields
        self._rng.bit_generator.state = {
            "bit_generator": "PCG64", "state": {"state": state, "inc": inc}, "has_uint32": has_uint32, "uinteger": uinteger,
        }
        return self


_STATE_FIELDS = (16, 16, 1, 4, 8)  # bytes of PCG64's 128-bit state and increment, its flag, its buffered uint32, the seed


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    return default_generator.manual_seed(seed)


def seed() -> int:
    value = int(np.random.SeedSequence().entropy) % (2**63)
    default_generator.manual_seed(value)
    return value


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    default_generator.set_state(new_state)


def thread_safe_generator() -> Generator | None:
    """A DataLoader thread worker's own generator; None (the default generator) elsewhere, which is everywhere in
    glassgrad, whose DataLoader reads in the main process."""
    return None


def _finish(array: np.ndarray, requires_grad: bool, dev: Any) -> Tensor:
    dev = _device.factory_device(dev)
    if dev is not None:
        _device.place(dev, creating=True)
    t = Tensor._wrap(array)
    if requires_grad:
        check_grad_dtype(array.dtype)
        t.requires_grad_(True)
    return t


def check_grad_dtype(np_dtype: np.dtype) -> None:
    """A factory's requires_grad=True on an integer or bool tensor, refused in PyTorch's words for factories."""
    if not _dtype.is_inexact(np_dtype):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")


def _infer_dtype(data: Any) -> _dtype.dtype:
    flat = np.asarray(data)
    if flat.dtype == np.bool_:
        return _dtype.bool_
    if np.issubdtype(flat.dtype, np.integer):
        return _dtype.int64
    if np.issubdtype(flat.dtype, np.floating) or flat.size == 0:
        return _dtype.get_default_dtype()
    if np.issubdtype(flat.dtype, np.complexfloating):
        return _dtype.default_complex()
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


_PYTHON_SCALARS = frozenset({float, int, bool, complex})


def _python_scalar_dtype(kind: type) -> _dtype.dtype:
    if kind is float:
        return _dtype.get_default_dtype()
    if kind is int:
        return _dtype.int64
    return _dtype.bool_ if kind is bool else _dtype.default_complex()


def _promote(found: _dtype.dtype | None, other: _dtype.dtype | None) -> _dtype.dtype | None:
    if found is None or found is other:
        return other
    return found if other is None else _dtype.promote_types(found, other)


def _unwrap_nested(data: Any) -> tuple[Any, _dtype.dtype | None]:
    """Nested sequences as NumPy reads them (tensors replaced by their arrays), and PyTorch's dtype for them: every
    element's own type promoted together, a Python float counting as the default dtype, an int as int64, and a
    NumPy scalar or array or a tensor as its dtype (None when nothing tells, or for what NumPy will refuse)."""
    if isinstance(data, Tensor):
        return data._data, data.dtype
    if isinstance(data, (np.ndarray, np.generic)):
        return data, _dtype.from_numpy_dtype(data.dtype) if data.dtype.kind in "biufc" else None
    if not isinstance(data, (list, tuple)):
        return data, _python_scalar_dtype(type(data)) if type(data) in _PYTHON_SCALARS else None
    kinds = set(map(type, data))
    found: _dtype.dtype | None = None
    if kinds <= _PYTHON_SCALARS:  # by the kinds present, not item by item: a million floats are one kind
        for kind in kinds:
            found = _promote(found, _python_scalar_dtype(kind))
        return data, found
    unwrapped = []
    for item in data:
        array, item_dtype = _unwrap_nested(item)
        unwrapped.append(array)
        found = _promote(found, item_dtype)
    return unwrapped, found


def tensor(data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Always copies `data`. Python floats become float32 (the default dtype), ints int64."""
    if isinstance(data, Tensor):
        array = data._data.copy()
    elif isinstance(data, (np.ndarray, np.generic)):  # a NumPy scalar keeps its dtype too, as in PyTorch
        array = np.array(data)
        _dtype.from_numpy_dtype(array.dtype)
    else:
        unwrapped, inferred = _unwrap_nested(data)
        try:
            raw = np.array(unwrapped)
        except ValueError as err:
            raise ValueError(f"expected sequence of equal-length lists: {err}") from None
        if raw.dtype == object or raw.dtype.kind in "US":
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        # with dtype given, cast once: through the default float32 first would round 0.1 and flush 1e-300
        array = raw.astype((inferred or _infer_dtype(raw)).np if dtype is None else _dtype.to_dtype(dtype).np, copy=False)
    if dtype is not None:
        array = array.astype(_dtype.to_dtype(dtype).np, copy=False)
    return _finish(array, requires_grad, device)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """Shares memory with a NumPy array or tensor when the dtype already matches."""
    if isinstance(data, Tensor):
        return data if dtype is None or _dtype.to_dtype(dtype) is data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or _dtype.to_dtype(dtype).np == data.dtype):
        _dtype.from_numpy_dtype(data.dtype)
        return Tensor._wrap(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array: np.ndarray) -> Tensor:
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dtype.from_numpy_dtype(array.dtype)
    return Tensor._wrap(array)


def _size(size: Sequence[Any]) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"expected a sequence of integers as the size, but got an element of type {type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    return tuple(int(s) for s in size)


def _float_or(dtype: Any) -> np.dtype:
    return (_dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)).np


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, out: Any = None) -> Tensor:
    return _finish(np.zeros(_size(size), dtype=_float_or(dtype)), requires_grad, device)


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _finish(np.ones(_size(size), dtype=_float_or(dtype)), requires_grad, device)


def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    return _finish(np.empty(_size(size), dtype=_float_or(dtype)), requires_grad, device)


def full(size: Sequence[int], fill_value: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    target = _dtype.to_dtype(dtype) if dtype is not None else _dtype.result_type(fill_value)
    return _finish(np.full(_size((size,)), fill_value, dtype=target.np), requires_grad, device)


def _like(input: Tensor, dtype: Any) -> np.dtype:
    return input._data.dtype if dtype is None else _dtype.to_dtype(dtype).np


def zeros_like(input: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    return _finish(np.zeros(input.shape, dtype=_like(input, dtype)), requires_grad, device)


def ones_like(input: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    return _finish(np.ones(input.shape, dtype=_like(input, dtype)), requires_grad, device)


def empty_like(input: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    return _finish(np.empty(input.shape, dtype=_like(input, dtype)), requires_grad, device)


def full_like(input: Tensor, fill_value: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    return _finish(np.full(input.shape, fill_value, dtype=_like(input, dtype)), requires_grad, device)


# -- Tensor.new_*: the tensor's dtype unless dtype= says otherwise -------------------------------
def _new_of_size(make: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """Tensor.new_zeros from zeros (and new_ones, new_empty): sizes as varargs, a sequence or size=."""
    name = f"new_{make.__name__}"

    def method(input: Tensor, *sizes: Any, size: Any = None, dtype: Any = None, device: Any = None, requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
        if size is None and not sizes:
            raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
        return make(*(sizes if size is None else (size,)), dtype=_like(input, dtype), device=device, requires_grad=requires_grad)

    method.__name__ = method.__qualname__ = name
    return method


new_zeros, new_ones, new_empty = map(_new_of_size, (zeros, ones, empty))


def new_empty_strided(input: Tensor, size: Sequence[int], stride: Sequence[int] | None = None, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor with these element strides, over just enough memory for them."""
    if stride is None:
        raise TypeError('new_empty_strided() missing 1 required positional arguments: "stride"')
    size, stride = _size((size,)), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides ({len(stride)})")
    if any(st < 0 for st in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    target = _like(input, dtype)
    extent = 0 if 0 in size else 1 + sum((n - 1) * st for n, st in zip(size, stride, strict=True))
    memory = np.empty(extent, dtype=target)
    strided = np.lib.stride_tricks.as_strided(memory, size, tuple(st * target.itemsize for st in stride))
    return _finish(strided, requires_grad, device)


def new_full(input: Tensor, size: Sequence[int], fill_value: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    if isinstance(fill_value, Tensor):
        if fill_value.ndim:
            raise TypeError("new_full(): argument 'fill_value' (position 2) must be Number, not Tensor")
        fill_value = fill_value.item()
    return full(size, fill_value, dtype=_like(input, dtype), device=device, requires_grad=requires_grad)


def new_tensor(input: Tensor, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """A copy of `data` (never sharing memory, never keeping a graph), of input's dtype unless dtype= is given."""
    if isinstance(data, Tensor):
        import warnings

        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
            UserWarning, stacklevel=2,
        )
        data = data.detach()
    return tensor(data, dtype=_like(input, dtype), device=device, requires_grad=requires_grad)


def arange(start: Any, end: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    target = _dtype.to_dtype(dtype) if dtype is not None else _dtype.result_type(start, end, step)
    if target in _dtype.BAREBONES:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{target.scalar_name}'")
    count = int(np.ceil((end - start) / step))
    return _finish((start + step * np.arange(count, dtype=np.float64)).astype(target.np), requires_grad, device)


def linspace(start: float, end: float, steps: int, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    if steps < 0:
        raise RuntimeError("linspace(): number of steps must be non-negative")
    return _finish(np.linspace(start, end, steps).astype(_float_or(dtype)), requires_grad, device)


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *, out: Any = None, dtype: Any = None,
             layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """base ** linspace(start, end, steps), each half stepped from its own end as PyTorch's kernel steps it."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = (float(v.item()) if isinstance(v, Tensor) else v for v in (start, end))
    target = _float_or(dtype)
    if target.kind in "iub":  # an integer dtype reads start and end as integers (C++'s truncating cast)
        start, end = int(start), int(end)
    step = (end - start) / (steps - 1) if steps > 1 else 0.0
    i = np.arange(steps, dtype=np.float64)
    exponents = np.where(i < steps // 2, start + step * i, end - step * (steps - i - 1)) if steps > 1 else np.full(steps, start)
    powers = np.power(np.asarray(base, dtype=np.complex128 if target.kind == "c" else np.float64), exponents)
    return _finish(powers.astype(target), requires_grad, device)


def eye(n: int, m: int | None = None, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _finish(np.eye(n, n if m is None else m, dtype=_float_or(dtype)), requires_grad, device)


def _triangle_indices(name: str, row: int, col: int, offset: int, dtype: Any, upper: bool) -> np.ndarray:
    for position, (argument, value) in enumerate((("row", row), ("col", col), ("offset", offset)), start=1):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
            raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be int, not {type(value).__name__}")
    target = _dtype.int64 if dtype is None else _dtype.to_dtype(dtype)
    if target not in (_dtype.int64, _dtype.int32):
        raise NotImplementedError(f'"{name}" not implemented for \'{target.scalar_name}\'')
    for argument, value in (("row", row), ("col", col)):
        if value < 0:
            raise RuntimeError(f"{argument} must be non-negative, got{value}")
    rows, cols = (np.triu_indices if upper else np.tril_indices)(row, offset, col)
    return np.stack((rows, cols)).astype(target.np).reshape(2, -1)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None, layout: Any = None,
                 requires_grad: bool = False) -> Tensor:
    """The (row, column) coordinates of a row x col matrix's lower triangle (on and below diagonal `offset`), by rows."""
    return _finish(_triangle_indices("tril_indices", row, col, offset, dtype, upper=False), requires_grad, device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None, layout: Any = None,
                 requires_grad: bool = False) -> Tensor:
    """The (row, column) coordinates of a row x col matrix's upper triangle (on and above diagonal `offset`), by rows."""
    return _finish(_triangle_indices("triu_indices", row, col, offset, dtype, upper=True), requires_grad, device)


def _rng(generator: Generator | None) -> np.random.Generator:
    return (generator or default_generator)._rng


def _random(draw: Any, size: tuple[int, ...], target: np.dtype, scale: float) -> np.ndarray:
    """Draws in `target`; a complex dtype draws its real and imaginary parts apart, each scaled by `scale`."""
    if target.kind != "c":
        return draw(size).astype(target)
    pair = draw((*size, 2)) * scale
    return (pair[..., 0] + 1j * pair[..., 1]).astype(target)


def rand(*size: Any, generator: Generator | None = None, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _finish(_random(_rng(generator).random, _size(size), _float_or(dtype), 1.0), requires_grad, device)


def randn(*size: Any, generator: Generator | None = None, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    # a complex normal has unit variance in all: each part has variance 1/2, as in PyTorch
    return _finish(_random(_rng(generator).standard_normal, _size(size), _float_or(dtype), 0.5**0.5), requires_grad, device)


def randint(low: int | None = None, high: int | None = None, size: Sequence[int] | None = None, *, generator: Generator | None = None, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    # PyTorch's two overloads: randint(high, size) and randint(low, high, size), any of them by keyword.
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    elif high is None and size is not None:
        low, high = 0, low
    elif low is None:
        low = 0
    if high is None or size is None:
        given = ", ".join(type(a).__name__ for a in (low, high, size) if a is not None)
        raise TypeError(
            f"randint() received an invalid combination of arguments - got ({given}), but expected one of:\n"
            " * (int high, tuple of ints size, *, torch.Generator generator, torch.dtype dtype = None, ...)\n"
            " * (int low, int high, tuple of ints size, *, torch.Generator generator, torch.dtype dtype = None, ...)"
        )
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    target = _dtype.int64 if dtype is None else _dtype.to_dtype(dtype)
    return _finish(_rng(generator).integers(low, high, _size((size,))).astype(target.np), requires_grad, device)


def randperm(n: int, *, generator: Generator | None = None, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    target = _dtype.int64 if dtype is None else _dtype.to_dtype(dtype)
    return _finish(_rng(generator).permutation(n).astype(target.np), requires_grad, device)


def rand_like(
    input: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None, requires_grad: bool = False,
    memory_format: Any = None, generator: Generator | None = None,
) -> Tensor:
    return rand(input.shape, generator=generator, dtype=dtype or input.dtype, device=device, requires_grad=requires_grad)


def randn_like(
    input: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None, requires_grad: bool = False,
    memory_format: Any = None, generator: Generator | None = None,
) -> Tensor:
    return randn(input.shape, generator=generator, dtype=dtype or input.dtype, device=device, requires_grad=requires_grad)


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS = {
    "tensor": tensor, "as_tensor": as_tensor, "from_numpy": from_numpy, "zeros": zeros, "ones": ones, "empty": empty,
    "full": full, "zeros_like": zeros_like, "ones_like": ones_like, "empty_like": empty_like, "full_like": full_like,
    "arange": arange, "linspace": linspace, "logspace": logspace, "eye": eye, "rand": rand, "randn": randn, "randint": randint,
    "randperm": randperm, "rand_like": rand_like, "randn_like": randn_like, "manual_seed": manual_seed, "seed": seed,
    "initial_seed": initial_seed, "tril_indices": tril_indices, "triu_indices": triu_indices,
    "get_rng_state": get_rng_state, "set_rng_state": set_rng_state, "thread_safe_generator": thread_safe_generator,
}
METHODS: dict[str, object] = {
    "new_zeros": new_zeros, "new_ones": new_ones, "new_empty": new_empty, "new_full": new_full, "new_tensor": new_tensor,
    "new_empty_strided": new_empty_strided,
}
INPLACE = ()
