"""DataParallel as PyTorch has it when no GPU is available: a wrapper that runs its module as it is.

PyTorch's DataParallel splits each batch over the GPUs it finds; finding none, it keeps no devices and
calls the wrapped module directly, with its parameters under `module.` in state_dict. Scripts written
for GPUs (`model = nn.DataParallel(model)`) therefore train unchanged on the CPU, and so here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..modules.module import Module


class DataParallel(Module):
    def __init__(self, module: Module, device_ids: Sequence[Any] | None = None, output_device: Any = None,
                 dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list[int] = []  # no accelerator: PyTorch records none, whatever was asked for

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)
