"""In-place random fills: uniform_, normal_, bernoulli_, exponential_, random_, geometric_, log_normal_, cauchy_.

Each draws from glassgrad's generator (the default one, or `generator=`; streams need not match PyTorch's) and
is an in-place op like any other: it bumps the version, refuses a leaf that requires grad in grad mode (nn.init
fills under no_grad), and on a tensor with history records a node whose gradient is zero, as PyTorch's
`self: zeros_like(grad)`. Arguments are checked in PyTorch's order and with its messages.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype
from .._dtype import dtype
from ..autograd.inplace import apply_inplace
from ..tensor import Tensor
from .creation import Generator, default_generator, empty_like, zeros_like
from .shape import expand
from .table import Derivative, derivative

Draw = Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]


def _zero(grad: Tensor) -> Tensor:
    return zeros_like(grad)


UniformBackward0, NormalBackward0, BernoulliBackward2, ExponentialBackward0, GeometricBackward0, LogNormalBackward0, \
    CauchyBackward0, RandomBackward0, RandomBackward1, RandomBackward2 = (
        derivative(name, self=_zero) for name in (
            "UniformBackward0", "NormalBackward0", "BernoulliBackward2", "ExponentialBackward0", "GeometricBackward0",
            "LogNormalBackward0", "CauchyBackward0", "RandomBackward0", "RandomBackward1", "RandomBackward2",
        )
    )
BernoulliBackward1 = derivative("BernoulliBackward1", ("self", "p"), self=_zero, p=lambda grad, p: zeros_like(p))

_DIGITS = {_dtype.float16: 11, _dtype.float32: 24, _dtype.float64: 53}  # integers a float type holds exactly


def _fill(input: Tensor, entry: Derivative, draw: Draw, generator: Generator | None, *also: Tensor) -> Tensor:
    """Fill `input` in place with `draw(rng, shape)`, recorded as one in-place op (inputs: input, *also)."""
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"expected a glassgrad.Generator as generator, but got {type(generator).__name__}")
    rng = (generator or default_generator)._rng

    def compute(x: Tensor) -> Tensor:
        return entry.record(draw(rng, x.shape).astype(x._data.dtype, copy=False), (x, *also))

    return apply_inplace(input, compute, any_cast=True)


def _number(op: str, name: str, position: int, value: Any) -> float:
    if isinstance(value, Tensor) and value.ndim == 0:
        return float(value.item())
    if isinstance(value, (int, float, np.number)):
        return float(value)
    raise TypeError(f"{op}(): argument '{name}' (position {position}) must be float, not {type(value).__name__}")


def _floating(input: Tensor, kernel: str) -> None:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.scalar_name}'")


def _continuous(input: Tensor, name: str, type_name: str) -> None:
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"{name} distribution is a continuous probability distribution. dtype must be a floating point but you "
            f"specified {type_name}"
        )


def _keyword_from(op: str, named: dict[str, Any], default: Any) -> Any:
    """PyTorch's first argument is called `from`, a Python keyword, so it can only come as **{'from': ...}."""
    value = named.pop("from", default)
    if named:
        raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(named))}'")
    return value


def uniform_(input: Tensor, from_: Any = 0.0, to: Any = 1.0, *, generator: Generator | None = None, **named: Any) -> Tensor:
    low, high = _number("uniform_", "from", 1, _keyword_from("uniform_", named, from_)), _number("uniform_", "to", 2, to)
    _floating(input, "check_uniform_bounds")
    limit = float(_dtype.machine_limits(input._data.dtype).max)
    for value, what in ((low, "from"), (high, "to")):
        if not -limit <= value <= limit:
            raise RuntimeError(f"{what} is out of bounds for {_dtype.CPP_NAMES[input.dtype]}")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low:g} > to={high:g}")
    if high - low > limit:
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{input.dtype.scalar_name}>::max(), but found to={high:g} and "
            f"from={low:g} which result in to-from to exceed the limit"
        )
    return _fill(input, UniformBackward0, lambda rng, shape: rng.uniform(low, high, shape), generator)


def normal_(input: Tensor, mean: Any = 0.0, std: Any = 1.0, *, generator: Generator | None = None) -> Tensor:
    mean, std = _number("normal_", "mean", 1, mean), _number("normal_", "std", 2, std)
    if not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    _floating(input, "normal_kernel_cpu")
    return _fill(input, NormalBackward0, lambda rng, shape: rng.normal(mean, std, shape), generator)


def bernoulli_(input: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    if isinstance(p, Tensor):
        _floating(p, "bernoulli_tensor_cpu_p_")
        chances = expand(p.detach(), input.shape)._data  # PyTorch's expand error when p does not broadcast to input
        if chances.size and not ((chances >= 0) & (chances <= 1)).all():
            raise RuntimeError(
                "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  If "
                "so, please report an enhancement request to PyTorch.)"
            )
        return _fill(input, BernoulliBackward1, lambda rng, shape: rng.random(shape) < chances, generator, p)
    chance = _number("bernoulli_", "p", 1, p)
    if not 0 <= chance <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={chance:g}")
    return _fill(input, BernoulliBackward2, lambda rng, shape: rng.random(shape) < chance, generator)


def exponential_(input: Tensor, lambd: Any = 1.0, *, generator: Generator | None = None) -> Tensor:
    rate = _number("exponential_", "lambd", 1, lambd)
    if not rate > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={rate:g}")
    _continuous(input, "Exponential", input.dtype.scalar_name)
    return _fill(input, ExponentialBackward0, lambda rng, shape: rng.exponential(1 / rate, shape), generator)


def geometric_(input: Tensor, p: Any, *, generator: Generator | None = None) -> Tensor:
    chance = _number("geometric_", "p", 1, p)
    if not 0 < chance < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={chance:g}")
    if input.dtype is _dtype.bool_:
        raise NotImplementedError("\"geometric_cpu\" not implemented for 'Bool'")
    return _fill(input, GeometricBackward0, lambda rng, shape: rng.geometric(chance, shape), generator)


def log_normal_(input: Tensor, mean: Any = 1.0, std: Any = 2.0, *, generator: Generator | None = None) -> Tensor:
    mean, std = _number("log_normal_", "mean", 1, mean), _number("log_normal_", "std", 2, std)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    _floating(input, "log_normal_cpu")
    return _fill(input, LogNormalBackward0, lambda rng, shape: rng.lognormal(mean, std, shape), generator)


def cauchy_(input: Tensor, median: Any = 0.0, sigma: Any = 1.0, *, generator: Generator | None = None) -> Tensor:
    median, sigma = _number("cauchy_", "median", 1, median), _number("cauchy_", "sigma", 2, sigma)
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    _continuous(input, "Cauchy", _dtype.CPP_NAMES[input.dtype])
    return _fill(input, CauchyBackward0, lambda rng, shape: median + sigma * rng.standard_cauchy(shape), generator)


# -- random_: integers, in the forms random_(), random_(to) and random_(from, to) (to=None: the dtype's top) -------
def random_(input: Tensor, *args: Any, generator: Generator | None = None, **named: Any) -> Tensor:
    low, high, entry = _random_range(input.dtype, args, named)
    return _fill(input, entry, lambda rng, shape: rng.integers(low, high, shape, endpoint=True), generator)


def _random_range(d: dtype, args: tuple[Any, ...], named: dict[str, Any]) -> tuple[int, int, Derivative]:
    """(lowest, highest) value drawn, both included, and the node that records the fill."""
    if named:  # the keyword forms: random_(to=...) and random_(**{"from": ..., "to": ...})
        valid = not args and set(named) in ({"to"}, {"from", "to"})
        args = (named.pop("from"), named.pop("to")) if valid and "from" in named else (named.pop("to"),) if valid else args
    if named or len(args) > 2 or not all(isinstance(a, (int, np.integer)) or (a is None and i == 1) for i, a in enumerate(args)):
        got = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in named.items()])
        raise TypeError(
            f"random_() received an invalid combination of arguments - got ({got}), but expected one of: "
            "(*, Generator generator), (int from, int to, *, Generator generator), (int to, *, Generator generator)"
        )
    if any(a is not None and not -(1 << 63) <= a < 1 << 63 for a in args):
        raise ValueError("Overflow when unpacking long long: random_'s from and to must fit in 64-bit integers")
    if d.is_complex:
        if not args:
            raise NotImplementedError(f"\"random_kernel_cpu\" not implemented for '{d.scalar_name}'")
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    top = (1 << _DIGITS[d]) if d in _DIGITS else 1 if d is _dtype.bool_ else int(np.iinfo(d.np).max)
    if not args:
        return 0, top, RandomBackward2
    low, high = (0, args[0]) if len(args) == 1 else args
    if high is None:
        if d in _DIGITS and low >= top:
            raise RuntimeError(
                "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to dtype, but got "
                f"from={low} > to_inc={top}"
            )
        _check_in_range(d, int(low), top)
        return int(low), top, RandomBackward0
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    _check_in_range(d, int(low), int(high) - 1)
    return int(low), int(high) - 1, RandomBackward1 if len(args) == 1 else RandomBackward0


def _check_in_range(d: dtype, low: int, high: int) -> None:
    if d in _DIGITS:
        limits = _dtype.machine_limits(d.np)
        least, most = float(limits.min), float(limits.max)
    elif d is _dtype.bool_:
        least, most = 0, 1
    else:
        least, most = int(np.iinfo(d.np).min), int(np.iinfo(d.np).max)
    for value, what in ((low, "from"), (high, "to - 1")):
        if not least <= value <= most:
            raise RuntimeError(f"{what} is out of bounds for {_dtype.CPP_NAMES[d]}")
        if d in _DIGITS and abs(value) > 1 << _DIGITS[d]:
            warnings.warn(
                f"{what} is out of bounds [-(2^{_DIGITS[d]}), 2^{_DIGITS[d]}]. Due to precision limitations "
                f"{_dtype.CPP_NAMES[d]} can support discrete uniform distribution only within this range. This warning "
                "will become an error in version 1.7 release, please fix the code in advance",
                UserWarning, stacklevel=4,
            )


def randint_like(input: Tensor, low: int | None = None, high: int | None = None, *, dtype: Any = None, layout: Any = None, device: Any = None, requires_grad: bool = False, memory_format: Any = None, generator: Generator | None = None) -> Tensor:
    """Integers in [low, high) (low 0 when one bound is given) in input's shape and dtype: random_ on a new tensor."""
    bounds = tuple(b for b in (low, high) if b is not None)
    if not bounds or not all(isinstance(b, (int, np.integer)) and not isinstance(b, bool) for b in bounds):
        raise TypeError(
            f"randint_like() received an invalid combination of arguments - got "
            f"({', '.join(['Tensor', *(type(b).__name__ for b in bounds)])}), but expected one of:\n"
            " * (Tensor input, int high, *, torch.dtype dtype = None, ...)\n"
            " * (Tensor input, int low, int high, *, torch.dtype dtype = None, ...)"
        )
    result = empty_like(input, dtype=dtype, device=device)
    random_(result, *((0, *bounds) if len(bounds) == 1 else bounds), generator=generator)
    return result.requires_grad_(True) if requires_grad else result


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS: dict[str, Any] = {"randint_like": randint_like}
METHODS = {
    "uniform_": uniform_, "normal_": normal_, "bernoulli_": bernoulli_, "exponential_": exponential_, "random_": random_,
    "geometric_": geometric_, "log_normal_": log_normal_, "cauchy_": cauchy_,
}
INPLACE = ()
