"""torch.nn.utils.prune: not implemented yet. Lightning's ModelPruning callback module names these at import
time; pruning with any of them raises."""

from ..._missing import module_getattr as _module_getattr
from ..._missing import unimplemented

_NAMES = (
    "BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured", "RandomStructured",
    "LnStructured", "CustomFromMask", "identity", "random_unstructured", "l1_unstructured", "random_structured",
    "ln_structured", "global_unstructured", "custom_from_mask", "remove", "is_pruned",
)
globals().update({name: unimplemented(f"{__name__}.{name}") for name in _NAMES})

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
