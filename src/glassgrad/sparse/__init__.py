"""torch.sparse: sparse COO tensors (coo.py) and what they compute (ops.py), as PyTorch 2.13 has them.

Importing it installs the dense tensor's sparse methods (Tensor.to_sparse, Tensor.sparse_mask); glassgrad
imports it at start-up, as torch imports torch.sparse. docs/sparse.md says what works and what raises.
"""

from __future__ import annotations

from .._missing import module_getattr as _module_getattr
from ..tensor import Tensor
from .coo import SparseTensor, dense_sparse_mask, sparse_coo_tensor, to_sparse
from .ops import addmm, log_softmax, mm, smm, softmax
from .ops import sparse_sum as sum

spmm = mm  # torch.spmm: the older name of the same product

__all__ = ["SparseTensor", "addmm", "log_softmax", "mm", "smm", "softmax", "sparse_coo_tensor", "spmm", "sum"]

Tensor.to_sparse = Tensor.to_sparse_coo = to_sparse
Tensor.sparse_mask = dense_sparse_mask

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
