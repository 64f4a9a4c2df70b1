"""Core ops against PyTorch 2.13, driven by one table of cases.

Each case is a function `f(m, *inputs)` written against a module `m` that is
either torch or glassgrad, so the same code runs on both and every check
compares glassgrad with what PyTorch does: forward values and dtypes, first
derivatives, gradcheck and gradgradcheck, whether a second backward after the
graph was freed fails, and the grad_fn class name.
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

Module = Any
Fn = Callable[..., Any]


@dataclasses.dataclass(frozen=True)
class Domain:
    """Where an input's values are drawn from; `kinks` are points the derivative jumps at, kept clear of."""

    shape: tuple[int, ...] = (2, 3)
    low: float = -2.0
    high: float = 2.0
    kinks: tuple[float, ...] = ()
    integral: bool = False  # whole numbers, so comparisons see ties

    def sample(self, rng: np.random.Generator) -> np.ndarray:
        x = rng.uniform(self.low, self.high, self.shape)
        if self.integral:
            return np.round(x)
        for k in self.kinks:
            x = np.where(np.abs(x - k) < 0.02, k + np.copysign(0.04, x - k), x)
        return x


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    fn: Fn
    domains: tuple[Domain, ...] = (Domain(),)
    # Derivatives checked against finite differences: 2 (gradcheck and gradgradcheck), 1 (gradcheck), or 0
    # (no gradient, or one finite differences cannot see, as through detach).
    order: int = 2
    xfail: Mapping[str, str] = dataclasses.field(default_factory=dict)  # check name -> reason

    def arrays(self) -> list[np.ndarray]:
        rng = np.random.default_rng(zlib.crc32(self.name.encode()))
        return [d.sample(rng) for d in self.domains]


ANY = Domain()
POSITIVE = Domain(low=0.5, high=2.0)
COL, ROW = Domain((3, 1)), Domain((4,))
NONZERO_ROW = Domain((4,), 0.5, 2.0)

# Known glassgrad bugs outside ops/, each xfailed only for the check it breaks.


def composite(node: str) -> dict[str, str]:
    return {"grad_fn": f"PyTorch's matmul is composite here (outermost node {node}); glassgrad records one node"}


# -- the table ---------------------------------------------------------------------------------------------
BINARY: dict[str, Fn] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "pow": lambda a, b: a**b,
}
# floor division has no derivative in PyTorch (its backward raises); the rest are smooth between jumps.
ORDER = {"floordiv": 0}
# A Python number modulo a tensor has no derivative in PyTorch either; the other forms do.
REVERSED_ORDER = {"floordiv": 0, "mod": 0}


def _binary_cases() -> list[Case]:
    cases = []
    for op, f in BINARY.items():
        base = Domain((3, 1), 0.5, 2.0) if op == "pow" else COL
        divisor = NONZERO_ROW if op in ("div", "floordiv", "mod") else ROW
        scalar_kinks = {"floordiv": (-1.5, 0.0, 1.5), "mod": (-1.5, 0.0, 1.5)}.get(op, ())
        reversed_kinks = {"floordiv": (0.75, 1.0, 1.5), "mod": (0.75, 1.0, 1.5)}.get(op, ())
        scalar_domain = POSITIVE if op == "pow" else ANY  # a negative base has no real power 1.5
        reversed_domain = POSITIVE if op in ("div", "floordiv", "mod") else ANY
        cases += [
            Case(f"{op}_broadcast", lambda m, a, b, f=f: f(a, b), (base, divisor), ORDER.get(op, 2)),
            Case(f"{op}_scalar", lambda m, a, f=f: f(a, 1.5), (dataclasses.replace(scalar_domain, kinks=scalar_kinks),), ORDER.get(op, 2)),
            Case(
                f"{op}_reversed",
                lambda m, a, f=f: f(1.5, a),
                (dataclasses.replace(reversed_domain, kinks=reversed_kinks),),
                REVERSED_ORDER.get(op, 2),
            ),
        ]
    return cases


def _setitem(index: Callable[[Module], Any]) -> Fn:
    def f(m: Module, x: Any, v: Any) -> Any:
        y = x.clone()
        y[index(m)] = v
        return y

    return f


def _on_clone(method: str, *args: Any) -> Fn:
    """`x.clone().method(*args)`; the clone is a non-leaf, so the in-place op records a node."""

    def f(m: Module, x: Any, *others: Any) -> Any:
        y = x.clone()
        getattr(y, method)(*others, *args)
        return y

    return f


def _on_clone_view(method: str) -> Fn:
    """An in-place op on a view of a clone: the clone's history is rebased (CopySlices)."""

    def f(m: Module, x: Any, *others: Any) -> Any:
        y = x.clone()
        getattr(y[0], method)(*others)
        return y

    return f


def _iadd(m: Module, x: Any, z: Any) -> Any:
    y = x.clone()
    y += z
    return y


def _mask(m: Module) -> Any:
    return m.tensor([[True, False, True], [False, True, True]])


CASES: list[Case] = [
    *_binary_cases(),
    Case("neg", lambda m, x: -x),
    # matmul in all its shapes; PyTorch routes some through mm/bmm and a reshape, which names the node.
    Case("matmul_1d_1d", lambda m, a, b: a @ b, (Domain((3,)), Domain((3,)))),
    Case("matmul_2d_1d", lambda m, a, b: a @ b, (Domain((2, 3)), Domain((3,)))),
    Case("matmul_1d_2d", lambda m, a, b: a @ b, (Domain((3,)), Domain((3, 2))), xfail=composite("SqueezeBackward4")),
    Case("matmul_2d_2d", lambda m, a, b: a @ b, (Domain((2, 3)), Domain((3, 2)))),
    Case("matmul_3d_3d", lambda m, a, b: a @ b, (Domain((2, 2, 3)), Domain((2, 3, 2))), xfail=composite("UnsafeView")),
    Case("matmul_3d_2d", lambda m, a, b: m.matmul(a, b), (Domain((2, 2, 3)), Domain((3, 2))), xfail=composite("UnsafeView")),
    Case("mm", lambda m, a, b: m.mm(a, b), (Domain((2, 3)), Domain((3, 2)))),
    # unary math
    Case("exp", lambda m, x: m.exp(x)),
    Case("log", lambda m, x: m.log(x), (POSITIVE,)),
    Case("sqrt", lambda m, x: m.sqrt(x), (POSITIVE,)),
    Case("abs", lambda m, x: m.abs(x), (Domain(kinks=(0.0,)),)),
    Case("sin", lambda m, x: m.sin(x)),
    Case("cos", lambda m, x: m.cos(x)),
    Case("tanh", lambda m, x: m.tanh(x)),
    Case("sigmoid", lambda m, x: m.sigmoid(x)),
    Case("relu", lambda m, x: m.relu(x), (Domain(kinks=(0.0,)),)),
    Case("pow_int_exponent", lambda m, x: m.pow(x, 3)),
    Case("pow_float_exponent", lambda m, x: x.pow(2.5), (POSITIVE,)),
    Case("pow_tensor_exponent", lambda m, x, e: m.pow(x, e), (POSITIVE, ANY)),
    Case("clamp_min", lambda m, x: m.clamp(x, min=-0.5), (Domain(kinks=(-0.5,)),)),
    Case("clamp_max", lambda m, x: x.clamp(max=0.5), (Domain(kinks=(0.5,)),)),
    Case("clamp_both", lambda m, x: m.clamp(x, -0.5, 0.5), (Domain(kinks=(-0.5, 0.5)),)),
    # reductions
    Case("sum", lambda m, x: x.sum()),
    Case("sum_dim", lambda m, x: m.sum(x, 1), (Domain((2, 3, 2)),)),
    Case("sum_negative_dim", lambda m, x: x.sum(-1), (Domain((2, 3, 2)),)),
    Case("sum_tuple_dims", lambda m, x: x.sum((0, 2)), (Domain((2, 3, 2)),)),
    Case("sum_keepdim", lambda m, x: x.sum(1, keepdim=True), (Domain((2, 3, 2)),)),
    Case("mean", lambda m, x: m.mean(x)),
    Case("mean_dim", lambda m, x: x.mean(1), (Domain((2, 3, 2)),)),
    Case("mean_negative_dim", lambda m, x: x.mean(-1), (Domain((2, 3, 2)),)),
    Case("mean_tuple_dims", lambda m, x: x.mean((0, 2)), (Domain((2, 3, 2)),)),
    Case("mean_keepdim", lambda m, x: m.mean(x, (0, -1), keepdim=True), (Domain((2, 3, 2)),)),
    Case("max", lambda m, x: x.max()),
    Case("min", lambda m, x: m.min(x)),
    Case("max_dim", lambda m, x: m.max(x, 1)),
    Case("max_dim_keepdim", lambda m, x: x.max(dim=0, keepdim=True)),
    Case("min_dim", lambda m, x: x.min(-1)),
    Case("min_dim_keepdim", lambda m, x: m.min(x, 1, keepdim=True)),
    # shapes
    Case("reshape", lambda m, x: x.reshape(-1, 2)),
    Case("view", lambda m, x: x.view(3, -1)),
    Case("reshape_function", lambda m, x: m.reshape(x, (6,))),
    Case("transpose", lambda m, x: x.transpose(0, 1)),
    Case("t", lambda m, x: x.t()),
    Case("permute", lambda m, x: x.permute(2, 0, 1), (Domain((2, 3, 2)),)),
    Case("expand", lambda m, x: x.expand(2, 3, 4), (COL,)),
    Case("unsqueeze", lambda m, x: x.unsqueeze(1)),
    Case("squeeze", lambda m, x: x.squeeze(), (Domain((1, 3, 1)),)),
    Case("squeeze_dim", lambda m, x: x.squeeze(0), (Domain((1, 3, 1)),)),
    # indexing
    Case("getitem_int", lambda m, x: x[1]),
    Case("getitem_slice", lambda m, x: x[:, 1:3]),
    Case("getitem_step", lambda m, x: x[::2], (Domain((5, 2)),)),
    Case("getitem_none", lambda m, x: x[None]),
    Case("getitem_ellipsis", lambda m, x: x[..., 1], (Domain((2, 2, 3)),)),
    Case("getitem_repeated_indices", lambda m, x: x[m.tensor([0, 2, 0, 0])], (Domain((3, 2)),)),
    Case("getitem_bool_mask", lambda m, x: x[_mask(m)]),
    Case("setitem_slice", _setitem(lambda m: (slice(None), slice(1, 3))), (ANY, Domain((2, 2)))),
    Case("setitem_int", _setitem(lambda m: 1), (Domain((3,)), Domain(()))),
    Case("setitem_index_tensor", _setitem(lambda m: m.tensor([2, 0])), (Domain((3, 2)), Domain((2, 2)))),
    Case("setitem_scalar_broadcast", _setitem(lambda m: 1), (ANY, Domain(()))),
    # joining and selecting
    Case("cat", lambda m, a, b: m.cat([a, b]), (ANY, Domain((1, 3)))),
    Case("cat_dim", lambda m, a, b: m.cat((a, b), dim=-1), (ANY, Domain((2, 1)))),
    Case("stack", lambda m, a, b: m.stack([a, b], dim=1), (ANY, ANY)),
    Case("where", lambda m, a, b: m.where(_mask(m), a, b), (ANY, Domain((3,)))),
    Case("where_scalar", lambda m, a: m.where(a > 0, a, 0.5)),
    # comparisons: boolean results, never differentiable
    *(
        Case(f"compare_{name}", lambda m, a, b, f=f: f(a, b), (Domain(integral=True), Domain((3,), integral=True)), 0)
        for name, f in {
            "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
            "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
        }.items()
    ),
    Case("compare_scalar", lambda m, a: a > 0.5, order=0),
    # detach, clone, and in-place ops on a clone
    Case("detach", lambda m, x: x.detach(), order=0),
    Case("detach_inside", lambda m, x: x * x.detach(), order=0),
    Case("clone", lambda m, x: x.clone()),
    Case("zero_", _on_clone("zero_")),
    Case("zero_view", _on_clone_view("zero_")),
    Case("fill_", _on_clone("fill_", 2.5)),
    Case("fill_tensor", _on_clone("fill_"), (ANY, Domain(()))),
    Case("copy_", _on_clone("copy_"), (ANY, Domain((3,)))),
    Case("copy_view", _on_clone_view("copy_"), (ANY, Domain((3,)))),
    Case("add_", _on_clone("add_"), (ANY, Domain((3,)))),
    Case("add_scalar_", _on_clone("add_", 1.5)),
    Case("sub_", _on_clone("sub_"), (ANY, ANY)),
    Case("mul_", _on_clone("mul_"), (ANY, Domain((3,)))),
    Case("mul_scalar_", _on_clone("mul_", 1.5)),
    Case("div_", _on_clone("div_"), (ANY, Domain((3,), 0.5, 2.0))),
    Case("iadd", _iadd, (ANY, Domain((3,)))),
    Case("add_view", _on_clone_view("add_"), (ANY, Domain((3,)))),
    Case("mul_view", _on_clone_view("mul_"), (ANY, Domain((3,)))),
]


def cases(check: str, min_order: int = 0) -> list[Any]:
    """The table's cases for one check, each xfailed there only if the case says so."""
    return [
        pytest.param(c, id=c.name, marks=[pytest.mark.xfail(strict=True, reason=c.xfail[check])] if check in c.xfail else [])
        for c in CASES
        if c.order >= min_order
    ]


# -- running a case under either module ------------------------------------------------------------------------
def leaves(m: Module, case: Case, dtype: str = "float64", requires_grad: bool = False) -> list[Any]:
    return [m.tensor(a, dtype=getattr(m, dtype), requires_grad=requires_grad) for a in case.arrays()]


def outputs(result: Any) -> list[Any]:
    return list(result) if isinstance(result, (tuple, list)) else [result]


def dtype_name(t: Any) -> str:
    return str(t.dtype).rsplit(".", 1)[-1]


def differentiable(m: Module, case: Case) -> tuple[list[Any], list[Any]]:
    """Leaves requiring grad and the case's outputs that require grad."""
    xs = leaves(m, case, requires_grad=True)
    return xs, [o for o in outputs(case.fn(m, *xs)) if o.requires_grad]


def first_derivatives(m: Module, case: Case) -> tuple[list[bool], Any]:
    """Which outputs require grad, and the gradients (or the exception type) for fixed random seeds."""
    xs = leaves(m, case, requires_grad=True)
    outs = outputs(case.fn(m, *xs))
    flags = [o.requires_grad for o in outs]
    outs = [o for o in outs if o.requires_grad]
    if not outs:
        return flags, None
    rng = np.random.default_rng(1)
    seeds = [m.tensor(rng.standard_normal(tuple(o.shape)), dtype=m.float64) for o in outs]
    try:
        grads = m.autograd.grad(outs, xs, seeds, allow_unused=True)
    except Exception as err:
        return flags, type(err).__name__
    return flags, [None if g is None else g.numpy() for g in grads]


def backward_twice(m: Module, case: Case) -> str:
    """Which of two `.sum().backward()` calls on one graph, without retain_graph, raise."""
    _, outs = differentiable(m, case)
    if not outs:
        return "no graph"
    loss = outs[0].sum()
    for attempt in ("first", "second"):
        try:
            loss.backward()
        except RuntimeError:
            return f"{attempt} raises"
    return "both run"


def glassgrad_fn(case: Case) -> Fn:
    return lambda *xs: case.fn(glassgrad, *xs)


# -- the checks -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", cases("forward"))
def test_forward_matches_torch(case: Case, dtype: str) -> None:
    expected = outputs(case.fn(torch, *leaves(torch, case, dtype)))
    actual = outputs(case.fn(glassgrad, *leaves(glassgrad, case, dtype)))
    assert len(actual) == len(expected)
    tolerance = {"rtol": 1e-12, "atol": 1e-12} if dtype == "float64" else {"rtol": 1e-5, "atol": 1e-6}
    for a, e in zip(actual, expected, strict=True):
        assert dtype_name(a) == dtype_name(e)
        assert tuple(a.shape) == tuple(e.shape)
        np.testing.assert_allclose(a.numpy(), e.numpy(), **tolerance)


@pytest.mark.parametrize("case", cases("grad"))
def test_first_derivatives_match_torch(case: Case) -> None:
    expected_flags, expected = first_derivatives(torch, case)
    actual_flags, actual = first_derivatives(glassgrad, case)
    assert actual_flags == expected_flags
    if expected is None or isinstance(expected, str):
        assert actual == expected
        return
    assert isinstance(actual, list), f"glassgrad raised {actual}"
    assert [g is None for g in actual] == [g is None for g in expected]
    for a, e in zip(actual, expected, strict=True):
        if e is not None:
            np.testing.assert_allclose(a, e, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", cases("gradcheck", min_order=1))
def test_gradcheck(case: Case) -> None:
    assert glassgrad.autograd.gradcheck(glassgrad_fn(case), leaves(glassgrad, case, requires_grad=True))


@pytest.mark.parametrize("case", cases("gradgradcheck", min_order=2))
def test_gradgradcheck(case: Case) -> None:
    inputs = leaves(glassgrad, case, requires_grad=True)
    assert glassgrad.autograd.gradgradcheck(glassgrad_fn(case), inputs)


def test_gradgradcheck_of_plain_function() -> None:
    x = glassgrad.tensor([1.0, 2.0], dtype=glassgrad.float64, requires_grad=True)
    assert glassgrad.autograd.gradgradcheck(lambda x: x * x, (x,))


@pytest.mark.parametrize("case", cases("second_backward"))
def test_second_backward_fails_like_torch(case: Case) -> None:
    assert backward_twice(glassgrad, case) == backward_twice(torch, case)


@pytest.mark.parametrize("case", cases("grad_fn", min_order=0))
def test_grad_fn_name_matches_torch(case: Case) -> None:
    def names(m: Module) -> list[str]:
        return [type(o.grad_fn).__name__ for o in outputs(case.fn(m, *leaves(m, case, requires_grad=True)))]

    assert names(glassgrad) == names(torch)


# -- dtype promotion and errors --------------------------------------------------------------------------------
PROMOTIONS: dict[str, Fn] = {
    "float32_times_python_float": lambda m: m.ones(2, dtype=m.float32) * 2.5,
    "int64_div_int": lambda m: m.tensor([1, 2, 3]) / 2,
    "int_plus_float_tensor": lambda m: m.tensor([1, 2]) + m.tensor([0.5, 1.5]),
    "float16_plus_float32_0d": lambda m: m.ones(2, dtype=m.float16) + m.tensor(1.5, dtype=m.float32),
    "bool_plus_int": lambda m: m.tensor([True, False]) + 1,
    "int32_plus_int64": lambda m: m.tensor([1, 2], dtype=m.int32) + m.tensor([3, 4]),
    "uint8_plus_int8": lambda m: m.tensor([1, 2], dtype=m.uint8) + m.tensor([-3, 4], dtype=m.int8),
    "int_times_python_float": lambda m: m.tensor([1, 2]) * 2.5,
}


@pytest.mark.parametrize("f", PROMOTIONS.values(), ids=PROMOTIONS.keys())
def test_dtype_promotion_matches_torch(f: Fn) -> None:
    actual, expected = f(glassgrad), f(torch)
    assert dtype_name(actual) == dtype_name(expected)
    np.testing.assert_array_equal(actual.numpy(), expected.numpy())


def raised(f: Fn, m: Module) -> str | None:
    try:
        f(m)
    except Exception as err:
        return type(err).__name__
    return None


INVALID: dict[str, Fn] = {
    "integer_requires_grad": lambda m: m.tensor([1, 2], requires_grad=True),
    "integer_requires_grad_": lambda m: m.tensor([1, 2]).requires_grad_(),
    "matmul_shape_mismatch": lambda m: m.ones(2, 3) @ m.ones(2, 3),
    "cat_shape_mismatch": lambda m: m.cat([m.ones(2, 3), m.ones(2, 4)]),
    "view_invalid_shape": lambda m: m.ones(2, 3).view(4, -1),
    "sum_dim_out_of_range": lambda m: m.ones(2, 3).sum(5),
    "index_out_of_range": lambda m: m.ones(2, 3)[5],
}


@pytest.mark.parametrize("f", INVALID.values(), ids=INVALID.keys())
def test_invalid_input_raises_like_torch(f: Fn) -> None:
    expected = raised(f, torch)
    assert expected is not None
    assert raised(f, glassgrad) == expected
