"""torch.set_num_threads / get_num_threads: the BLAS thread pool is the only one glassgrad has."""

from __future__ import annotations


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
