"""Embedding and EmbeddingBag at torch.nn.modules.sparse: lookup tables whose padding_idx row is zero and gets no
gradient; EmbeddingBag sums, averages or maxes the rows of each bag."""

from __future__ import annotations

from typing import Any

from ...autograd import grad_mode
from ...ops.creation import empty
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


def _wrapped_padding_idx(padding_idx: int | None, num_embeddings: int, layer: str) -> int | None:
    if padding_idx is not None:
        if not -num_embeddings <= padding_idx < num_embeddings:
            raise AssertionError(f"{'Padding_idx' if layer == 'Embedding' else 'padding_idx'} must be within num_embeddings")
        padding_idx %= num_embeddings
    return padding_idx


class _Table(Module):
    """The weight both layers share: N(0, 1) rows, the padding row zero, or a given `_weight` of the right shape."""

    num_embeddings: int
    embedding_dim: int
    padding_idx: int | None

    def _init_weight(self, weight: Tensor | None, freeze: bool, device: Any, dtype: Any) -> None:
        if weight is None:
            shape = (self.num_embeddings, self.embedding_dim)
            self.weight = Parameter(empty(shape, device=device, dtype=dtype), requires_grad=not freeze)
            self.reset_parameters()
        else:
            if list(weight.shape) != [self.num_embeddings, self.embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(weight, requires_grad=not freeze)

    def _describe(self, **shown: bool) -> str:
        """The table's size, then each option named (in PyTorch's order for the layer) when shown, as its repr."""
        options = [f"{name}={getattr(self, name)!r}" for name, show in shown.items() if show]
        return ", ".join([f"{self.num_embeddings}, {self.embedding_dim}", *options])

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with grad_mode.no_grad():
                self.weight[self.padding_idx].fill_(0)


def _rows_and_columns(embeddings: Tensor) -> tuple[int, int]:
    if embeddings.dim() != 2:
        raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
    rows, cols = embeddings.shape
    return rows, cols


class Embedding(_Table):
    def __init__(
        self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None, max_norm: float | None = None,
        norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False, _weight: Tensor | None = None,
        _freeze: bool = False, device: Any = None, dtype: Any = None,
    ) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _wrapped_padding_idx(padding_idx, num_embeddings, "Embedding")
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self._init_weight(_weight, _freeze, device, dtype)
        self.sparse = sparse

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(
            input, self.weight, self.padding_idx, self.max_norm, self.norm_type, self.scale_grad_by_freq, self.sparse
        )

    def extra_repr(self) -> str:
        return self._describe(
            padding_idx=self.padding_idx is not None, max_norm=self.max_norm is not None, norm_type=self.norm_type != 2,
            scale_grad_by_freq=self.scale_grad_by_freq is not False, sparse=self.sparse is not False,
        )

    @classmethod
    def from_pretrained(
        cls, embeddings: Tensor, freeze: bool = True, padding_idx: int | None = None, max_norm: float | None = None,
        norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False,
    ) -> Embedding:
        rows, cols = _rows_and_columns(embeddings)
        return cls(
            rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse, _weight=embeddings, _freeze=freeze
        )


class EmbeddingBag(_Table):
    """`sparse=True` is accepted, but the weight's gradient is dense (glassgrad's sparse gradients cover Embedding only)."""

    def __init__(
        self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None, norm_type: float = 2.0,
        scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False, _weight: Tensor | None = None,
        include_last_offset: bool = False, padding_idx: int | None = None, device: Any = None, dtype: Any = None,
    ) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = _wrapped_padding_idx(padding_idx, num_embeddings, "EmbeddingBag")
        self._init_weight(_weight, False, device, dtype)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def forward(self, input: Tensor, offsets: Tensor | None = None, per_sample_weights: Tensor | None = None) -> Tensor:
        return F.embedding_bag(
            input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq, self.mode, self.sparse,
            per_sample_weights, self.include_last_offset, self.padding_idx,
        )

    def extra_repr(self) -> str:
        return self._describe(
            max_norm=self.max_norm is not None, norm_type=self.norm_type != 2,
            scale_grad_by_freq=self.scale_grad_by_freq is not False, mode=True, padding_idx=self.padding_idx is not None,
        )

    @classmethod
    def from_pretrained(
        cls, embeddings: Tensor, freeze: bool = True, max_norm: float | None = None, norm_type: float = 2.0,
        scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False, include_last_offset: bool = False,
        padding_idx: int | None = None,
    ) -> EmbeddingBag:
        rows, cols = _rows_and_columns(embeddings)
        bag = cls(
            rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse, _weight=embeddings,
            include_last_offset=include_last_offset, padding_idx=padding_idx,
        )
        bag.weight.requires_grad = not freeze
        return bag
