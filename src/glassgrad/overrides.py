"""torch.overrides on an engine without __torch_function__ dispatch.

glassgrad's ops are Python functions over glassgrad tensors; they do not hand control to tensor subclasses
or to modes. Libraries subclass TorchFunctionMode at module level (Lightning's _EmptyInit), so the class is
here; entering such a mode raises, rather than silently letting ops run without it.
"""

from __future__ import annotations

from typing import Any

from ._missing import module_getattr as _module_getattr
from ._missing import no_mode_dispatch


class TorchFunctionMode:
    def __init__(self) -> None:
        pass

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        raise NotImplementedError

    def __enter__(self) -> TorchFunctionMode:
        raise no_mode_dispatch(__name__ + ".TorchFunctionMode")

    def __exit__(self, *exc_info: object) -> None:
        return None


def has_torch_function(relevant_args: Any) -> bool:
    """False: no glassgrad value overrides torch functions."""
    return False


def has_torch_function_unary(arg: Any) -> bool:
    return False


def has_torch_function_variadic(*args: Any) -> bool:
    return False


def is_tensor_like(inp: Any) -> bool:
    from .tensor import Tensor

    return isinstance(inp, Tensor)


__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
