"""torch.optim.swa_utils: not implemented yet. Lightning's StochasticWeightAveraging callback module imports
SWALR at import time; averaging weights with any of these raises."""

from .._missing import module_getattr as _module_getattr
from .._missing import unimplemented

_NAMES = ("AveragedModel", "SWALR", "update_bn", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn")
globals().update({name: unimplemented(f"{__name__}.{name}") for name in _NAMES})

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
