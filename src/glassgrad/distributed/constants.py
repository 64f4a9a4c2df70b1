"""torch.distributed.constants: the default timeout of a process group's collectives."""

from .distributed_c10d import DEFAULT_TIMEOUT as default_pg_timeout

default_pg_nccl_timeout = default_pg_timeout  # no NCCL here; the name is imported beside the other

__all__ = ["default_pg_nccl_timeout", "default_pg_timeout"]
