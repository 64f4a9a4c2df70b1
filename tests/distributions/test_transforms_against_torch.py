"""Transforms, constraints and the constraint registry against PyTorch 2.13: forward and inverse values,
log |det J| and its gradient, shapes, signs, equality, constraint checks, biject_to and transform_to."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle

rng = np.random.default_rng(0)
VECTOR = rng.normal(size=(4, 5))
SQUARE = rng.normal(size=(2, 4, 4))

# name -> (transform built with module m, input in its domain)
TRANSFORMS: dict[str, tuple[Callable[[Any], Any], np.ndarray]] = {
    "exp": (lambda m: m.distributions.transforms.ExpTransform(), VECTOR),
    "power": (lambda m: m.distributions.transforms.PowerTransform(m.tensor(2.5, dtype=m.float64)), np.exp(VECTOR)),
    "sigmoid": (lambda m: m.distributions.transforms.SigmoidTransform(), VECTOR),
    "tanh": (lambda m: m.distributions.transforms.TanhTransform(), VECTOR),
    "softplus": (lambda m: m.distributions.transforms.SoftplusTransform(), VECTOR),
    "abs": (lambda m: m.distributions.transforms.AbsTransform(), VECTOR),
    "affine_numbers": (lambda m: m.distributions.transforms.AffineTransform(1.0, -2.0), VECTOR),
    "affine_tensors": (
        lambda m: m.distributions.transforms.AffineTransform(
            m.tensor(VECTOR[0], dtype=m.float64), m.tensor(VECTOR[1] ** 2 + 0.5, dtype=m.float64), event_dim=1
        ),
        VECTOR,
    ),
    "softmax": (lambda m: m.distributions.transforms.SoftmaxTransform(), VECTOR),
    "stick_breaking": (lambda m: m.distributions.transforms.StickBreakingTransform(), VECTOR),
    "lower_cholesky": (lambda m: m.distributions.transforms.LowerCholeskyTransform(), SQUARE),
    "positive_definite": (lambda m: m.distributions.transforms.PositiveDefiniteTransform(), SQUARE),
    "corr_cholesky": (lambda m: m.distributions.transforms.CorrCholeskyTransform(), rng.normal(size=(3, 6))),
    "reshape": (lambda m: m.distributions.transforms.ReshapeTransform((5,), (5, 1)), VECTOR),
    "compose": (
        lambda m: m.distributions.transforms.ComposeTransform(
            [m.distributions.transforms.AffineTransform(0.5, 2.0), m.distributions.transforms.ExpTransform()]
        ),
        VECTOR,
    ),
    "independent": (
        lambda m: m.distributions.transforms.IndependentTransform(m.distributions.transforms.ExpTransform(), 1), VECTOR
    ),
    "cat": (
        lambda m: m.distributions.transforms.CatTransform(
            [m.distributions.transforms.ExpTransform(), m.distributions.transforms.SigmoidTransform()], 1, [2, 3]
        ),
        VECTOR,
    ),
    "stack": (
        lambda m: m.distributions.transforms.StackTransform(
            [m.distributions.transforms.ExpTransform(), m.distributions.transforms.TanhTransform()], 0
        ),
        VECTOR[:2],
    ),
    "cdf_normal": (
        lambda m: m.distributions.transforms.CumulativeDistributionTransform(m.distributions.Normal(0.5, 2.0)), VECTOR
    ),
}


def _close(ours: Any, theirs: Any) -> None:
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-9)


def _apply(m: Any, name: str, inverse: bool) -> tuple[Any, Any, Any, Any]:
    build, data = TRANSFORMS[name]
    t = build(m)
    t = t.inv if inverse else t
    x = m.tensor(data, dtype=m.float64, requires_grad=True)
    if inverse:  # the inverse's input lies in the forward's codomain
        with m.no_grad():
            x = t.inv(x).detach().requires_grad_()
    return t, x, t(x), x


@pytest.mark.parametrize("inverse", [False, True], ids=["forward", "inverse"])
@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_values_and_jacobians(name: str, inverse: bool) -> None:
    ours, our_x, our_y, _ = _apply(glassgrad, name, inverse)
    theirs, their_x, their_y, _ = _apply(torch, name, inverse)
    _close(our_x, their_x)
    _close(our_y, their_y)
    assert tuple(ours.forward_shape(our_x.shape)) == tuple(theirs.forward_shape(their_x.shape))
    assert tuple(ours.inverse_shape(our_y.shape)) == tuple(theirs.inverse_shape(their_y.shape))
    assert (ours.domain.event_dim, ours.codomain.event_dim) == (theirs.domain.event_dim, theirs.codomain.event_dim)
    assert ours.bijective == theirs.bijective
    try:
        expected = theirs.log_abs_det_jacobian(their_x, their_y)
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            ours.log_abs_det_jacobian(our_x, our_y)
        return
    actual = ours.log_abs_det_jacobian(our_x, our_y)
    _close(actual, expected)
    assert actual.requires_grad == expected.requires_grad
    if not expected.requires_grad:  # constant Jacobians (affine, reshape)
        return
    (their_grad,) = torch.autograd.grad(expected.sum(), their_x)
    (our_grad,) = glassgrad.autograd.grad(actual.sum(), our_x)
    _close(our_grad, their_grad)


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_inverse_round_trip_and_cache(name: str) -> None:
    build, data = TRANSFORMS[name]
    t = build(glassgrad)
    x = glassgrad.tensor(data, dtype=glassgrad.float64)
    y = t(x)
    if t.bijective:
        _close(t.inv(y), x)
    cached = t.with_cache(1)
    if cached._cache_size == 1:
        y1 = cached(x)
        assert cached(x) is y1
        assert cached.inv(y1) is x


def test_equality_is_identity_except_where_pytorch_compares_values() -> None:
    T = glassgrad.distributions.transforms
    assert T.ExpTransform() == T.ExpTransform()
    assert T.ExpTransform() != T.ExpTransform().inv
    assert T.ExpTransform().inv == T.ExpTransform().inv
    assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0)
    assert T.AffineTransform(1.0, 2.0) != T.AffineTransform(1.0, 3.0)
    assert T.PowerTransform(glassgrad.tensor(2.0)) == T.PowerTransform(glassgrad.tensor(2.0))
    assert T.ComposeTransform([T.ExpTransform()]) == T.ComposeTransform([T.ExpTransform()])
    reshape = T.ReshapeTransform((2,), (2, 1))
    assert reshape != T.ReshapeTransform((2,), (2, 1)) and reshape == reshape
    assert T.identity_transform == T.identity_transform.inv
    t = T.SigmoidTransform()
    assert t.inv.inv is t


def test_transform_errors_match_pytorch() -> None:
    for m in (torch, glassgrad):
        T = m.distributions.transforms
        with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
            T.ExpTransform(cache_size=2)
        with pytest.raises(ValueError, match="in_shape, out_shape have different numbers of elements"):
            T.ReshapeTransform((2,), (3,))
        with pytest.raises(ValueError, match=r"Please use either \.domain\.event_dim or \.codomain\.event_dim"):
            _ = T.ReshapeTransform((4,), (2, 2)).event_dim  # one event dimension in, two out


CONSTRAINT_VALUES = [
    [[2.0, 0.0], [2.0, 2.0]],
    [[3.0, -5.0], [-5.0, 3.0]],
    [[4.0, 2.0], [2.0, 4.0]],
    [[0.2, 0.8], [0.5, 0.5]],
    [[1.0, 0.0], [0.0, 1.0]],
    [[-1.0, float("nan")], [0.0, 3.0]],
]
CONSTRAINTS: dict[str, Callable[[Any], Any]] = {
    name: (lambda m, name=name: getattr(m.distributions.constraints, name))
    for name in ("real", "real_vector", "positive", "nonnegative", "boolean", "one_hot", "nonnegative_integer",
                 "positive_integer", "unit_interval", "simplex", "lower_triangular", "lower_cholesky",
                 "corr_cholesky", "square", "symmetric", "positive_semidefinite", "positive_definite")
}
CONSTRAINTS |= {
    "greater_than": lambda m: m.distributions.constraints.greater_than(1.0),
    "greater_than_eq": lambda m: m.distributions.constraints.greater_than_eq(2.0),
    "less_than": lambda m: m.distributions.constraints.less_than(2.0),
    "interval": lambda m: m.distributions.constraints.interval(0.0, 2.0),
    "half_open_interval": lambda m: m.distributions.constraints.half_open_interval(0.0, 2.0),
    "integer_interval": lambda m: m.distributions.constraints.integer_interval(0, 3),
    "multinomial": lambda m: m.distributions.constraints.multinomial(3),
    "independent": lambda m: m.distributions.constraints.independent(m.distributions.constraints.positive, 1),
    "cat": lambda m: m.distributions.constraints.cat(
        [m.distributions.constraints.positive, m.distributions.constraints.real], 1, [1, 1]
    ),
    "stack": lambda m: m.distributions.constraints.stack(
        [m.distributions.constraints.positive, m.distributions.constraints.real], 1
    ),
}


@pytest.mark.parametrize("name", sorted(CONSTRAINTS))
def test_constraints_check_as_pytorch(name: str) -> None:
    ours, theirs = CONSTRAINTS[name](glassgrad), CONSTRAINTS[name](torch)
    assert repr(ours) == repr(theirs)
    assert (ours.event_dim, ours.is_discrete) == (theirs.event_dim, theirs.is_discrete)
    for value in CONSTRAINT_VALUES:
        expected = theirs.check(torch.tensor(value, dtype=torch.float64))
        actual = ours.check(glassgrad.tensor(value, dtype=glassgrad.float64))
        assert actual.tolist() == expected.tolist(), value


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", sorted(CONSTRAINTS))
def test_registry_gives_pytorch_transforms(name: str, registry: str) -> None:
    their_registry = getattr(torch.distributions, registry)
    our_registry = getattr(glassgrad.distributions, registry)
    try:
        theirs = their_registry(CONSTRAINTS[name](torch))
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            our_registry(CONSTRAINTS[name](glassgrad))
        return
    ours = our_registry(CONSTRAINTS[name](glassgrad))
    assert repr(ours).replace(" ", "") == repr(theirs).replace(" ", "")
    shapes = {"corr_cholesky": (3, 6), "lower_cholesky": (3, 2, 2), "positive_definite": (3, 2, 2),
              "positive_semidefinite": (3, 2, 2)}
    x = rng.normal(size=shapes.get(name, (3, 2)))
    _close(ours(glassgrad.tensor(x)), theirs(torch.tensor(x)))


def test_dependent_constraints_refuse_to_check() -> None:
    for m in (torch, glassgrad):
        c = m.distributions.constraints
        assert c.is_dependent(c.dependent) and not c.is_dependent(c.real)
        with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
            c.dependent.check(m.zeros(2))
        with pytest.raises(NotImplementedError, match="cannot be determined statically"):
            _ = c.dependent.event_dim
        assert c.dependent(is_discrete=True, event_dim=1).event_dim == 1
