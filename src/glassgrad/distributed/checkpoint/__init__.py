"""torch.distributed.checkpoint: only the submodules libraries import at module level; glassgrad saves
sharded checkpoints with none of it (torch.save and safetensors work)."""

from ..._missing import module_getattr as _module_getattr

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
