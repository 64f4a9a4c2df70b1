"""The explanations that follow PyTorch's first sentence in graph errors."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .sites import format_site

if TYPE_CHECKING:
    from ..autograd.graph import Node, SavedTensor


def _buffer(saved: SavedTensor) -> str:
    shape = "x".join(map(str, saved.shape)) or "scalar"
    return f"'{saved.name}' ({shape} {saved.dtype.name}, {saved.nbytes} bytes)"


def freed(node: Node, saved: SavedTensor | None) -> str:
    needs = f"its saved {_buffer(saved)}" if saved is not None else "the in-place op it recorded"
    lines = [
        "",
        "",
        f"glassgrad: {node.name()} needs {needs},",
        f"  recorded at {format_site(node._site)},",
    ]
    if node._freed_by is not None:
        lines.append(f"  which was freed by the backward call at {format_site(node._freed_by)}.")
    return "\n".join(lines)


def version(node: Node, saved: SavedTensor) -> str:
    return "\n".join(
        [
            "",
            "",
            f"glassgrad: {node.name()} saved {_buffer(saved)} at version {saved.saved_version},",
            f"  recorded at {format_site(node._site)}; an in-place op changed it since "
            f"(now version {saved.version_counter.value}).",
        ]
    )
