"""torch.nn.attention.flex_attention: the names transformers imports at module level. glassgrad has no
flex attention (its attention is scaled_dot_product_attention); making or calling one of these raises."""

from ..._missing import module_getattr as _module_getattr
from ..._missing import unimplemented

_DEFAULT_SPARSE_BLOCK_SIZE = 128

BlockMask = unimplemented(__name__ + ".BlockMask")
AuxRequest = unimplemented(__name__ + ".AuxRequest")
create_block_mask = unimplemented(__name__ + ".create_block_mask")
flex_attention = unimplemented(__name__ + ".flex_attention")

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
