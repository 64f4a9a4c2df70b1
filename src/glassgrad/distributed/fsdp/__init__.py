"""torch.distributed.fsdp: the names libraries import at module level. glassgrad shards no parameters (its data
parallelism is DistributedDataParallel), so each one raises when made or called."""

from ..._missing import module_getattr as _module_getattr
from ..._missing import unimplemented

FullyShardedDataParallel = unimplemented(__name__ + ".FullyShardedDataParallel")
FSDPModule = unimplemented(__name__ + ".FSDPModule")
CPUOffloadPolicy = unimplemented(__name__ + ".CPUOffloadPolicy")
MixedPrecisionPolicy = unimplemented(__name__ + ".MixedPrecisionPolicy")
fully_shard = unimplemented(__name__ + ".fully_shard")

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
