"""torch.set_num_threads / get_num_threads: the BLAS thread pool is the only one glassgrad has.

PyTorch's inter-op pool (which runs independent ops in parallel) has no counterpart: glassgrad runs ops one after
another, so its size is only kept, with PyTorch's rule that it is set at most once.
"""

from __future__ import annotations

import os


def set_num_threads(n: int) -> None:
    """Limit NumPy's BLAS (matrix products, convolutions) to n threads for the rest of the program."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise RuntimeError("set_num_threads expects a positive integer")
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=n, user_api="blas")


def get_num_threads() -> int:
    from threadpoolctl import threadpool_info

    pools = [p["num_threads"] for p in threadpool_info() if p.get("user_api") == "blas"]
    return max(pools, default=1)


def init_num_threads() -> None:
    """PyTorch initialises its thread pools in each new thread here; NumPy's need nothing."""


_interop = {"threads": os.cpu_count() or 1, "set": False}


def set_num_interop_threads(n: int) -> None:
    if not isinstance(n, int) or isinstance(n, bool):
        raise RuntimeError(f"set_num_interop_threads expects an int, but got {type(n).__name__}")
    if n < 1:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _interop["set"]:
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or set_num_interop_threads "
            "called"
        )
    _interop.update(threads=n, set=True)


def get_num_interop_threads() -> int:
    return _interop["threads"]
