"""glassgrad.nn.functional, laid out like torch.nn.functional; the ops live in glassgrad/ops/
(activations.py, losses.py, convolution.py, normalization.py, attention.py). Composites that are no
op of their own, such as multi-head attention, live beside this module."""

from .._missing import module_getattr as _module_getattr
from ..ops import NAMESPACES
from ._multihead import _canonical_mask as _canonical_mask
from ._multihead import _mha_shape_check as _mha_shape_check
from ._multihead import _none_or_dtype as _none_or_dtype
from ._multihead import multi_head_attention_forward as multi_head_attention_forward

globals().update(NAMESPACES["glassgrad.nn.functional"])

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
