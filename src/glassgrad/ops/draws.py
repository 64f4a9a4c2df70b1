"""Sampling functions that make a new tensor: torch.normal, torch.bernoulli, torch.poisson, torch.multinomial,
torch.binomial, and the gamma and Dirichlet draws torch.distributions is built on (torch._standard_gamma,
torch._sample_dirichlet, with their implicit reparameterization gradients torch._standard_gamma_grad and
torch._dirichlet_grad).

The numbers come from glassgrad's generator (so the stream differs from PyTorch's); what matches
PyTorch is everything else: the overloads, shapes, dtypes and errors, and the graph. As in
PyTorch's derivatives.yaml, a sample is no reparameterisation: normal's and bernoulli's nodes give
zero gradients to their tensor arguments (so does poisson's; bernoulli with a float p records a node that refuses to
differentiate), and multinomial's integer indices end the graph.

The in-place fills (normal_, bernoulli_, ...) are another family's; these are the out-of-place ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from .creation import Generator, _finish, _float_or, _rng, _size
from .elementwise import _not_implemented, _zero, broadcast_shape
from .table import derivative

NormalBackward1 = derivative("NormalBackward1", ("mean",), mean=_zero)  # normal(Tensor mean, float std)
NormalBackward2 = derivative("NormalBackward2", ("std",), std=_zero)  # normal(float mean, Tensor std)
NormalBackward3 = derivative("NormalBackward3", ("mean", "std"), mean=_zero, std=_zero)
BernoulliBackward0 = derivative("BernoulliBackward0", ("self",), self=_zero)
BernoulliFloatBackward = derivative("NotImplemented", ("self",), self=_not_implemented("bernoulli"))
PoissonBackward0 = derivative("PoissonBackward0", ("self",), self=_zero)
SampleDirichletBackward = derivative("NotImplemented", ("self",), self=_not_implemented("_sample_dirichlet"))


def _refused(op: str) -> Any:
    """derivatives.yaml's not_implemented(op): backward through the node raises PyTorch's NotImplementedError."""

    def formula(grad: Tensor) -> Tensor:
        raise NotImplementedError(f"the derivative for '{op}' is not implemented.")

    return formula


# The implicit gradients are themselves not differentiable in PyTorch: a second derivative through a gamma or
# Dirichlet draw stops at them with its error rather than silently dropping their terms.
StandardGammaGradBackward = derivative(
    "NotImplemented", ("self", "output"), self=_refused("_standard_gamma_grad"), output=_refused("_standard_gamma_grad")
)
DirichletGradBackward = derivative(
    "NotImplemented", ("x", "alpha", "total"), x=_refused("_dirichlet_grad"), alpha=_refused("_dirichlet_grad"),
    total=_refused("_dirichlet_grad"),
)
BinomialBackward = derivative(
    "NotImplemented", ("count", "prob"), count=_not_implemented("binomial"), prob=_not_implemented("binomial")
)
# A gamma draw x = F^-1(u; alpha) moves with alpha at fixed u: dx/dalpha = -(dF/dalpha) / (dF/dx)
# (implicit reparameterization, Figurnov et al. 2018), as PyTorch's _standard_gamma backward.
StandardGammaBackward0 = derivative(
    "StandardGammaBackward0", ("self",), self=lambda grad, self, result: grad * _standard_gamma_grad(self, result)
)


def _floating(t: Tensor, kernel: str) -> None:
    if not t.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{t.dtype.scalar_name}\'')


def normal(mean: Any = 0.0, std: Any = 1.0, size: Sequence[int] | None = None, *, generator: Generator | None = None, out: Any = None, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """normal(Tensor mean, float std=1) | normal(float mean, Tensor std) | normal(Tensor mean, Tensor std) |
    normal(float mean, float std, size)."""
    rng = _rng(generator)
    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_t and not std_t:
        if size is None:
            raise TypeError(
                f"normal() received an invalid combination of arguments - got ({type(mean).__name__}, "
                f"{type(std).__name__}), but expected one of:\n * (Tensor mean, Tensor std, *, torch.Generator generator, "
                "Tensor out = None)\n * (Tensor mean, float std = 1, *, torch.Generator generator, Tensor out = None)\n"
                " * (float mean, Tensor std, *, torch.Generator generator, Tensor out = None)\n"
                " * (float mean, float std, tuple of ints size, *, torch.Generator generator, Tensor out = None, ...)"
            )
        _check_std(float(std))
        shape = _size((size,))
        sample = rng.standard_normal(shape) * float(std) + float(mean)
        return _finish(sample.astype(_float_or(dtype)), requires_grad, device)
    for t in (mean, std):
        if isinstance(t, Tensor):
            _floating(t, "normal_kernel_cpu")
    if std_t:
        if (std._data < 0).any():
            raise RuntimeError("normal expects all elements of std >= 0.0")
    else:
        _check_std(float(std))
    m = mean._data if mean_t else np.asarray(float(mean))
    s = std._data if std_t else np.asarray(float(std))
    shape = broadcast_shape(m.shape, s.shape)
    result_dtype = (mean if mean_t else std)._data.dtype
    sample = (rng.standard_normal(shape) * s + m).astype(result_dtype)
    if mean_t and std_t:
        return NormalBackward3.record(sample, (mean, std))
    return NormalBackward1.record(sample, (mean,)) if mean_t else NormalBackward2.record(sample, (std,))


def _check_std(std: float) -> None:
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def bernoulli(input: Tensor, p: float | None = None, *, generator: Generator | None = None, out: Any = None) -> Tensor:
    """Ones with probability `input` (elementwise), or `p` for every element, in input's shape and dtype."""
    rng = _rng(generator)
    if p is None:
        _floating(input, "bernoulli_tensor_cpu_p_")
        probs = input._data
        if ((probs < 0) | (probs > 1)).any() or np.isnan(probs).any():
            raise RuntimeError(
                "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  "
                "If so, please report an enhancement request to PyTorch.)"
            )
        sample = (rng.random(input.shape) < probs).astype(input._data.dtype)
        return BernoulliBackward0.record(sample, (input,))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    sample = (rng.random(input.shape) < p).astype(input._data.dtype)
    return BernoulliFloatBackward.record(sample, (input,))


_MAX_POISSON_RATE = np.float64(np.iinfo(np.int64).max - 1e10)  # NumPy's sampler refuses larger rates (lam value too large)


def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Counts drawn from Poisson distributions of rates `input` (elementwise), in input's dtype."""
    _floating(input, "poisson_cpu")
    rates = input._data
    if not (rates >= 0).all():  # nan fails too
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    if (rates > _MAX_POISSON_RATE).any():
        raise RuntimeError(
            f"glassgrad cannot draw Poisson counts for rates above {_MAX_POISSON_RATE:.3g} (NumPy's sampler's limit; "
            "PyTorch's counts overflow there)"
        )
    sample = np.asarray(_rng(generator).poisson(rates), dtype=rates.dtype)
    return PoissonBackward0.record(sample, (input,))


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator: Generator | None = None, out: Any = None) -> Tensor:
    """Category indices drawn from each row of (unnormalised) probabilities; without replacement, PyTorch's
    exponential-race: the categories with the largest p / Exp(1) keys, so zero-probability ones come last."""
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype.scalar_name}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = input.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    probs = np.atleast_2d(input._data).astype(np.float64)
    if not np.isfinite(probs).all() or (probs < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    totals = probs.sum(axis=1, keepdims=True)
    if (totals <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _rng(generator)
    if replacement:
        cumulative = np.cumsum(probs / totals, axis=1)
        draws = rng.random((probs.shape[0], num_samples))
        picks = np.stack([np.searchsorted(row, d, side="right") for row, d in zip(cumulative, draws, strict=True)])
        picks = np.minimum(picks, categories - 1)
    else:
        keys = probs / rng.exponential(size=probs.shape)
        picks = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    picks = picks.astype(np.int64)
    return _finish(picks[0] if input.ndim == 1 else picks, False, None)


def _standard_gamma(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Draws from Gamma(input, 1) elementwise; differentiable in input by implicit reparameterization. As
    PyTorch's, a draw is at least the dtype's smallest normal number (so its log stays finite)."""
    _floating(input, "gamma_cpu")
    alpha = input._data.astype(np.float64)
    sample = np.exp(_log_standard_gamma(_rng(generator), alpha))
    sample = np.maximum(sample, _dtype.machine_limits(input._data.dtype).tiny).astype(input._data.dtype)
    return StandardGammaBackward0.record(sample, (input,))


def _log_standard_gamma(rng: np.random.Generator, alpha: np.ndarray) -> np.ndarray:
    """log of Gamma(alpha, 1) draws, exact even where the draw itself underflows: for alpha < 1,
    G(alpha) = G(alpha + 1) * U^(1/alpha) (Marsaglia and Tsang), taken in logs. Non-positive alphas give -inf."""
    valid = alpha > 0
    boosted = np.where(valid & (alpha < 1), alpha + 1, np.where(valid, alpha, 1.0))
    with np.errstate(divide="ignore"):
        log_draw = np.log(rng.standard_gamma(boosted))
        small = valid & (alpha < 1)
        log_draw = np.where(small, log_draw + np.log(rng.random(alpha.shape)) / np.where(small, alpha, 1.0), log_draw)
    return np.where(valid, log_draw, -np.inf)


def _central_difference(f: Any, a: np.ndarray) -> np.ndarray:
    """df/da by a central difference with a relative step (f is smooth in a; float64 keeps ~8 digits)."""
    step = 1e-5 * np.maximum(a, 1e-3)
    return (f(a + step) - f(a - step)) / (2 * step)


def _standard_gamma_grad(input: Tensor, output: Tensor) -> Tensor:
    """d output / d input for output ~ Gamma(input, 1) at a fixed quantile: -(dP/dalpha) / density,
    P the regularized lower incomplete gamma function."""
    from scipy import special

    alpha, x = np.broadcast_arrays(input._data.astype(np.float64), output._data.astype(np.float64))
    x = np.maximum(x, np.finfo(np.float64).tiny)
    d_cdf = _central_difference(lambda a: special.gammainc(a, x), alpha)
    log_density = (alpha - 1) * np.log(x) - x - special.gammaln(alpha)
    with np.errstate(over="ignore", invalid="ignore"):
        grad = -d_cdf * np.exp(-log_density)
    return StandardGammaGradBackward.record(grad.astype(input._data.dtype), (input, output))


def _sample_dirichlet(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Draws from Dirichlet(input) over the last dimension: gammas normalized to sum to one, in logs so that
    tiny concentrations (whose gammas underflow) still give a proper point of the simplex. Each coordinate is
    kept within [tiny, 1 - eps] of its dtype, as PyTorch keeps it, so logs of a draw stay finite."""
    _floating(input, "dirichlet")
    log_gammas = _log_standard_gamma(_rng(generator), input._data.astype(np.float64))
    log_total = np.logaddexp.reduce(log_gammas, axis=-1, keepdims=True)
    finfo = _dtype.machine_limits(input._data.dtype)
    sample = np.clip(np.exp(log_gammas - log_total), finfo.tiny, 1 - finfo.eps).astype(input._data.dtype)
    return SampleDirichletBackward.record(sample, (input,))


def _dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """Implicit reparameterization gradient of a Dirichlet draw through its Beta marginals: for each
    coordinate, -(dI_x(a, b)/da) / beta_density(x; a, b) with b = total - a held fixed, divided by (1 - x)
    (the other coordinates shrink in proportion; torch.distributions' Dirichlet backward applies that part)."""
    from scipy import special

    xs, a, t = np.broadcast_arrays(*(v._data.astype(np.float64) for v in (x, alpha, total)))
    b = t - a
    tiny = np.finfo(np.float64).tiny
    xs = np.clip(xs, tiny, 1 - np.finfo(np.float64).eps)
    d_cdf = _central_difference(lambda s: special.betainc(s, b, xs), a)
    log_density = (a - 1) * np.log(xs) + (b - 1) * np.log1p(-xs) - special.betaln(a, b)
    with np.errstate(over="ignore", invalid="ignore"):
        grad = -d_cdf * np.exp(-log_density) / (1 - xs)
    return DirichletGradBackward.record(grad.astype(x._data.dtype), (x, alpha, total))


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """Successes in `count` trials of probability `prob` (elementwise, broadcast), in prob's dtype."""
    for name, t in (("count", count), ("prob", prob)):
        if not t.dtype.is_floating_point:
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: {t.dtype.scalar_name}")
    counts, probs = np.broadcast_arrays(count._data, prob._data)
    # PyTorch draws none or all of the trials for probabilities outside [0, 1]
    probs = np.clip(np.nan_to_num(probs.astype(np.float64)), 0, 1)
    sample = np.asarray(_rng(generator).binomial(counts.astype(np.int64), probs), dtype=prob._data.dtype)
    return BinomialBackward.record(sample, (count, prob))


# -- what this module exports (collected by ops/__init__.py) --------------------------------
FUNCTIONS = {
    "normal": normal, "bernoulli": bernoulli, "poisson": poisson, "multinomial": multinomial, "binomial": binomial,
    "_standard_gamma": _standard_gamma, "_standard_gamma_grad": _standard_gamma_grad,
    "_sample_dirichlet": _sample_dirichlet, "_dirichlet_grad": _dirichlet_grad,
}
METHODS = {"bernoulli": bernoulli, "multinomial": multinomial}  # bernoulli_ and normal_ are the in-place fills'
INPLACE = ()
