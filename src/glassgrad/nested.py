"""torch.nested: nested (jagged) tensors, a layout of ragged batches with kernels of its own. glassgrad's one layout
is NumPy's strided array: importing works, and every name raises, saying glassgrad does not provide it."""

from __future__ import annotations

from ._missing import unprovided_module as _unprovided_module

__getattr__ = _unprovided_module(__name__, "glassgrad's tensors are dense NumPy arrays, with no nested (jagged) layout")
