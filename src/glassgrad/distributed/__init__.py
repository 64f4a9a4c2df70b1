"""glassgrad.distributed, laid out like torch.distributed: data-parallel training on the CPU.

Start the ranks as for PyTorch (torch.multiprocessing.spawn with MASTER_ADDR/MASTER_PORT, torchrun's
environment variables, an init_method of tcp:// or file://) and they join over TCP sockets; or launch with
`mpirun -np N python train.py` (or `glassgrad run --nproc N train.py`) and they join over MPI. Then
`init_process_group("gloo")`; the collectives, `nn.parallel.DistributedDataParallel` and
`utils.data.DistributedSampler` follow PyTorch's API. mpi4py and MPICH (for MPI only) come from PyPI with
`pip install 'glassgrad[distributed]'`.
"""

import os as _os

from .._missing import module_getattr as _module_getattr
from .._missing import unimplemented
from .distributed_c10d import (
    GroupMember,
    ProcessGroup,
    ReduceOp,
    Work,
    all_gather,
    all_gather_into_tensor,
    all_gather_object,
    all_reduce,
    barrier,
    broadcast,
    broadcast_object_list,
    destroy_process_group,
    gather,
    gather_object,
    get_backend,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    irecv,
    is_available,
    is_gloo_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    isend,
    new_group,
    recv,
    reduce,
    reduce_scatter_tensor,
    scatter,
    scatter_object_list,
    send,
)
from .errors import DistBackendError, DistError, DistNetworkError, DistStoreError


def is_torchelastic_launched() -> bool:
    """Whether torchrun (torchelastic) started this process: it sets TORCHELASTIC_RUN_ID."""
    return _os.getenv("TORCHELASTIC_RUN_ID") is not None


# imported by transformers' expert parallelism at module level
all_to_all_single = unimplemented(__name__ + ".all_to_all_single")
get_process_group_ranks = unimplemented(__name__ + ".get_process_group_ranks")

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
