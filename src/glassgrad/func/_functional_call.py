"""torch.func.functional_call and stack_module_state: a module called with other tensors in place of its
parameters and buffers, and the parameters of several modules stacked for ensembling with vmap.

The tensors are swapped into the module's registries for the call and swapped back afterwards, as
PyTorch's _reparametrize_module does, so the module's forward code runs unchanged on them (plain
tensors, slices made by vmap, or leaves made by grad).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from ..nn.modules.module import Module
from ..ops.shape import stack
from ..tensor import Tensor

_MISSING: Any = object()  # a name the module did not have before the swap


def _owner(module: Module, path: str) -> tuple[Module, str]:
    """The submodule holding the dotted `path`, and the attribute's name in it."""
    prefix, _, attr = path.rpartition(".")
    owner = module
    for part in prefix.split(".") if prefix else ():
        try:
            child = getattr(owner, part)
        except AttributeError as error:
            raise AttributeError(f"{owner._get_name()} has no attribute `{part}`") from error
        if not isinstance(child, Module):
            raise TypeError(f"submodule `{prefix}`: {child} is not an instance of torch.nn.Module")
        owner = child
    return owner, attr


def _swap(module: Module, path: str, value: Any) -> Any:
    """Put `value` at `path` (a parameter or buffer slot keeps its registry); return what was there."""
    if value is not _MISSING and value is not None and not isinstance(value, Tensor):
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    owner, name = _owner(module, path)
    for registry in (owner._parameters, owner._buffers):
        if name in registry:
            old = registry[name]
            if value is _MISSING:
                del registry[name]
            else:
                registry[name] = value
            return old
    old = getattr(owner, name, _MISSING)
    if old is not _MISSING and old is not None and not isinstance(old, Tensor):
        raise TypeError(f"attribute `{name}`: {old} is not an instance of torch.Tensor")
    if value is not _MISSING:
        setattr(owner, name, value)
    elif old is not _MISSING:
        delattr(owner, name)
    return old


def _untie(module: Module, given: dict[str, Tensor]) -> dict[str, Tensor]:
    """`given` extended to every name tied to a given one (one tensor registered under several names)."""
    names_of: dict[int, set[str]] = {}
    for name, tensor in [
        *module.named_parameters(remove_duplicate=False),
        *module.named_buffers(remove_duplicate=False),
    ]:
        names_of.setdefault(id(tensor), set()).add(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    result = dict(given)
    for name in [n for n in given if n in tied]:
        names = tied[name]
        if len(names & given.keys()) > 1 and len({id(given[n]) for n in names if n in given}) != 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(names)}, which are tied. Consider using "
                "tie_weights=False"
            )
        for other in names:
            result[other] = given[name]
    return result


@contextmanager
def _reparametrized(module: Module, tensors: dict[str, Tensor], tie_weights: bool, strict: bool) -> Iterator[None]:
    swapped_in = _untie(module, tensors) if tie_weights else tensors
    if strict:
        valid = {name for name, _ in module.named_parameters(remove_duplicate=False)}
        valid |= {name for name, _ in module.named_buffers(remove_duplicate=False)}
        messages = []
        if unexpected := sorted(swapped_in.keys() - valid):
            messages.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing := sorted(valid - swapped_in.keys()):
            messages.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if messages:
            raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(messages))
    originals: dict[str, Any] = {}
    try:
        for name, tensor in swapped_in.items():
            originals[name] = _swap(module, name, tensor)
        yield
    finally:
        # What the call left in each slot goes back into the caller's dict: a module that reassigns a buffer in
        # forward (rather than updating it in place) is seen there, as in PyTorch.
        for name, original in originals.items():
            now = _swap(module, name, original)
            if name in tensors:
                tensors[name] = now


def functional_call(
    module: Module,
    parameter_and_buffer_dicts: Mapping[str, Tensor] | Sequence[Mapping[str, Tensor]],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """module(*args, **kwargs) with the given tensors in place of the parameters and buffers of those names.

    Several dicts may be given (parameters, buffers) if no name is in two of them. tie_weights: a tensor
    registered under several names is replaced under all of them when one is given. strict: the names must be
    exactly the module's parameters and buffers. args that is not a tuple is the one positional argument.
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        tensors = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts: dict[str, int] = {}
        for d in parameter_and_buffer_dicts:
            for key in d:
                counts[key] = counts.get(key, 0) + 1
        repeated = [key for key, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        tensors = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
            f"{type(parameter_and_buffer_dicts)}"
        )
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrized(module, tensors, tie_weights, strict):
        return module(*args, **(kwargs or {}))


def _stacked_leaf(tensors: Sequence[Tensor], name: str) -> Tensor:
    requiring = [t.requires_grad for t in tensors]
    if any(requiring) and not all(requiring):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(list(tensors))
    # A new leaf, unrelated to the models' own parameters, so that an optimizer can own it.
    return result.detach().requires_grad_() if all(requiring) else result


def stack_module_state(models: Sequence[Module]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """(params, buffers) of models of one class, each name's tensors stacked along a new first dimension.

    The stacked parameters are new leaves (requiring grad where the models' did), ready for vmap over
    functional_call and for an optimizer.
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = [dict(m.named_parameters()) for m in models]
    buffers = [dict(m.named_buffers()) for m in models]
    return (
        {name: _stacked_leaf([p[name] for p in params], name) for name in params[0]},
        {name: _stacked_leaf([b[name] for b in buffers], name) for name in buffers[0]},
    )


__all__ = ["functional_call", "stack_module_state"]
