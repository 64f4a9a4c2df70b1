"""torch.onnx: importable, so that a script importing it at the top runs; exporting is not supported.

PyTorch exports by tracing its own dispatcher (or torch.export) into an ONNX graph; glassgrad runs on
NumPy and has neither.
"""

from __future__ import annotations

from typing import Any


def export(model: Any, args: Any = (), f: Any = None, *pos: Any, **kwargs: Any) -> Any:
    raise NotImplementedError(
        "glassgrad cannot export to ONNX: it runs modules eagerly on NumPy and has no tracer that records an ONNX "
        "graph. Export from PyTorch instead: write the weights with glassgrad.save_safetensors(model.state_dict(), path), "
        "load them under PyTorch into the same model class (model.load_state_dict(safetensors.torch.load_file(path))) "
        "and call torch.onnx.export there."
    )


def is_in_onnx_export() -> bool:
    return False
