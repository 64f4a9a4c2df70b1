"""torch.device, and what using a device glassgrad does not have raises.

PyTorch separates naming a device from using it: `torch.device("cuda:1")` is a
plain value on every build, while a CPU-only build fails only when a tensor is
placed there. Scripts rely on that (`device = torch.device("cuda" if
torch.cuda.is_available() else "cpu")` builds both), so glassgrad parses every
device PyTorch parses and raises PyTorch's CPU-only errors where a tensor would
land on anything but the CPU.
"""

from __future__ import annotations

import builtins
import re
import threading
import warnings
from types import TracebackType
from typing import Any, NoReturn

# c10's DeviceType names, in the order PyTorch's "Expected one of" message lists them.
TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla", "lazy",
    "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)
# The backend names PyTorch's dispatcher prints when a factory runs on a backend it was built without.
_BACKENDS = {
    "ipu": "IPU", "hip": "HIP", "ve": "VE", "fpga": "FPGA", "maia": "MAIA", "xla": "XLA", "lazy": "Lazy",
    "vulkan": "Vulkan", "mps": "MPS",
}
_NOT_COMPILED = {"cuda": "CUDA", "xpu": "XPU", "mtia": "MTIA"}  # these fail with an AssertionError, as in PyTorch
_SPEC = re.compile(r"([a-zA-Z_]+)(?::(0|[1-9][0-9]*))?")
_MAX_INDEX = 2**31 - 1  # c10 parses the index with std::stoi

ONLY_CPU = (
    "\n\nglassgrad: tensors live in NumPy arrays on the CPU, and there is no {name} device. Keep tensors and modules "
    "on 'cpu', or pick the device as portable scripts do: device = 'cuda' if torch.cuda.is_available() else 'cpu'."
)


class device:
    """A device name and optional index; constructing one never checks that the device exists."""

    __slots__ = ("index", "type")

    def __init__(self, type: str | bytes | int | device, index: int | None = None) -> None:
        if isinstance(type, device) and index is None:
            kind, parsed = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool) and index is None:
            # A bare index means the current accelerator, and a CPU-only build has none.
            raise RuntimeError("Device index must not be negative" if type < 0 else "Cannot access accelerator device when none is available.")
        elif isinstance(type, (str, bytes)):
            text = type.decode() if isinstance(type, bytes) else type
            kind, parsed = _parse(text)
            if index is not None:
                parsed = _explicit_index(text, parsed, index)
        else:
            raise TypeError(
                f"device() received an invalid combination of arguments - got ({_typename(type)}), but expected one of:\n"
                " * (torch.device device)\n * (str type, int index = -1)"
            )
        self.type = kind
        self.index = parsed

    def __eq__(self, other: object) -> bool:
        # Like PyTorch's, a device equals only a device: torch.device("cpu") == "cpu" is False.
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __repr__(self) -> str:
        return f"device(type='{self.type}')" if self.index is None else f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __reduce__(self) -> tuple[type[device], tuple[str, int | None]]:
        return device, (self.type, self.index)

    def __enter__(self) -> device:
        """`with torch.device(d):` makes d the device of factories (zeros, tensor, layers' parameters) in this thread."""
        _factory_devices().append(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        _factory_devices().pop()


_context = threading.local()


def _factory_devices() -> list[device]:
    if not hasattr(_context, "stack"):
        _context.stack = []
    return _context.stack


def factory_device(spec: Any) -> Any:
    """The device a factory places its tensor on: the one it was given, else the innermost `with device(...)`,
    else set_default_device's."""
    if spec is not None:
        return spec
    stack = _factory_devices()
    return stack[-1] if stack else getattr(_context, "default", None)


def set_default_device(device: Any) -> None:
    """Where factories put tensors from now on, in this thread (None: back to the CPU); as in PyTorch, naming a
    device glassgrad lacks is allowed, and creating a tensor there raises."""
    _context.default = None if device is None else as_device(device)


def get_default_device() -> device:
    current = factory_device(None)
    if current is None:
        return CPU
    # PyTorch finds the index of an index-less device by creating a tensor there, which fails on devices it lacks.
    return current if current.index is not None else place(current, creating=True)


def _typename(value: object) -> str:
    return builtins.type(value).__name__  # `type` is shadowed where PyTorch names the argument so


def _explicit_index(text: str, parsed: int | None, index: object) -> int:
    if not isinstance(index, int) or isinstance(index, bool):
        raise TypeError(f"device(): argument 'index' (position 2) must be int, not {_typename(index)}")
    if parsed is not None:
        raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {text}")
    if index < 0:
        raise RuntimeError("Device index must not be negative")
    return index


def _parse(text: str) -> tuple[str, int | None]:
    """c10's device-string grammar, with its error for each way a string can fail it."""
    if not text:
        raise RuntimeError("Device string must not be empty")
    match = _SPEC.fullmatch(text)
    if match is None:
        raise RuntimeError(f"Invalid device string: '{text}'")
    kind, digits = match.groups()
    if digits is not None and int(digits) > _MAX_INDEX:
        raise RuntimeError(f"Could not parse device index '{digits}' in device string '{text}'")
    if kind not in TYPES:
        raise RuntimeError(f"Expected one of {', '.join(TYPES)} device type at start of device string: {text}")
    return kind, None if digits is None else int(digits)


CPU = device("cpu")


def is_device_like(arg: object) -> bool:
    """Whether a positional argument of Tensor.to / Module.to names a device (rather than a dtype or tensor)."""
    return isinstance(arg, (device, str, bytes)) or (isinstance(arg, int) and not isinstance(arg, bool))


def as_device(spec: Any, argument: str = "device", op: str | None = None) -> device:
    """`spec` as a device: a device, a string, or an index, as PyTorch's argument parser takes them."""
    if is_device_like(spec):
        return device(spec)
    raise TypeError(f"{op + '(): ' if op else ''}argument '{argument}' must be torch.device, not {_typename(spec)}")


def place(spec: Any, *, creating: bool, op: str | None = None) -> device:
    """The device a tensor is created on or moved to: the CPU, or PyTorch's CPU-only error for any other.

    `creating`: a factory (zeros, tensor, ...) rather than a move (Tensor.to): PyTorch reports a backend it
    was built without differently for the two.
    """
    target = as_device(spec, op=op)
    if target.type != "cpu":
        refuse(target, creating=creating)
    return CPU


def refuse(target: device, *, creating: bool) -> NoReturn:
    if target.type in _NOT_COMPILED:
        raise AssertionError(f"Torch not compiled with {_NOT_COMPILED[target.type]} enabled" + _explained(target))
    if target.type == "meta":
        raise NotImplementedError(
            "glassgrad has no meta device: every glassgrad tensor holds its values in a NumPy array on the CPU. "
            "Create the tensor or module on 'cpu' instead."
        )
    if creating and target.type in _BACKENDS:
        raise NotImplementedError(
            f"Could not run 'aten::empty.memory_format' with arguments from the '{_BACKENDS[target.type]}' backend."
            + _explained(target)
        )
    raise RuntimeError(f"PyTorch is not linked with support for {target.type} devices" + _explained(target))


def place_linked(spec: Any) -> device:
    """The device of a call that reaches it through PyTorch's device guard (asarray, torch.Stream): the CPU,
    and 'not linked with support' for any other."""
    target = as_device(spec)
    if target.type != "cpu":
        raise RuntimeError(f"PyTorch is not linked with support for {target.type} devices" + _explained(target))
    return CPU


def require_device(kind: str, spec: Any) -> NoReturn:
    """Tensor.cuda/xpu/ipu/mtia(device): PyTorch's CPU-only build refuses every argument, each in its own words."""
    if spec is not None:
        if not is_device_like(spec):
            raise TypeError(f"{kind}(): argument 'device' (position 1) must be torch.device, not {_typename(spec)}")
        if device(spec).type != kind:
            raise RuntimeError(f"Invalid device, must be {'MTIA' if kind == 'mtia' else kind} device")
    refuse(device(kind), creating=False)


NONE_AVAILABLE = "Cannot access accelerator device when none is available."


def refuse_pinning(spec: Any) -> NoReturn:
    """Tensor.pin_memory(device): pinned memory belongs to an accelerator, and a CPU-only build has none."""
    if spec is not None:
        if not is_device_like(spec):
            raise TypeError(f"pin_memory(): argument 'device' (position 1) must be torch.device, not {_typename(spec)}")
        target = device(spec)
        for method in ("pin_memory", "is_pinned"):  # PyTorch's pin_memory asks is_pinned first, and both warn
            warnings.warn(
                f"The argument 'device' of Tensor.{method}() is deprecated. Please do not pass this argument.",
                DeprecationWarning, stacklevel=3,
            )
        if target.type == "cuda":
            raise RuntimeError(
                "Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two shared "
                "libraries: a CPU library and a CUDA library." + _explained(target)
            )
        if target.type == "mps":
            raise RuntimeError("Cannot execute init() without MPS backend." + _explained(target))
        raise RuntimeError(f"{target.type.upper()} device type not an accelerator." + _explained(target))
    raise RuntimeError(NONE_AVAILABLE + ONLY_CPU.format(name="accelerator"))


def check_map_location(spec: Any) -> None:
    """torch.load(map_location=...): restoring tensors onto a device glassgrad lacks fails with PyTorch's message."""
    target = as_device(spec, argument="map_location", op="load")
    if target.type == "cuda":
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are "
            "running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your "
            "storages to the CPU." + _explained(target)
        )
    if target.type != "cpu":
        raise RuntimeError(f"torch.UntypedStorage(): Storage device not recognized: {target.type}" + _explained(target))


def _explained(target: device) -> str:
    return ONLY_CPU.format(name=_NOT_COMPILED.get(target.type, _BACKENDS.get(target.type, target.type)))


# -- errors, streams and events that PyTorch has at torch.* ------------------------------------------------------------
class AcceleratorError(RuntimeError):
    """What `except torch.AcceleratorError:` catches (an accelerator's runtime failing); glassgrad never raises it."""


class OutOfMemoryError(RuntimeError):
    """What `except torch.OutOfMemoryError:` catches; glassgrad never raises it, as it allocates no device memory."""


# c10's DeviceType numbers of the devices a CPU-only build makes streams and events for.
_STREAM_DEVICE_TYPES = {"cpu": 0, "meta": 14}


def _stream_device(owner: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> device:
    """The `device` argument of torch.Stream and torch.Event: the CPU (index dropped) or meta, or PyTorch's refusal."""
    if len(args) > 1:
        raise TypeError(f"{owner}() takes from 0 to 1 positional arguments but {len(args)} were given")
    spec = args[0] if args else kwargs.get("device")
    if spec is None:
        return CPU
    if not is_device_like(spec):
        position = " (position 1)" if args else ""
        raise TypeError(f"{owner}(): argument 'device'{position} must be torch.device, not {_typename(spec)}")
    target = device(spec)
    return device("meta") if target.type == "meta" else place_linked(target)  # streams also exist on meta


def _no_events() -> NoReturn:
    raise RuntimeError("cpu backend doesn't support events.")


class Stream:
    """torch.Stream: on the CPU every op runs in order as it is called, so the one stream is always done."""

    def __init__(self, *args: Any, priority: int = 0, **kwargs: Any) -> None:
        self.device = _stream_device("Stream", args, kwargs)
        if not isinstance(priority, int):
            raise TypeError(f"Stream(): argument 'priority' must be int, not {_typename(priority)}")
        self.device_type = _STREAM_DEVICE_TYPES[self.device.type]
        self.device_index = -1
        self.stream_id = 0

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def is_capturing(self) -> bool:
        return False

    def wait_event(self, event: Event) -> None:
        return None

    def wait_stream(self, stream: Stream) -> NoReturn:
        _no_events()

    def record_event(self, event: Event | None = None) -> NoReturn:
        _no_events()

    @property
    def native_handle(self) -> NoReturn:
        raise RuntimeError("Backend doesn't support getting stream native handle.")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and (self.device, self.stream_id) == (other.device, other.stream_id)

    def __hash__(self) -> int:
        return hash((self.device, self.stream_id))

    def __repr__(self) -> str:
        return f"torch.Stream device_type={self.device.type}, device_index=-1, stream_id=0"

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        return None


class Event:
    """torch.Event: the CPU backend records no events, so an event is never pending and cannot be recorded."""

    def __init__(self, *args: Any, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False,
                 **kwargs: Any) -> None:
        self.device = _stream_device("Event", args, kwargs)
        self.enable_timing = bool(enable_timing)
        self.event_id = 0

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def wait(self, stream: Stream | None = None) -> None:
        return None

    def record(self, stream: Stream | None = None) -> NoReturn:
        _no_events()

    def elapsed_time(self, end_event: Event) -> NoReturn:
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        raise ValueError("Both events must be recorded before calculating elapsed time.")

    def ipc_handle(self) -> NoReturn:
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue if you need this!")

    @classmethod
    def from_ipc_handle(cls, device: Any, ipc_handle: bytes) -> NoReturn:
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue if you need this!")

    def __repr__(self) -> str:
        return (f"torch.Event device_type={self.device.type}, device_index=-1, event_flag={int(self.enable_timing)}, "
                "event_id=0")
