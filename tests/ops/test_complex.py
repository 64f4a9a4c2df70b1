"""Complex tensors beyond the OpInfos: dtypes and promotion, repr, creation, leaves, and the ops that refuse them."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

DTYPES = ("bool", "int64", "float16", "float32", "float64", "complex64", "complex128")


def _name(d: Any) -> str:
    return str(d).rpartition(".")[2]


@pytest.mark.parametrize(("a", "b"), list(itertools.combinations_with_replacement(DTYPES, 2)))
def test_promote_types_matches_torch(a: str, b: str) -> None:
    assert _name(glassgrad.promote_types(getattr(glassgrad, a), getattr(glassgrad, b))) == _name(
        torch.promote_types(getattr(torch, a), getattr(torch, b))
    )


def _operands(m: Any, spec: str) -> Any:
    """'t:float32' a tensor with dims, '0:complex128' a 0-d tensor, 'py:complex' a Python number."""
    kind, _, dtype = spec.partition(":")
    if kind == "py":
        return {"int": 2, "float": 2.5, "complex": 1 - 2j, "bool": True}[dtype]
    shape = (2,) if kind == "t" else ()
    return m.ones(shape, dtype=getattr(m, dtype))


SPECS = [f"t:{d}" for d in DTYPES if d != "float16"] + [f"0:{d}" for d in DTYPES if d != "float16"] + [
    "py:int", "py:float", "py:complex",
]


@pytest.mark.parametrize(("a", "b"), [(a, b) for a in SPECS for b in SPECS if not (a.startswith("py") and b.startswith("py"))])
def test_result_type_of_tensors_and_numbers_matches_torch(a: str, b: str) -> None:
    expected = _name((_operands(torch, a) + _operands(torch, b)).dtype)
    assert _name((_operands(glassgrad, a) + _operands(glassgrad, b)).dtype) == expected


def test_float16_has_no_complex_dtype() -> None:
    with pytest.raises(TypeError, match="complex32"):
        glassgrad.ones(2, dtype=glassgrad.float16) + 1j


def test_dtype_properties_match_torch() -> None:
    for name in ("complex64", "complex128", "float32", "float64"):
        ours, theirs = getattr(glassgrad, name), getattr(torch, name)
        assert (ours.is_complex, ours.is_floating_point, ours.itemsize) == (theirs.is_complex, theirs.is_floating_point, theirs.itemsize)
        assert _name(ours.to_real()) == _name(theirs.to_real())
        assert _name(ours.to_complex()) == _name(theirs.to_complex())
    assert glassgrad.cfloat is glassgrad.complex64 and glassgrad.cdouble is glassgrad.complex128


@pytest.mark.parametrize(
    "values",
    [[1 + 2j, 3 - 1.5j], [1 + 2j, 3 - 1j], 1e-5 + 3j, [[1 + 2j], [0.5j]], [1 + 1j, -2.5 - 3j, 10j], [[1.5 + 1e-5j, 1 - 2j]], []],
)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_repr_matches_torch(values: Any, dtype: str) -> None:
    def shown(m: Any) -> str:
        return repr(m.tensor(values, dtype=getattr(m, dtype))).replace("glassgrad.", "torch.")

    assert shown(glassgrad) == shown(torch)


def test_python_complex_numbers_make_complex_tensors() -> None:
    assert glassgrad.tensor([1j, 2]).dtype is glassgrad.complex64
    assert glassgrad.tensor(1 + 2j).item() == 1 + 2j
    assert complex(glassgrad.tensor(1 + 2j)) == 1 + 2j
    assert glassgrad.tensor([1 + 2j, 3]).tolist() == torch.tensor([1 + 2j, 3]).tolist()
    assert glassgrad.full((2,), 1j).dtype is glassgrad.complex64
    assert glassgrad.is_complex(glassgrad.zeros(2, dtype=glassgrad.cdouble))
    assert not glassgrad.is_complex(glassgrad.zeros(2))


@pytest.mark.parametrize("make", ["rand", "randn"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_random_complex_tensors_draw_both_parts(make: str, dtype: str) -> None:
    glassgrad.manual_seed(0)
    z = getattr(glassgrad, make)(20000, dtype=getattr(glassgrad, dtype))
    assert _name(z.dtype) == dtype
    re, im = z.real.numpy(), z.imag.numpy()
    if make == "rand":  # each part uniform on [0, 1)
        assert re.min() >= 0 and re.max() < 1 and im.min() >= 0 and im.max() < 1
        np.testing.assert_allclose([re.mean(), im.mean()], 0.5, atol=0.02)
    else:  # E|z|^2 = 1, each part of variance 1/2, as torch.randn draws
        np.testing.assert_allclose([re.var(), im.var()], 0.5, atol=0.02)
        np.testing.assert_allclose((np.abs(z.numpy()) ** 2).mean(), 1.0, atol=0.03)


def test_a_complex_leaf_gets_the_conjugate_wirtinger_gradient() -> None:
    rng = np.random.default_rng(0)
    values = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    grads = []
    for m in (torch, glassgrad):
        z = m.tensor(values, dtype=m.complex128, requires_grad=True)
        w = m.tensor(values[::-1].copy(), dtype=m.complex128)
        loss = ((z * w).exp().abs() + (z / (w + 1)).angle() + z.sqrt().real * z.conj().imag).sum()
        loss.backward()
        grads.append(z.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)


def test_a_real_input_of_a_complex_op_gets_a_real_gradient() -> None:
    grads = []
    for m in (torch, glassgrad):
        x = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
        y = (x.to(m.complex128) * (1 + 2j) + x * 1j).exp()
        (g,) = m.autograd.grad(m.view_as_real(y).sum(), x)
        assert _name(g.dtype) == "float64"
        grads.append(g.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)


def test_only_floating_and_complex_tensors_require_grad() -> None:
    glassgrad.zeros(2, dtype=glassgrad.complex64).requires_grad_()
    with pytest.raises(RuntimeError, match="floating point and complex"):
        glassgrad.zeros(2, dtype=glassgrad.int64).requires_grad_()


def test_casting_complex_to_real_warns_and_keeps_the_real_part() -> None:
    z = glassgrad.tensor([1 + 2j, -3j])
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
        x = z.to(glassgrad.float32)
    assert x.tolist() == [1.0, 0.0]


def test_ops_without_a_complex_derivative_refuse_rather_than_differentiate_wrongly() -> None:
    z = glassgrad.tensor([1 + 2j, 3j], requires_grad=True)
    with pytest.raises(NotImplementedError, match=r"ProdBackward0: glassgrad has no derivative of this op for complex"):
        glassgrad.prod(z)
    with glassgrad.no_grad():
        np.testing.assert_allclose(glassgrad.prod(z).numpy(), (1 + 2j) * 3j, rtol=1e-6)


HOLOMORPHIC_UNARY = (
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid",
)
# Points off the real axis, on both sides of it and in all four quadrants (acosh's branch shows at 0.23 - 1.2j).
POINTS = np.array([0.3 + 0.4j, -0.6 + 0.2j, -0.2 - 0.7j, 0.23 - 1.2j, 1.5 + 0.1j])


def _first_and_second_derivatives(m: Any, op: Any, make: Any) -> list[np.ndarray]:
    """x.grad of op at POINTS for a complex grad_output, and the gradient of that gradient (create_graph)."""
    rng = np.random.default_rng(1)
    g = rng.standard_normal(POINTS.size) + 1j * rng.standard_normal(POINTS.size)
    x = m.tensor(POINTS, dtype=m.complex128, requires_grad=True)
    (first,) = m.autograd.grad(make(m, op, x), x, m.tensor(g), create_graph=True)
    (second,) = m.autograd.grad((first * m.tensor(g[::-1].copy())).real.sum(), x)
    return [first.detach().resolve_conj().numpy(), second.resolve_conj().numpy()]


@pytest.mark.parametrize("op", HOLOMORPHIC_UNARY)
def test_holomorphic_ops_give_the_conjugate_wirtinger_gradient(op: str) -> None:
    """grad * conj(f'(z)), from each op's real formula by one rule; the second derivative too."""

    def make(m: Any, name: str, x: Any) -> Any:
        return getattr(m, name)(x)

    ours, theirs = (_first_and_second_derivatives(m, op, make) for m in (glassgrad, torch))
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "expression",
    ["x * x.flip(0)", "x / (x.flip(0) + 2)", "(x.flip(0) + 2) / x", "x ** 3", "x ** (0.5 - 1j)", "x ** x.flip(0)",
     "2.5 ** x", "x.diag_embed().diagonal() * x", "x.diag_embed(1).diagonal(1) * x.outer(x).trace()"],
)
def test_binary_holomorphic_and_linear_ops_match_torch_on_complex_inputs(expression: str) -> None:
    def make(m: Any, code: str, x: Any) -> Any:
        return eval(code, {"x": x})

    ours, theirs = (_first_and_second_derivatives(m, expression, make) for m in (glassgrad, torch))
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("base", ["tensor", "number"])
def test_a_real_negative_base_of_a_complex_power_differentiates_through_its_complex_log(base: str) -> None:
    grads = []
    for m in (torch, glassgrad):
        exponent = m.tensor([0.5 - 0.3j, -1.2 + 2j, 2.0 + 0j], dtype=m.complex128, requires_grad=True)
        power = m.pow(-m.ones(3, dtype=m.float64) * 1.5, exponent) if base == "tensor" else m.pow(-1, exponent)
        (g,) = m.autograd.grad(power, exponent, m.tensor([1 - 1j, 2j, 0.5]))
        grads.append(g.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)


def test_real_and_imag_are_views() -> None:
    z = glassgrad.tensor([1 + 2j, 3 - 4j])
    z.real.mul_(10)
    z.imag.zero_()
    assert z.tolist() == [10 + 0j, 30 + 0j]
    assert glassgrad.view_as_real(z).data_ptr() == z.data_ptr()
    x = glassgrad.tensor([1.0, 2.0])
    assert x.real is x


def test_custom_function_with_a_complex_output_records_its_graph() -> None:
    """A custom Function returning a complex tensor is differentiable (it recorded nothing, silently, before)."""

    def run(m: Any) -> np.ndarray:
        class Lift(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return m.complex(x, 2 * x)

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return grad.real + 2 * grad.imag

        x = m.tensor([1.0, -2.0, 0.5], dtype=m.float64, requires_grad=True)
        (Lift.apply(x).abs() ** 2).sum().backward()
        return x.grad.numpy()

    np.testing.assert_array_equal(run(glassgrad), run(torch))


@pytest.mark.parametrize("name", ["view_as_real_copy", "view_as_complex_copy"])
def test_view_copies_do_not_share_the_input_storage(name: str) -> None:
    def after_writing_the_copy(m: Any) -> np.ndarray:
        pairs = m.tensor([[1.0, 2.0], [3.0, 4.0]])
        z = m.view_as_complex(pairs)
        copy = getattr(m, name)(z if name == "view_as_real_copy" else pairs)
        copy.zero_()
        return pairs.numpy()

    np.testing.assert_array_equal(after_writing_the_copy(glassgrad), after_writing_the_copy(torch))
