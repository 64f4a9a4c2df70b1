"""torch.utils.flop_counter: Lightning's model summary makes a FlopCounterMode for every model it lists.

glassgrad's ops do not dispatch through modes, so nothing can be counted: a counter that is made and
read without being entered reports the zero FLOPs it saw, and entering one raises.
"""

from __future__ import annotations

from typing import Any

from .._missing import module_getattr as _module_getattr
from .._missing import no_mode_dispatch


class FlopCounterMode:
    def __init__(self, mods: Any = None, depth: int = 2, display: bool = True, custom_mapping: Any = None) -> None:
        self.depth, self.display = depth, display

    def get_total_flops(self) -> int:
        return 0

    def get_flop_counts(self) -> dict[str, dict[Any, int]]:
        return {}

    def __enter__(self) -> FlopCounterMode:
        raise no_mode_dispatch(__name__ + ".FlopCounterMode")

    def __exit__(self, *exc_info: object) -> None:
        return None


__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
