"""torch.distributed.device_mesh: imported by transformers at module level; glassgrad lays out no device mesh
(its data parallelism is one flat MPI world)."""

from .._missing import unimplemented

DeviceMesh = unimplemented(__name__ + ".DeviceMesh")
init_device_mesh = unimplemented(__name__ + ".init_device_mesh")
