"""glassgrad.nn.parallel, laid out like torch.nn.parallel: DistributedDataParallel (over TCP or MPI), and
DataParallel as a CPU-only PyTorch has it."""

from ..._missing import module_getattr as _module_getattr
from .data_parallel import DataParallel
from .distributed import DistributedDataParallel

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
