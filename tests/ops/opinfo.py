"""OpInfo: one entry per op, from which every generic op test is generated.

An OpInfo names the registry entry it tests (`glassgrad.exp`, `Tensor.exp_`,
`glassgrad.nn.functional.gelu`), a function `fn(m, *inputs)` written against a
module `m` that is either torch or glassgrad (so the same code runs on both),
a hypothesis strategy for the input shapes, and the domain of each input's
values. The generic tests in test_op_properties.py draw shapes and values,
run both libraries and compare forward values, dtypes, first derivatives,
second derivatives (the gradient of a random projection of the gradient), and
the exception type when PyTorch rejects the input; they also run gradcheck and
gradgradcheck. test_registry_coverage.py fails when a registered op has no
OpInfo.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

Module = Any
Fn = Callable[..., Any]
Shapes = tuple[tuple[int, ...], ...]


@dataclasses.dataclass(frozen=True)
class Domain:
    """Where one input's values come from.

    `kinks` are points where the derivative jumps; values are kept 0.02 away from them so finite
    differences and PyTorch's one-sided choice agree. `dtype` other than float64 makes a
    non-differentiable input (indices, masks).
    """

    low: float = -2.0
    high: float = 2.0
    kinks: tuple[float, ...] = ()
    integral: bool = False
    dtype: str = "float64"

    @property
    def differentiable(self) -> bool:
        return self.dtype.startswith("float")

    def strategy(self, shape: tuple[int, ...]) -> st.SearchStrategy[np.ndarray]:
        if self.dtype == "bool":
            return hnp.arrays(np.bool_, shape)
        if self.integral or not self.differentiable:
            elements = st.integers(int(self.low), int(self.high)).map(float)
        else:
            elements = st.floats(self.low, self.high, allow_nan=False, allow_infinity=False, width=64)
        return hnp.arrays(np.float64, shape, elements=elements).map(self._clear_kinks)

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        if self.dtype == "bool":
            return rng.random(shape) < 0.5
        x = rng.uniform(self.low, self.high, shape)
        return self._clear_kinks(np.round(x) if self.integral or not self.differentiable else x)

    def _clear_kinks(self, x: np.ndarray) -> np.ndarray:
        for k in self.kinks:
            x = np.where(np.abs(x - k) < 0.02, k + np.copysign(0.04, x - k), x)
        return x

    def tensor(self, m: Module, array: np.ndarray, requires_grad: bool) -> Any:
        return m.tensor(array.astype(self.dtype) if self.dtype != "float64" else array, dtype=getattr(m, self.dtype),
                        requires_grad=requires_grad and self.differentiable)


ANY = Domain()
POSITIVE = Domain(0.5, 2.0)
UNIT = Domain(-0.9, 0.9)  # inside (-1, 1): asin, atanh, erfinv, ...


def index(high: int, low: int = 0) -> Domain:
    """Integer indices in [low, high]."""
    return Domain(low, high, dtype="int64")


# -- shape strategies --------------------------------------------------------------------------------------------
def unary(min_dims: int = 0, max_dims: int = 3, min_side: int = 0, max_side: int = 4) -> st.SearchStrategy[Shapes]:
    """One input of any shape, 0-d and zero-size included."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side).map(lambda s: (s,))


def broadcasting(n: int = 2, min_dims: int = 0, max_dims: int = 3, min_side: int = 0, max_side: int = 4) -> st.SearchStrategy[Shapes]:
    """n inputs whose shapes broadcast together."""
    return hnp.mutually_broadcastable_shapes(
        num_shapes=n, min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side
    ).map(lambda r: r.input_shapes)


def fixed(*shapes: tuple[int, ...]) -> st.SearchStrategy[Shapes]:
    return st.just(tuple(shapes))


# -- the entry ---------------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class OpInfo:
    name: str  # the registry entry under test, e.g. "glassgrad.exp"
    fn: Fn  # fn(m, *inputs) for m in (torch, glassgrad)
    shapes: st.SearchStrategy[Shapes] = dataclasses.field(default_factory=unary)
    domains: Domain | Sequence[Domain] = ANY  # one for every input, or one each
    order: int = 2  # derivatives compared and gradchecked: 2, 1, or 0 (not differentiable)
    also: tuple[str, ...] = ()  # further registry entries this exercises: methods, aliases, in-place forms
    rtol: float = 1e-7
    atol: float = 1e-9
    values: bool = True  # False for random ops: only shapes and dtypes are compared
    errors: tuple[Fn, ...] = ()  # e(m) must raise the exception type PyTorch raises
    xfail: Mapping[str, str] = dataclasses.field(default_factory=dict)  # check name -> reason
    id: str = ""  # distinguishes several OpInfos of one registry entry

    @property
    def label(self) -> str:
        return self.id or self.name.rpartition(".")[2]

    def domain(self, i: int) -> Domain:
        return self.domains if isinstance(self.domains, Domain) else self.domains[i]

    def draw(self, data: st.DataObject) -> list[np.ndarray]:
        shapes = data.draw(self.shapes, label="shapes")
        return [data.draw(self.domain(i).strategy(s), label=f"input {i}") for i, s in enumerate(shapes)]

    def tensors(self, m: Module, arrays: Sequence[np.ndarray], requires_grad: bool = True) -> list[Any]:
        return [self.domain(i).tensor(m, a, requires_grad) for i, a in enumerate(arrays)]

    def covers(self) -> tuple[str, ...]:
        return (self.name, *self.also)


def seeded(fn: Fn) -> Fn:
    """A random op draws from each library's own generator: seeded, so that gradcheck sees one draw."""

    def run(m: Module, *xs: Any) -> Any:
        m.manual_seed(0)
        return fn(m, *xs)

    return run


def inplace_variant(op: OpInfo, method: str, **changes: Any) -> OpInfo:
    """The in-place method `Tensor.<method>` checked on a clone (a non-leaf, so the op records a node)."""

    def fn(m: Module, x: Any, *rest: Any) -> Any:
        y = x.clone()
        getattr(y, method)(*rest)
        return y

    return dataclasses.replace(op, name=f"Tensor.{method}", fn=fn, also=(), id=method, **changes)
