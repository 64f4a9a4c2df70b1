"""glassgrad.distributed.tensor, laid out like torch.distributed.tensor: the names libraries import, no DTensor.

glassgrad shards nothing: its data parallelism replicates whole tensors on every rank. Libraries (transformers)
import DTensor and the placements at module level and test `isinstance(t, DTensor)`, which is False for
every glassgrad tensor; making a DTensor or distributing a tensor raises.
"""

from ..._missing import module_getattr as _module_getattr
from ..._missing import unimplemented
from .placement_types import Partial, Placement, Replicate, Shard

DTensor = unimplemented(__name__ + ".DTensor")
distribute_tensor = unimplemented(__name__ + ".distribute_tensor")

__all__ = ["DTensor", "Partial", "Placement", "Replicate", "Shard", "distribute_tensor"]
__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
