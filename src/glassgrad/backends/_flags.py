"""A backend flag: a module-level bool that refuses anything but a bool, as PyTorch's C++ setters do."""

from __future__ import annotations

from typing import Any


class Flag:
    """A data descriptor on a module's class, so that `torch.backends.cudnn.deterministic = 1` is checked."""

    def __init__(self, default: bool, setter: str) -> None:
        self.value = default
        self.setter = setter  # the name PyTorch's error message gives its C++ setter

    def __get__(self, obj: Any, owner: type | None = None) -> bool:
        return self.value

    def __set__(self, obj: Any, value: Any) -> None:
        if not isinstance(value, bool):
            raise RuntimeError(f"{self.setter} expects a bool, but got {type(value).__name__}")
        self.value = value
