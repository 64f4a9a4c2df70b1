"""torch._vmap_internals: PyTorch's first vmap, which its own tests still call as `_vmap`; here it is torch.func's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _vmap(func: Callable[..., Any], in_dims: Any = 0, out_dims: Any = 0, allow_none_pass_through: bool = False) -> Callable[..., Any]:
    from .func import vmap

    return vmap(func, in_dims, out_dims)
