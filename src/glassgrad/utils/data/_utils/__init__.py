"""Internal helpers of glassgrad.utils.data, at PyTorch's paths (torch.utils.data._utils.collate)."""

from . import collate, worker
