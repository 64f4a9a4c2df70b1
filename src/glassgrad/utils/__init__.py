"""glassgrad.utils, laid out like torch.utils."""

from typing import Any

from .._missing import module_getattr as _module_getattr
from . import checkpoint, data, hooks, weak

# Submodules that, as in PyTorch, exist once imported (`import torch.utils.tensorboard`): heavier, or needing an
# optional package, so `import glassgrad` leaves them out
_IMPORTED_ON_REQUEST = ("benchmark", "model_zoo", "tensorboard")
_missing_name = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used


def __getattr__(name: str) -> Any:
    if name in _IMPORTED_ON_REQUEST:
        raise AttributeError(f"module 'glassgrad.utils' has no attribute '{name}' (import torch.utils.{name} first)")
    return _missing_name(name)
