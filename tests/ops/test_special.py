"""glassgrad.special beyond the OpInfos: its aliases, dtypes, special values and the nodes PyTorch records."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

UNARY = [
    "expit", "logit", "erf", "erfc", "erfcx", "erfinv", "ndtr", "ndtri", "log_ndtr", "gammaln", "digamma", "psi", "i0",
    "i0e", "i1", "i1e", "sinc", "entr", "round", "exp2", "expm1", "log1p", "bessel_j0", "bessel_j1",
]
OTHERS: dict[str, Callable[[Any, Any], Any]] = {
    "polygamma": lambda m, x: m.special.polygamma(2, x),
    "multigammaln": lambda m, x: m.special.multigammaln(x + 3, 2),
    "xlogy": lambda m, x: m.special.xlogy(x, x + 1),
    "xlog1py": lambda m, x: m.special.xlog1py(x, x),
    "xlog1py_number": lambda m, x: m.special.xlog1py(2, x),
    "zeta": lambda m, x: m.special.zeta(x + 1.5, x + 0.5),
    "zeta_number": lambda m, x: m.special.zeta(2.5, x + 0.5),
    "logsumexp": lambda m, x: m.special.logsumexp(x, 0),
    "softmax": lambda m, x: m.special.softmax(x, 0),
    "log_softmax": lambda m, x: m.special.log_softmax(x, 0),
    "torch.lgamma": lambda m, x: m.lgamma(x),
    "torch.digamma": lambda m, x: m.digamma(x),
    "torch.polygamma": lambda m, x: m.polygamma(1, x),
    "torch.mvlgamma": lambda m, x: m.mvlgamma(x + 2, 3),
    "torch.i0": lambda m, x: m.i0(x),
    "torch.sinc": lambda m, x: m.sinc(x),
}
CALLS: dict[str, Callable[[Any, Any], Any]] = {
    **{name: (lambda m, x, name=name: getattr(m.special, name)(x)) for name in UNARY},
    **OTHERS,
}


@pytest.mark.parametrize("name", list(CALLS))
def test_values_and_nodes_match_torch(name: str) -> None:
    values = np.array([0.15, 0.4, 0.85])

    def run(m: Any) -> tuple[np.ndarray, str | None, bool]:
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        out = CALLS[name](m, x)
        return out.detach().numpy(), None if out.grad_fn is None else out.grad_fn.name(), out.requires_grad

    (ours, our_node, ours_requires), (theirs, their_node, theirs_requires) = run(glassgrad), run(torch)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9)  # SciPy's and PyTorch's series part at about 1e-10
    assert ours_requires == theirs_requires
    if name != "ndtr":  # PyTorch's C++ composite multiplies by a number (MulBackward1); glassgrad's Python one cannot
        assert our_node == their_node


@pytest.mark.parametrize("dtype", ["bool", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("name", list(CALLS))
def test_result_dtypes_match_torch(name: str, dtype: str) -> None:
    def result(m: Any) -> str:
        try:
            return str(CALLS[name](m, m.tensor([1, 0, 1]).to(getattr(m, dtype))).dtype).rpartition(".")[2]
        except Exception as err:
            return type(err).__name__

    assert result(glassgrad) == result(torch)


ALIASES = {
    "expit": "sigmoid", "logit": "logit", "erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "exp2": "exp2",
    "expm1": "expm1", "log1p": "log1p", "xlogy": "xlogy", "logsumexp": "logsumexp",
    "gammaln": "lgamma", "psi": "digamma", "digamma": "digamma", "polygamma": "polygamma", "multigammaln": "mvlgamma",
    "i0": "i0", "sinc": "sinc",
}


@pytest.mark.parametrize(("special", "op"), list(ALIASES.items()))
def test_aliases_are_glassgrads_own_ops(special: str, op: str) -> None:
    assert getattr(glassgrad.special, special) is getattr(glassgrad, op)


SPECIAL_VALUES: dict[str, tuple[Callable[[Any, Any], Any], list[float]]] = {
    "digamma at the poles": (lambda m, x: m.digamma(x), [0.0, -0.0, -1.5]),  # PyTorch's trigamma(-1) is 6.6e32, not inf
    "lgamma at the poles": (lambda m, x: m.lgamma(x), [0.0, -1.0, -2.5, float("inf")]),
    "sinc at zero": (lambda m, x: m.sinc(x), [0.0, 1.0, -2.0]),
    "entr outside its domain": (lambda m, x: m.special.entr(x), [-1.0, 0.0, 1.0, float("nan")]),
    "ndtri at 0 and 1": (lambda m, x: m.special.ndtri(x), [0.0, 1.0, 0.5, 1.5]),
    "log_ndtr in the tails": (lambda m, x: m.special.log_ndtr(x), [-40.0, 10.0, 0.0]),
    "xlog1py at -1": (lambda m, x: m.special.xlog1py(x, m.full_like(x, -1.0)), [0.0, 1.0, float("nan")]),
    "zeta off its domain": (lambda m, q: m.special.zeta(m.tensor([1.0, 0.5, 2.0, 2.0], dtype=m.float64), q), [1.0, 1.0, -1.0, 0.0]),
    "i1 and i1e at zero": (lambda m, x: m.special.i1(x) + m.special.i1e(x), [0.0, -0.0, 1e-20]),
}


@pytest.mark.parametrize("case", list(SPECIAL_VALUES))
def test_special_values_and_their_gradients_match_torch(case: str) -> None:
    fn, values = SPECIAL_VALUES[case]

    def run(m: Any) -> tuple[np.ndarray, np.ndarray]:
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        out = fn(m, x)
        (grad,) = m.autograd.grad(out, x, m.ones_like(out))
        return out.detach().numpy(), grad.numpy()

    for ours, theirs in zip(run(glassgrad), run(torch), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, equal_nan=True)


def test_zeta_has_no_derivative_in_its_exponent_as_in_pytorch() -> None:
    def message(m: Any) -> str:
        s = m.tensor([2.0], requires_grad=True)
        with pytest.raises(NotImplementedError) as err:
            m.special.zeta(s, m.tensor([1.0])).backward()
        return str(err.value)

    assert message(glassgrad) == message(torch)


NOT_DIFFERENTIABLE = [
    "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
    "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "airy_ai", "spherical_bessel_j0",
]
POLYNOMIALS = [
    *(f"{shift}chebyshev_polynomial_{kind}" for shift in ("", "shifted_") for kind in "tuvw"),
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
]


@pytest.mark.parametrize("name", NOT_DIFFERENTIABLE + POLYNOMIALS)
def test_functions_pytorch_does_not_differentiate_record_no_node(name: str) -> None:
    def recorded(m: Any) -> tuple[bool, bool]:
        x = m.tensor([0.3, 2.0], dtype=m.float64, requires_grad=True)
        out = getattr(m.special, name)(*((x,) if name in NOT_DIFFERENTIABLE else (x, x * 3)))
        return out.requires_grad, out.grad_fn is None

    assert recorded(glassgrad) == recorded(torch)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_has_no_derivative_in_a_as_in_pytorch(name: str) -> None:
    def message(m: Any) -> str:
        a = m.tensor([2.0], requires_grad=True)
        with pytest.raises(NotImplementedError) as err:
            getattr(m, name)(a, m.tensor([1.0])).backward()
        return str(err.value)

    assert message(glassgrad) == message(torch)


def test_a_large_degree_inside_the_interval_takes_the_closed_form_as_in_pytorch() -> None:
    """A recurrence of 10^12 steps would not finish; cos(n acos(x)) does. n multiplies the last bit of acos(x), and the
    libraries' acos may differ there: hence the tolerance."""

    def values(m: Any) -> np.ndarray:
        return m.special.chebyshev_polynomial_t(m.tensor([0.3, -0.7], dtype=m.float64), m.tensor([1e12, 3e9])).numpy()

    np.testing.assert_allclose(values(glassgrad), values(torch), rtol=1e-4)


def test_a_missing_special_function_names_itself() -> None:
    with pytest.raises(AttributeError, match=r"glassgrad does not implement torch\.special\.not_a_special_function yet"):
        glassgrad.special.not_a_special_function  # noqa: B018
