"""glassgrad.linalg, laid out like torch.linalg; the ops live in glassgrad/ops/linalg_decomp.py."""

from .ops import NAMESPACES
from .ops.linalg_decomp import LinAlgError as LinAlgError

globals().update(NAMESPACES["glassgrad.linalg"])
