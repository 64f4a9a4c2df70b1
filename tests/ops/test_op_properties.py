"""Every OpInfo against PyTorch 2.13 on hypothesis-drawn shapes and values, and against finite differences."""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

import glassgrad

from .opinfo import Module, OpInfo
from .opinfos import OPS

pytestmark = pytest.mark.torch_oracle


def params(check: str, min_order: int = 0, xfail: dict[str, str] | None = None) -> list[Any]:
    """One param per OpInfo; `xfail` adds reasons by label to the OpInfos' own."""
    reasons = {op.label: op.xfail[check] for op in OPS if check in op.xfail} | (xfail or {})
    return [
        pytest.param(op, id=op.label, marks=[pytest.mark.xfail(strict=True, reason=reasons[op.label])] if op.label in reasons else [])
        for op in OPS
        if op.order >= min_order
    ]


def outputs(result: Any) -> list[Any]:
    return list(result) if isinstance(result, (tuple, list)) else [result]


@dataclasses.dataclass
class Evaluation:
    """What one library made of one drawn input: outputs, or the exception type it raised at each stage."""

    error: str | None = None
    forward: list[tuple[str, tuple[int, ...], np.ndarray]] = dataclasses.field(default_factory=list)
    first: list[np.ndarray | None] | str | None = None
    second: list[np.ndarray] | str | None = None


def _numpy(t: Any) -> np.ndarray:
    return t.detach().numpy(force=True)  # force: PyTorch returns some zero gradients as ZeroTensors


def evaluate(m: Module, op: OpInfo, arrays: list[np.ndarray], seed: int) -> Evaluation:
    xs = op.tensors(m, arrays)
    try:
        outs = outputs(op.fn(m, *xs))
    except Exception as err:  # the comparison is of which inputs each library rejects
        return Evaluation(error=type(err).__name__)
    result = Evaluation(forward=[(str(o.dtype).rpartition(".")[2], tuple(o.shape), _numpy(o)) for o in outs])
    diff_outs = [o for o in outs if o.requires_grad]
    diff_xs = [x for x in xs if x.requires_grad]
    if op.order == 0 or not diff_outs or not diff_xs:
        return result
    rng = np.random.default_rng(seed)
    seeds = [m.tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype) for o in diff_outs]
    try:
        grads = m.autograd.grad(diff_outs, diff_xs, seeds, create_graph=op.order >= 2, allow_unused=True)
    except Exception as err:
        result.first = type(err).__name__
        return result
    result.first = [None if g is None else _numpy(g) for g in grads]
    if op.order < 2:
        return result
    projection = sum(
        ((g * m.tensor(rng.standard_normal(tuple(g.shape)), dtype=g.dtype)).sum() for g in grads if g is not None and g.requires_grad),
        start=m.tensor(0.0, dtype=m.float64),
    )
    if not projection.requires_grad:  # the gradient does not depend on the inputs: second derivatives are zero
        result.second = [np.zeros(tuple(x.shape)) for x in diff_xs]
        return result
    try:
        second = m.autograd.grad(projection, diff_xs, materialize_grads=True)
    except Exception as err:
        result.second = type(err).__name__
        return result
    result.second = [_numpy(g) for g in second]
    return result


def assert_same(actual: Any, expected: Any, op: OpInfo, what: str) -> None:
    if isinstance(expected, str) or expected is None:
        assert actual == expected, f"{what}: torch gave {expected!r}, glassgrad {actual!r}"
        return
    assert isinstance(actual, list), f"{what}: glassgrad raised {actual}"
    assert len(actual) == len(expected), what
    for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
        assert (a is None) == (e is None), f"{what} {i}: torch gave {'None' if e is None else 'a tensor'}"
        if e is not None:
            np.testing.assert_allclose(a, e, rtol=op.rtol * 100, atol=op.atol * 100, err_msg=f"{what} {i}")


@pytest.mark.parametrize("op", params("torch"))
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_matches_torch(op: OpInfo, data: st.DataObject) -> None:
    arrays = op.draw(data)
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    expected = evaluate(torch, op, arrays, seed)
    actual = evaluate(glassgrad, op, arrays, seed)
    assert actual.error == expected.error, f"torch raised {expected.error}, glassgrad {actual.error}"
    assert len(actual.forward) == len(expected.forward)
    for (a_dtype, a_shape, a), (e_dtype, e_shape, e) in zip(actual.forward, expected.forward, strict=True):
        assert (a_dtype, a_shape) == (e_dtype, e_shape)
        if op.values:
            np.testing.assert_allclose(a, e, rtol=op.rtol, atol=op.atol, equal_nan=True)
    if op.values:
        assert_same(actual.first, expected.first, op, "first derivative")
        assert_same(actual.second, expected.second, op, "second derivative")


@pytest.mark.parametrize("op", params("float32"))
def test_float32_dtype_matches_torch(op: OpInfo) -> None:
    arrays = _small_example(op, np.random.default_rng(0))

    def run(m: Module) -> Any:
        xs = [m.tensor(a, dtype=m.float32) if op.domain(i).differentiable else op.domain(i).tensor(m, a, False)
              for i, a in enumerate(arrays)]
        try:
            return [str(o.dtype).rpartition(".")[2] for o in outputs(op.fn(m, *xs))]
        except Exception as err:
            return type(err).__name__

    assert run(glassgrad) == run(torch)


def _small_example(op: OpInfo, rng: np.random.Generator) -> list[np.ndarray]:
    """A deterministic draw: the first shapes hypothesis finds whose inputs hold 1 to 12 elements."""
    shapes = _small_shapes(op)
    return [op.domain(i).sample(rng, s) for i, s in enumerate(shapes)]


_SHAPE_CACHE: dict[str, tuple[tuple[int, ...], ...]] = {}


def _small_shapes(op: OpInfo) -> tuple[tuple[int, ...], ...]:
    key = f"{op.name}/{op.label}"
    if key not in _SHAPE_CACHE:
        _SHAPE_CACHE[key] = find(
            op.shapes,
            lambda shapes: all(0 < int(np.prod(s)) <= 12 for s in shapes) and sum(len(s) for s in shapes) >= len(shapes),
            settings=settings(database=None, max_examples=500),
        )
    return _SHAPE_CACHE[key]


@pytest.mark.parametrize("op", params("gradcheck", min_order=1))
def test_gradcheck(op: OpInfo) -> None:
    xs = op.tensors(glassgrad, _small_example(op, np.random.default_rng(1)))
    assert glassgrad.autograd.gradcheck(lambda *a: op.fn(glassgrad, *a), xs)
    if op.order >= 2:
        assert glassgrad.autograd.gradgradcheck(lambda *a: op.fn(glassgrad, *a), xs)


ERROR_CASES = [
    pytest.param(op, check, id=f"{op.label}-{i}") for op in OPS for i, check in enumerate(op.errors)
]


@pytest.mark.parametrize(("op", "check"), ERROR_CASES)
def test_rejects_invalid_input_like_torch(op: OpInfo, check: Any) -> None:
    def raised(m: Module) -> str | None:
        try:
            check(m)
        except Exception as err:
            return type(err).__name__
        return None

    expected = raised(torch)
    assert expected is not None, "this error case does not raise in PyTorch"
    assert raised(glassgrad) == expected


def _forward_mode(m: Module, op: OpInfo, arrays: list[np.ndarray], directions: list[np.ndarray]) -> list[np.ndarray] | str:
    """The tangents of op's floating outputs when its differentiable inputs carry `directions` (zeros where an
    output has none), or the exception type forward mode raised."""
    xs = op.tensors(m, arrays, requires_grad=False)
    fw = m.autograd.forward_ad
    try:
        # PyTorch's first make_dual loads its JVP decompositions through the deprecated torch.jit.script
        with warnings.catch_warnings(), fw.dual_level():
            warnings.simplefilter("ignore", DeprecationWarning)
            duals = [fw.make_dual(x, m.tensor(d, dtype=x.dtype)) if op.domain(i).differentiable else x
                     for i, (x, d) in enumerate(zip(xs, directions, strict=True))]
            outs = outputs(op.fn(m, *duals))
            tangents = [fw.unpack_dual(o).tangent for o in outs if o.is_floating_point() or o.is_complex()]
            return [np.zeros(tuple(o.shape)) if t is None else _numpy(t)
                    for o, t in zip([o for o in outs if o.is_floating_point() or o.is_complex()], tangents, strict=True)]
    except Exception as err:
        return type(err).__name__


def _central_difference(op: OpInfo, arrays: list[np.ndarray], directions: list[np.ndarray], eps: float = 1e-6) -> list[np.ndarray]:
    def at(sign: float) -> list[np.ndarray]:
        moved = [a + sign * eps * d if op.domain(i).differentiable else a for i, (a, d) in enumerate(zip(arrays, directions, strict=True))]
        outs = outputs(op.fn(glassgrad, *op.tensors(glassgrad, moved, requires_grad=False)))
        return [_numpy(o) for o in outs if o.is_floating_point() or o.is_complex()]

    return [(p - n) / (2 * eps) for p, n in zip(at(1.0), at(-1.0), strict=True)]


_TORCH_JVP_AT_NAN = "PyTorch's JVP at a NaN input takes one side, its VJP (and so glassgrad's transposed JVP) both"
# Where PyTorch's forward mode disagrees with its own reverse mode; glassgrad's JVP is its VJP transposed.
FORWARD_DIFFERS = {
    "maximum_nan": _TORCH_JVP_AT_NAN, "clamp_min_nan": _TORCH_JVP_AT_NAN, "clamp_max_nan": _TORCH_JVP_AT_NAN,
    "logcumsumexp_minus_inf": "PyTorch's JVP is NaN where an input is -inf; the VJP (and finite differences) are finite",
    "scatter_reduce_prod": "PyTorch's JVP of scatter_reduce('prod') is zero; finite differences agree with glassgrad",
    "scatter_reduce_prod_exclude_self": "PyTorch's JVP of scatter_reduce('prod') is zero; finite differences agree",
    "max_unpool2d_overlapping": "overlapping indices: PyTorch's JVP keeps one write, the VJP reads every one",
    "dist_0": "dist(p=0): PyTorch's VJP raises (glassgrad's copies it), its JVP is zero",
}


@pytest.mark.parametrize("op", params("forward", min_order=1, xfail=FORWARD_DIFFERS))
def test_forward_mode_matches_torch(op: OpInfo) -> None:
    """JVPs against torch.autograd.forward_ad on one small example (and against central differences), or the
    same exception type where PyTorch refuses forward mode for the op."""
    rng = np.random.default_rng(2)
    arrays = _small_example(op, rng)
    directions = [rng.standard_normal(a.shape) for a in arrays]
    expected = _forward_mode(torch, op, arrays, directions)
    actual = _forward_mode(glassgrad, op, arrays, directions)
    if isinstance(expected, str) or isinstance(actual, str):
        assert actual == expected, f"torch gave {expected if isinstance(expected, str) else 'tangents'}, glassgrad {actual}"
        return
    assert len(actual) == len(expected)
    if not op.values:
        return
    for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
        np.testing.assert_allclose(a, e, rtol=op.rtol * 100, atol=op.atol * 100, err_msg=f"tangent {i} against torch")
    if "gradcheck" in op.xfail or any(op.domain(i).integral for i in range(len(arrays))):
        return  # ties and steps: finite differences do not hold there (gradcheck is left out as well)
    differences = _central_difference(op, arrays, directions)
    for i, (a, e, d) in enumerate(zip(actual, expected, differences, strict=True)):
        if e.dtype != np.float64:
            continue  # single precision: too coarse for these differences
        np.testing.assert_allclose(a, d, rtol=1e-3, atol=1e-5, err_msg=f"tangent {i} against central differences")
