"""Wishart(df, covariance_matrix | precision_matrix | scale_tril): distributions over positive-definite
matrices, drawn by the Bartlett decomposition."""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import glassgrad as gg
from glassgrad.tensor import Tensor

from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import _precision_to_scale_tril
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x: Tensor, p: int) -> Tensor:
    """The multivariate digamma: sum of digamma(x - j/2) for j < p."""
    halves = gg.arange(p, dtype=x.dtype, device=x.device).div(2)
    return gg.digamma(x.unsqueeze(-1) - halves.expand(x.shape + (-1,))).sum(-1)


def _clamp_above_eps(x: Tensor) -> Tensor:
    return x.clamp(min=gg.finfo(x.dtype).eps)


class Wishart(ExponentialFamily):
    """The distribution of sum_i x_i x_i^T over df draws x_i ~ MultivariateNormal(0, covariance_matrix)
    (df may be any real number above dim - 1)."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, df: Any, covariance_matrix: Tensor | None = None, precision_matrix: Tensor | None = None,
                 scale_tril: Tensor | None = None, validate_args: bool | None = None) -> None:
        given = [(n, m) for n, m in (("covariance_matrix", covariance_matrix), ("precision_matrix", precision_matrix),
                                     ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name, param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = param.shape[:-2]
            self.df = gg.tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = gg.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if self.df.le(event_shape[-1] - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {event_shape[-1] - 1}.")
        setattr(self, name, param.expand(batch_shape + (-1, -1)))
        self._df_constraint = constraints.greater_than(event_shape[-1] - 1)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = gg.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(param)
        # Bartlett: the diagonal of the factor holds sqrt of Chi2(df - i) draws
        offsets = gg.arange(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype,
                            device=self._unbroadcasted_scale_tril.device)
        self._dist_chi2 = Chi2(df=self.df.unsqueeze(-1) - offsets.expand(batch_shape + (-1,)))

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:  # type: ignore[override]
        df = getattr(self, "_df_constraint", constraints.greater_than(0))
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": df,
        }

    def expand(self, batch_shape: Any, _instance: Any = None) -> Wishart:
        names = ("covariance_matrix", "scale_tril", "precision_matrix")
        new = self._expand_parameters(Wishart, batch_shape, _instance, names)
        batch_shape = gg.Size(batch_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        new.df = self.df.expand(batch_shape)
        new._df_constraint = self._df_constraint
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        new._dist_chi2 = self._dist_chi2.expand(batch_shape + self._event_shape[-1:])
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        lower = self._unbroadcasted_scale_tril
        return (lower @ lower.mT).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        identity = gg.eye(self._event_shape[-1], device=self.df.device, dtype=self.df.dtype)
        return gg.cholesky_solve(identity, self._unbroadcasted_scale_tril).expand(self._batch_shape + self._event_shape)

    @property
    def mean(self) -> Tensor:
        return self.df.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def mode(self) -> Tensor:
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return factor.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self) -> Tensor:
        V = self.covariance_matrix
        diagonal = V.diagonal(dim1=-2, dim2=-1)
        return self.df.view(self._batch_shape + (1, 1)) * (V.pow(2) + gg.einsum("...i,...j->...ij", diagonal, diagonal))

    def _bartlett_sampling(self, sample_shape: gg.Size) -> Tensor:
        p = self._event_shape[-1]
        noise = _clamp_above_eps(self._dist_chi2.rsample(sample_shape).sqrt()).diag_embed(dim1=-2, dim2=-1)
        i, j = gg.tril_indices(p, p, offset=-1)
        noise[..., i, j] = gg.randn(tuple(sample_shape) + tuple(self._batch_shape) + (p * (p - 1) // 2,),
                                    dtype=noise.dtype, device=noise.device)
        factor = self._unbroadcasted_scale_tril @ noise
        return factor @ factor.mT

    def rsample(self, sample_shape: Any = (), max_try_correction: int | None = None) -> Tensor:
        """Bartlett draws; in low precision a draw can come out singular, and those are drawn again (up to
        `max_try_correction` times, 3 when validating)."""
        sample_shape = gg.Size(sample_shape)
        tries = (3 if self._validate_args else 0) if max_try_correction is None else max_try_correction
        sample = self._bartlett_sampling(sample_shape)
        is_singular = ~self.support.check(sample)
        if self._batch_shape:
            is_singular = is_singular.amax(self._batch_dims)
        for _ in range(tries):
            if not is_singular.any():
                break
            fresh = self._bartlett_sampling(gg.Size((int(is_singular.sum()),)))
            sample[is_singular] = fresh
            is_singular = ~self.support.check(sample)
            if self._batch_shape:
                is_singular = is_singular.amax(self._batch_dims)
        if is_singular.any() and tries:
            warnings.warn("Singular samples occurred.", stacklevel=2)
        return sample

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        log_det_scale = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = gg.cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(dim1=-2, dim2=-1).sum(dim=-1)
        return (-nu * (p * _LOG_2 / 2 + log_det_scale) - gg.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * gg.linalg.slogdet(value).logabsdet - trace / 2)

    def entropy(self) -> Tensor:
        nu, p = self.df, self._event_shape[-1]
        log_det_scale = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _LOG_2 / 2 + log_det_scale) + gg.mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:  # type: ignore[override]
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-gg.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) + gg.mvlgamma(
            y + (p + 1) / 2, p=p
        )
