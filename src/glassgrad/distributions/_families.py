"""What several distributions share: parameters given as probabilities or logits, a view onto a
Categorical, a location-scale pair centred at `loc`. Mixins, so each public class keeps PyTorch's bases."""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import glassgrad as gg
from glassgrad.tensor import Tensor

from . import constraints
from .utils import _probs_or_logits, broadcast_all, lazy_property, logits_to_probs, probs_to_logits


class _BinaryProbs:
    """A success probability given as `probs` or as `logits` (the other computed on demand); `_param` is
    whichever was given."""

    _param: Tensor

    def _take_probs_or_logits(self, probs: Any, logits: Any, *others: Any) -> tuple[Any, list[Tensor]]:
        """Broadcasts `others` and the given parameter together, keeps the parameter; returns what was given
        (a number or a tensor) and the broadcast others."""
        _probs_or_logits(probs, logits)
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        *rest, param = broadcast_all(*others, given)
        setattr(self, name, param)
        self._param = param
        return given, rest

    def _batch_shape_of(self, given: Any) -> Any:
        return () if isinstance(given, numbers.Number) else self._param.size()

    def _expand_binary(self, cls: type, batch_shape: Any, _instance: Any, others: tuple[str, ...] = ()) -> Any:
        names = (*others, "probs", "logits")
        new = self._expand_parameters(cls, batch_shape, _instance, names)  # type: ignore[attr-defined]
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @property
    def param_shape(self) -> gg.Size:
        return self._param.size()

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)


class _CategoricalView:
    """A distribution built on a Categorical `_categorical`, whose parameters are that Categorical's."""

    _categorical: Any

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._categorical._new(*args, **kwargs)

    @property
    def param_shape(self) -> gg.Size:
        return self._categorical.param_shape

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits


class _CentredAtLoc:
    """Mean and mode are the location parameter."""

    loc: Tensor

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc


class _LocationScale(_CentredAtLoc):
    """Parameters `loc` and `scale`, broadcast together; scalars make a scalar distribution; on the real line,
    drawn by reparameterization."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True
    scale: Tensor

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        scalar = isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)
        super().__init__(() if scalar else self.loc.size(), validate_args=validate_args)  # type: ignore[call-arg]

    def expand(self, batch_shape: Any, _instance: Any = None) -> Any:
        # the public class that took this mixin (Normal, ...): a subclass of it with its own __init__ must expand itself
        family = next(c for c in type(self).__mro__ if _LocationScale in c.__bases__)
        return self._expand_parameters(family, batch_shape, _instance, ("loc", "scale"))  # type: ignore[attr-defined]


class _RelaxedView:
    """A relaxed distribution (a transformed base) whose temperature and parameters are its base's."""

    base_dist: Any

    @property
    def temperature(self) -> Any:
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs
