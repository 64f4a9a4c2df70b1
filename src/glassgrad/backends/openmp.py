"""torch.backends.openmp: glassgrad's threads are NumPy's BLAS threads, not an OpenMP runtime of its own.

is_available() is False, where PyTorch's CPU wheel (built with OpenMP) says True.
"""

from __future__ import annotations


def is_available() -> bool:
    return False
