"""Loss modules at torch.nn.modules.loss: each is its constructor's signature over one nn.functional loss.

A loss's constructor options (all but the legacy size_average/reduce, which are folded into
`reduction` with PyTorch's warning) are passed to its functional by name, so the forward is
shared. Class weights are buffers, as in PyTorch, so they appear in state_dict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from ...ops.losses import _reduction
from ...tensor import Tensor
from .. import functional as F
from .activation import constructor_options
from .distance import PairwiseDistance
from .module import Module


class _Loss(Module):
    _function: ClassVar[Callable[..., Tensor]]
    _options: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._options = constructor_options(cls, skip=("size_average", "reduce"))

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__()
        # PyTorch validates `reduction` only when the functional runs, except for the legacy flags.
        self.reduction = _reduction(reduction, size_average, reduce) if size_average is not None or reduce is not None else reduction

    def forward(self, *inputs: Tensor, **kwargs: Any) -> Tensor:
        return type(self)._function(*inputs, **kwargs, **{name: getattr(self, name) for name in self._options})


class _WeightedLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    _function = F.l1_loss


class MSELoss(_Loss):
    _function = F.mse_loss


class SmoothL1Loss(_Loss):
    _function = F.smooth_l1_loss

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta


class HuberLoss(_Loss):
    _function = F.huber_loss

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta


class KLDivLoss(_Loss):
    _function = F.kl_div

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target


class NLLLoss(_WeightedLoss):
    _function = F.nll_loss

    def __init__(
        self, weight: Tensor | None = None, size_average: bool | None = None, ignore_index: int = -100,
        reduce: bool | None = None, reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index


class CrossEntropyLoss(_WeightedLoss):
    _function = F.cross_entropy

    def __init__(
        self, weight: Tensor | None = None, size_average: bool | None = None, ignore_index: int = -100,
        reduce: bool | None = None, reduction: str = "mean", label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing


class BCELoss(_WeightedLoss):
    _function = F.binary_cross_entropy


class BCEWithLogitsLoss(_Loss):
    _function = F.binary_cross_entropy_with_logits

    def __init__(
        self, weight: Tensor | None = None, size_average: bool | None = None, reduce: bool | None = None,
        reduction: str = "mean", pos_weight: Tensor | None = None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)


class _MarginLoss(_Loss):
    """Losses whose one option, `margin`, comes first (PyTorch's positional order)."""

    def __init__(self, margin: float = 0.0, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin


class MarginRankingLoss(_MarginLoss):
    _function = F.margin_ranking_loss


class CosineEmbeddingLoss(_MarginLoss):
    _function = F.cosine_embedding_loss


class HingeEmbeddingLoss(_MarginLoss):
    _function = F.hinge_embedding_loss

    def __init__(self, margin: float = 1.0, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(margin, size_average, reduce, reduction)


class TripletMarginLoss(_Loss):
    _function = F.triplet_margin_loss

    def __init__(
        self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
        size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap


class PoissonNLLLoss(_Loss):
    _function = F.poisson_nll_loss

    def __init__(
        self, log_input: bool = True, full: bool = False, size_average: bool | None = None, eps: float = 1e-8,
        reduce: bool | None = None, reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps


class GaussianNLLLoss(_Loss):
    _function = F.gaussian_nll_loss

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)
        self.full = full
        self.eps = eps


class SoftMarginLoss(_Loss):
    _function = F.soft_margin_loss


class MultiMarginLoss(_WeightedLoss):
    _function = F.multi_margin_loss

    def __init__(
        self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None, size_average: bool | None = None,
        reduce: bool | None = None, reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D instead")
        self.p = p
        self.margin = margin


class MultiLabelMarginLoss(_Loss):
    _function = F.multilabel_margin_loss


class MultiLabelSoftMarginLoss(_WeightedLoss):
    _function = F.multilabel_soft_margin_loss


class TripletMarginWithDistanceLoss(_Loss):
    _function = F.triplet_margin_with_distance_loss

    def __init__(
        self, *, distance_function: Callable[[Tensor, Tensor], Tensor] | None = None, margin: float = 1.0,
        swap: bool = False, reduction: str = "mean",
    ) -> None:
        super().__init__(reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead")
        self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
        self.margin = margin
        self.swap = swap


class CTCLoss(_Loss):
    _function = F.ctc_loss

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity
