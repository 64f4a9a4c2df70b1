"""torch.distributed._functional_collectives: the names libraries import at module level.

glassgrad's collectives finish before they return, so there is never a pending result to wait on.
"""

from .._missing import unimplemented
from ..tensor import Tensor


def wait_tensor(tensor: Tensor) -> Tensor:
    """The tensor itself: glassgrad's collectives are synchronous."""
    return tensor


all_to_all_single_autograd = unimplemented(__name__ + ".all_to_all_single_autograd")
