"""swap_in_optimizer_params_and_state: step an optimizer on other parameters and state, then restore its own.

The swapped-in state is an `optimizer.state_dict()` (state keyed by packed parameter ids); the swapped-in
parameters replace the live ones group by group, in order. In-place updates of the swapped-in tensors
(a step's moment estimates, the parameters) land in what the caller passed; anything else the step
assigns is dropped on exit, as in PyTorch.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from ..tensor import Tensor
from .optimizer import Optimizer

_NAME = "swap_in_optimizer_params_and_state"


def _checked_state(state: Any) -> dict[Any, Any]:
    if not isinstance(state, dict):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping packed parameter ids to per-param "
            f"state dicts, got {type(state).__name__}."
        )
    if any(isinstance(k, Tensor) for k in state):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style state keyed by packed parameter ids.")
    if any(isinstance(k, int) and not isinstance(v, dict) for k, v in state.items()):
        raise RuntimeError(f"{_NAME} requires per-parameter optimizer state entries to be dictionaries.")
    return state


def _checked_groups(optimizer: Optimizer, groups: Any) -> list[dict[str, Any]]:
    if not isinstance(groups, list):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['param_groups'] to be a list of param-group dicts, got "
            f"{type(groups).__name__}."
        )
    if len(optimizer.param_groups) != len(groups):
        raise RuntimeError("swapin_optim_state has a different number of parameter groups than the live optimizer.")
    for index, (live, group) in enumerate(zip(optimizer.param_groups, groups, strict=True)):
        if not isinstance(group, dict):
            raise RuntimeError(f"{_NAME} requires each optimizer param group to be a dictionary.")
        ids = group.get("params")
        if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
            raise RuntimeError(
                f"{_NAME} requires optimizer.state_dict()-style param_groups[*]['params'] entries keyed by packed "
                "parameter ids."
            )
        if len(live["params"]) != len(ids):
            raise RuntimeError(
                f"swapin_optim_state param group {index} has a different number of params than the live optimizer "
                "param group."
            )
        swapin_only, live_only = [k for k in group if k not in live], [k for k in live if k not in group]
        if swapin_only or live_only:
            raise RuntimeError(
                f"{_NAME} requires optimizer.state_dict()-style param group keys to exactly match the live optimizer "
                f"group keys for group {index}. Keys only in swap-in: {swapin_only}. Keys only in live: {live_only}."
            )
    return groups


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer: Optimizer, swapin_parameters: dict[str, Tensor],
                                       swapin_optim_state: dict[str, Any]) -> Iterator[None]:
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(swapin_optim_state, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state = _checked_state(swapin_optim_state.get("state"))
    groups = _checked_groups(optimizer, swapin_optim_state.get("param_groups"))
    parameters = list(swapin_parameters.values())
    seen: set[int] = set()
    swapins: list[tuple[dict[str, Any], dict[str, Any], list[Tensor]]] = []  # (live group, swap-in group, its params)
    offset = 0
    for live, group in zip(optimizer.param_groups, groups, strict=True):
        seen.update(group["params"])
        if offset + len(group["params"]) > len(parameters):
            raise RuntimeError(f"{_NAME} requires the explicit parameter state to match optimizer.param_groups ordering.")
        swapins.append((live, group, parameters[offset : offset + len(group["params"])]))
        offset += len(group["params"])
    extra = [k for k in state if k not in seen]
    if extra:
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be keyed only by packed parameter ids from "
            f"param_groups[*]['params']; got extra keys {extra!r}."
        )

    live_state = optimizer.state
    snapshots = [dict(g) for g in optimizer.param_groups]  # shallow: the live `params` lists keep their identity
    try:
        swapped: defaultdict[Tensor, Any] = defaultdict(dict)
        for live, group, params in swapins:
            live.update({k: v for k, v in group.items() if k != "params"}, params=params)
            for param, packed in zip(params, group["params"], strict=True):
                swapped[param] = dict(state.get(packed, {}))  # a new dict: only in-place tensor edits reach the caller
        optimizer.state = swapped
        yield
    finally:
        for live, snapshot in zip(optimizer.param_groups, snapshots, strict=True):
            live.clear()
            live.update(snapshot)
        optimizer.state = live_state
