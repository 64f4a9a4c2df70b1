"""What the side-effect tests compare: every parameter and buffer of a model, bitwise."""

from __future__ import annotations

import hashlib

import torch


def state_digest(module: torch.nn.Module) -> str:
    """One line per parameter and buffer: its name and the SHA-256 of its bytes."""
    lines = []
    for name, tensor in module.state_dict().items():
        data = tensor.detach().reshape(-1).contiguous().view(torch.uint8).numpy().tobytes()
        lines.append(f"{name} {hashlib.sha256(data).hexdigest()[:16]}")
    return "\n".join(lines)
