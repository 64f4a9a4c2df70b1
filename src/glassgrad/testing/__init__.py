"""torch.testing: assert_close and make_tensor, as PyTorch 2.13 has them."""

from __future__ import annotations

from ._comparison import assert_allclose, assert_close
from ._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
