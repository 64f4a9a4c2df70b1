"""torch.backends: the switches PyTorch programs set for kernels glassgrad does not have (cuDNN, cuBLAS, MPS, oneDNN)."""

from . import cuda, cudnn, mkldnn, mps, openmp

__all__ = ["cuda", "cudnn", "mkldnn", "mps", "openmp"]
