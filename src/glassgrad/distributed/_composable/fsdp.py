"""torch.distributed._composable.fsdp: imported by transformers at module level."""

from ..fsdp import fully_shard

__all__ = ["fully_shard"]
