"""torch.random: the default generator's seeding and state, and fork_rng, which runs a block on a copy of it.

glassgrad's stream is its own (NumPy's PCG64, see ops/creation.py), so seeds give other numbers than
PyTorch's; what carries over is the behaviour: the same seed repeats the same numbers, and a block under
fork_rng leaves the stream (and the seed initial_seed answers) exactly where it found them.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterable, Iterator

from ._missing import module_getattr as _module_getattr
from .ops.creation import (
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
    thread_safe_generator,
)

__all__ = [
    "default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state",
    "thread_safe_generator",
]

_warned_about_many_devices = False


@contextlib.contextmanager
def fork_rng(
    devices: Iterable[int] | None = None,
    enabled: bool = True,
    _caller: str = "fork_rng",
    _devices_kw: str = "devices",
    device_type: str | None = None,
) -> Iterator[None]:
    """Run the block with the random state forked: on leaving, the CPU generator's state (and that of each
    device in `devices`, by default every device of `device_type`, none on a CPU-only build) is put back."""
    global _warned_about_many_devices
    if device_type == "meta":
        yield
        return
    from . import get_device_module

    device_module = get_device_module(device_type or "cuda")  # "cuda" when no accelerator, as in PyTorch
    if not enabled:
        yield
        return
    if devices is None:
        count = device_module.device_count()  # type: ignore[attr-defined]
        if count > 1 and not _warned_about_many_devices:
            warnings.warn(
                f"{device_type.upper()} reports that you have {count} available devices, and you have used {_caller} "
                f"without explicitly specifying which devices are being used. Pass {_devices_kw}=[...] to {_caller} "
                f"to fork the RNG of only the devices you use.",
                stacklevel=3,
            )
            _warned_about_many_devices = True
        devices = range(count)
    devices = list(devices)
    cpu_state = get_rng_state()
    device_states = [device_module.get_rng_state(device) for device in devices]  # type: ignore[attr-defined]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for device, state in zip(devices, device_states, strict=True):
            device_module.set_rng_state(state, device)  # type: ignore[attr-defined]


__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
