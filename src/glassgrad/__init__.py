"""glassgrad: define-by-run autodiff on NumPy with PyTorch's API and semantics, and a graph you can see through.

`import glassgrad as torch` runs PyTorch programs unchanged, within the
surface implemented so far.

Floors, bottom up (docs/architecture.md; tests/test_layering.py checks them): tensor.py and
autograd's graph; the engine; ops/ and diagnostics/; then nn/, optim/ and the rest. Importing this
package installs the ops' tensor methods and registers the diagnostics with the core.
"""

from __future__ import annotations

import builtins as _builtins
import importlib as _importlib
import math as _math

# First of glassgrad's modules: under GLASSGRAD_PURE=1 it makes the compiled ones import from their .py sources.
from . import _native

# isort: split
from . import _dtype as _dtype_module
from . import _sites, autograd, diagnostics, fft, linalg, multiprocessing, nn, optim, serialization, special, utils
from ._device import AcceleratorError, Event, OutOfMemoryError, Stream, get_default_device, set_default_device
from ._dtype import (
    bool_ as bool,
)
from ._dtype import (
    can_cast,
    complex64,
    complex128,
    dtype,
    finfo,
    float16,
    float32,
    float64,
    get_default_dtype,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._format import set_printoptions
from ._layout import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    layout,
    memory_format,
    preserve_format,
    sparse_bsc,
    sparse_bsr,
    sparse_coo,
    sparse_csc,
    sparse_csr,
    strided,
)
from ._missing import module_getattr as _module_getattr
from ._settings import (
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    get_float32_matmul_precision,
    has_lapack,
    has_mkl,
    has_openmp,
    has_spectral,
    is_deterministic_algorithms_warn_only_enabled,
    is_warn_always_enabled,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    set_flush_denormal,
    set_warn_always,
    use_deterministic_algorithms,
)
from ._threads import (
    get_num_interop_threads,
    get_num_threads,
    init_num_threads,
    set_num_interop_threads,
    set_num_threads,
)
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .control_flow import cond
from .ops import FUNCTIONS as _FUNCTIONS
from .ops.creation import Generator, default_generator
from .serialization import load, load_safetensors, save, save_safetensors
from .sparse import smm, sparse_coo_tensor, spmm  # also installs Tensor.to_sparse
from .tensor import Size, Tensor, device, is_tensor

_device_type = device  # get_device_module's argument is named `device`

globals().update(_FUNCTIONS)  # glassgrad.exp, glassgrad.cat, ...: every op family's public functions

half, float, double = float16, float32, float64
long, int, short = int64, int32, int16
cfloat, cdouble = complex64, complex128
e, pi, inf, nan = _math.e, _math.pi, _math.inf, _math.nan
newaxis = None


def result_type(tensor1: object, tensor2: object) -> dtype:
    from ._dtype import result_type as _result_type

    return _result_type(tensor1, tensor2)


def is_floating_point(input: Tensor) -> _builtins.bool:
    return input.dtype.is_floating_point


def is_complex(input: Tensor) -> _builtins.bool:
    return input.is_complex()


def is_conj(input: Tensor) -> _builtins.bool:
    return input.is_conj()


def is_neg(input: Tensor) -> _builtins.bool:
    return input.is_neg()


def numel(input: Tensor) -> _builtins.int:
    return input.numel()


def detach(input: Tensor) -> Tensor:
    return input.detach()


def get_device_module(device: device | str | None = None) -> object:
    """The module of a device type (glassgrad.cuda for 'cuda'); with no device, the CPU's, as no accelerator exists."""
    if isinstance(device, str):
        device = _device_type(device)
    elif device is None:
        device = _device_type("cpu")
    elif not isinstance(device, _device_type):
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    if device.type not in ("cpu", "cuda", "mps", "mtia", "xpu"):  # the device modules glassgrad has (none with a device)
        raise RuntimeError(f"Device '{device.type}' does not have a corresponding module registered as 'torch.{device.type}'.")
    return __getattr__(device.type)


def _tensor_argument(function: str, input: object) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{function}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input


def is_nonzero(input: Tensor) -> _builtins.bool:
    return _tensor_argument("is_nonzero", input).is_nonzero()


def is_inference(input: Tensor) -> _builtins.bool:
    return _tensor_argument("is_inference", input).is_inference()


def typename(obj: object, /) -> str:
    """A tensor's legacy type name ('torch.FloatTensor'), else the qualified name of obj (or of its class)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module, qualname = getattr(obj, "__module__", "") or "", getattr(obj, "__qualname__", getattr(obj, "__name__", None))
    if qualname is None:
        module, qualname = type(obj).__module__ or "", type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


watch = diagnostics.watch  # `with glassgrad.watch():` turns the graph-lifetime watches on

__version__ = "0.1.0"


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext glassgrad`: the glass on for every cell of an IPython or Jupyter session (glassgrad/ipython.py)."""
    _importlib.import_module(f"{__name__}.ipython").load(ipython)


def unload_ipython_extension(ipython: object) -> None:
    _importlib.import_module(f"{__name__}.ipython").unload(ipython)

# Whether the compiled core runs (a build exists and GLASSGRAD_PURE is unset); where any of it does, compiled
# callers leave no frames for the creation-site walk to pass over.
_compiled, _sites.frames_elided = _native.compiled_imports()

# PyTorch's namespaces for devices, compilers and multi-process training, answering as its CPU-only build does;
# imported on first use, so that `import glassgrad` stays light. multiprocessing is imported above, as `import torch`
# does: from the start, tensors sent to other processes go as shared memory.
_LAZY_MODULES = (
    "_C", "_VF", "_dynamo", "_vmap_internals", "accelerator", "amp", "ao", "backends", "compiler", "cpu", "cuda", "distributed",
    "distributions", "export", "func", "fx", "hub", "jit", "library", "masked", "mps", "mtia", "nested",
    "onnx", "overrides", "package", "profiler", "quantization", "quasirandom", "random", "return_types", "signal", "storage",
    "types", "version", "xpu",
)
# Names imported from their module on first use: torch.autocast is torch.amp.autocast, ...
_LAZY_NAMES = {
    "autocast": "amp", "GradScaler": "amp", "is_autocast_enabled": "amp", "get_autocast_dtype": "amp", "vmap": "func", "UntypedStorage": "storage",
    "PyTorchFileReader": "serialization._file_reader", "_unique": "_VF", "_unique2": "_VF",
}
_JIT_NAMES = {"compile": "compile", "fork": "torch_fork", "wait": "torch_wait", "ScriptModule": "ScriptModule"}  # torch.compile is the eager runner's
_missing_name = _module_getattr(__name__)


def __getattr__(name: str) -> object:
    if name in _LAZY_MODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    if name in _dtype_module.LOW_PRECISION:  # bfloat16, float8_e4m3fn, ...: loads ml_dtypes on first use
        return _dtype_module.low_precision(name)
    if name in _LAZY_NAMES:
        return getattr(_importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}"), name)
    if name in _JIT_NAMES:
        return getattr(_importlib.import_module(f"{__name__}.jit"), _JIT_NAMES[name])
    if name.startswith("_foreach_"):
        return getattr(_importlib.import_module(f"{__name__}._foreach"), name)
    return _missing_name(name)  # a PyTorch name glassgrad lacks: say so, and where it was used
