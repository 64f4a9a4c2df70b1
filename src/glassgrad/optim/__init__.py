"""glassgrad.optim, laid out like torch.optim (glassgrad.optim.adam.Adam, glassgrad.optim.lr_scheduler.StepLR, ...)."""

from .._missing import module_getattr as _module_getattr
from . import lr_scheduler
from ._adafactor import Adafactor
from ._stateless import swap_in_optimizer_params_and_state
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
