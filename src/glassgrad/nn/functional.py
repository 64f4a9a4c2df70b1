"""glassgrad.nn.functional, laid out like torch.nn.functional; the ops live in glassgrad/ops/
(activations.py, losses.py, convolution.py, normalization.py)."""

from ..ops import NAMESPACES

globals().update(NAMESPACES["glassgrad.nn.functional"])
