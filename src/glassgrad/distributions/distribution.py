"""Distribution: the base class every distribution derives from (shapes, validation, the sampling API)."""

from __future__ import annotations

import warnings
from typing import Any

import glassgrad as gg
from glassgrad.tensor import Tensor

from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """A batch of probability distributions of one family.

    `batch_shape` indexes independent distributions; `event_shape` is the shape of one draw. With
    `validate_args` (default on, as `__debug__`), parameters are checked against `arg_constraints` when the
    distribution is made and values against `support` in `log_prob`.
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turns argument validation on or off for distributions made without `validate_args`."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Any = (), event_shape: Any = (), validate_args: bool | None = None) -> None:
        self._batch_shape = gg.Size(batch_shape)
        self._event_shape = gg.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()
        super().__init__()

    def _check_parameters(self) -> None:
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(
                f"{self.__class__} does not define `arg_constraints`. Please set `arg_constraints = {{}}` or "
                "initialize the distribution with `validate_args=False` to turn off validation.",
                stacklevel=3,
            )
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue  # skip constraints that cannot be checked
            if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                continue  # skip checking lazily-constructed args
            value = getattr(self, param)
            if not constraint.check(value).all():
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                    f"distribution {self!r} to satisfy the constraint {constraint!r}, but found invalid values:\n{value}"
                )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """A view of this distribution with a larger batch shape (parameters expanded, not copied)."""
        raise NotImplementedError

    @property
    def batch_shape(self) -> gg.Size:
        return self._batch_shape

    @property
    def event_shape(self) -> gg.Size:
        return self._event_shape

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        raise NotImplementedError

    @property
    def support(self) -> Any:
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Draws of shape sample_shape + batch_shape + event_shape, with no graph behind them."""
        with gg.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """Reparameterized draws: differentiable with respect to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning, stacklevel=2)
        return self.sample(gg.Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return gg.exp(self.entropy())

    def _extended_shape(self, sample_shape: Any = ()) -> gg.Size:
        """sample_shape + batch_shape + event_shape."""
        return gg.Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value: Any) -> None:
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = value.dim() - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.size()} vs {self._event_shape}."
            )
        actual, expected = value.size(), self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected), strict=False):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable sample validation. Please initialize the "
                "distribution with `validate_args=False` to turn off validation.",
                stacklevel=3,
            )
            return
        if not support.check(value).all():
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be within the "
                f"support ({support!r}) of the distribution {self!r}, but found invalid values:\n{value}"
            )

    def _expand_parameters(self, cls: type, batch_shape: Any, _instance: Any, names: tuple[str, ...]) -> Any:
        """The common part of `expand`: a new instance of `cls` whose named parameters (those this instance
        holds) are expanded to `batch_shape` plus their own trailing dimensions."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = gg.Size(batch_shape)
        for name in names:
            if name in self.__dict__:
                value = self.__dict__[name]
                setattr(new, name, value.expand(batch_shape + value.shape[len(self._batch_shape) :]))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom __init__ method must "
                "also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        shown = [f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}" for p in names]
        return f"{self.__class__.__name__}({', '.join(shown)})"
