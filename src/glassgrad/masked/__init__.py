"""torch.masked: reductions and normalizations that take `mask=` (_ops.py), and the MaskedTensor prototype."""

from __future__ import annotations

from .._missing import module_getattr as _module_getattr
from ._ops import (
    amax,
    amin,
    argmax,
    argmin,
    cumprod,
    cumsum,
    log_softmax,
    logsumexp,
    mean,
    norm,
    normalize,
    prod,
    softmax,
    softmin,
    std,
    sum,
    var,
)
from .maskedtensor import MaskedTensor, as_masked_tensor, is_masked_tensor, masked_tensor

__all__ = [
    "MaskedTensor", "amax", "amin", "argmax", "argmin", "as_masked_tensor", "cumprod", "cumsum", "is_masked_tensor",
    "log_softmax", "logsumexp", "masked_tensor", "mean", "norm", "normalize", "prod", "softmax", "softmin", "std",
    "sum", "var",
]

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks (median, logaddexp): say so, and where
