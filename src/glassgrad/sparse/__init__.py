"""torch.sparse: sparse COO tensors (coo.py) and what they compute (ops.py), the compressed layouts' matrices and
their conversions (compressed.py), as PyTorch 2.13 has them.

Importing it installs the dense tensor's sparse methods (Tensor.to_sparse, Tensor.sparse_mask); glassgrad
imports it at start-up, as torch imports torch.sparse. docs/sparse.md says what works and what raises.
"""

from __future__ import annotations

from .. import _layout
from .._missing import module_getattr as _module_getattr
from ..tensor import Tensor
from .compressed import CompressedTensor, to_layout
from .coo import SparseTensor, dense_sparse_mask, sparse_coo_tensor, to_sparse
from .ops import addmm, log_softmax, mm, smm, softmax
from .ops import sparse_sum as sum

spmm = mm  # torch.spmm: the older name of the same product

__all__ = ["CompressedTensor", "SparseTensor", "addmm", "log_softmax", "mm", "smm", "softmax", "sparse_coo_tensor", "spmm", "sum"]

Tensor.to_sparse = Tensor.to_sparse_coo = to_sparse
Tensor.sparse_mask = dense_sparse_mask
Tensor.to_sparse_csr, Tensor.to_sparse_csc = to_layout(_layout.sparse_csr, False), to_layout(_layout.sparse_csc, False)
Tensor.to_sparse_bsr, Tensor.to_sparse_bsc = to_layout(_layout.sparse_bsr, True), to_layout(_layout.sparse_bsc, True)

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
