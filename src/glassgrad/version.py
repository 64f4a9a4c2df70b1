"""torch.version: what the build was made with. No CUDA, no ROCm."""

from __future__ import annotations

from . import __version__

__all__ = ["__version__", "cuda", "debug", "hip"]

cuda: str | None = None
hip: str | None = None
debug = False
