"""torch.distributed.tensor._utils: imported by transformers at module level; runs only on a DTensor's mesh."""

from ..._missing import unimplemented

compute_local_shape_and_global_offset = unimplemented(__name__ + ".compute_local_shape_and_global_offset")
