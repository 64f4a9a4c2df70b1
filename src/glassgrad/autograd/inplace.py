"""In-place ops: PyTorch's checks, version bumps, and history rebasing.

An in-place op is computed out of place, recorded as a node whose input is the
tensor's old value, and written back into the tensor's storage. The tensor's
history then moves onto that node; when the tensor is a view, its base's
history moves onto a CopySlices node instead, so gradients of the base see
the change.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Container
from typing import Any

import numpy as np

from .. import _sites as sites
from ..tensor import Tensor
from . import forward_ad, grad_mode, seams
from .graph import Node, NodeBase, SavedTensor, edge_to, explain_freed

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_MESSAGE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
# A view made in no_grad or inference mode, or a view of one, being written in place in normal grad mode
_MODE_VIEW = {"no_grad": "created in no_grad mode and is being modified inplace with grad mode enabled",
              "inference": "created in inference mode and is being modified inplace in normal mode"}


def _mode_view_message(made_in: str, what: str) -> str:
    return (
        f"{what} {_MODE_VIEW[made_in]}. Given that this use case is ambiguous and error-prone, it is forbidden. You "
        f"can clarify your code by moving both the view and the inplace either both inside the "
        f"{'no_grad' if made_in == 'no_grad' else 'inference_mode'} block (if you don't want the inplace to be tracked) "
        "or both outside (if you want the inplace to be tracked)."
    )

OVERLAP_MESSAGE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
    "Please clone() the tensor before performing the operation."
)


def _creation_meta(chain: tuple[Any, ...]) -> tuple[str | None, int | None]:
    """How PyTorch's creation meta of a view comes out of its chain (the marks ops/shape.py and custom Functions leave
    there): None, a grad mode ("no_grad", "inference"), "multi-output" or "custom_function"; and which output of its op the view is, where its last
    step is one of several views one op returned. A later view keeps an earlier meta unless it has one of its own,
    and inference mode's is never replaced."""
    meta: str | None = None
    output_nr = None
    for replay, args in chain:
        if getattr(replay, "made_in", None) is not None:  # where the step before it was taken: already counted
            continue
        output_nr = None
        new = getattr(replay, "after_view_made_in", None)
        if getattr(replay, "one_of_many", False):
            new, output_nr = "multi-output", args[-1]
        if new is not None and meta != "inference":
            meta = new
    if meta is None and chain and getattr(chain[-1][0], "made_in", None):
        meta = "inference"
    return meta, output_nr


# What PyTorch adds after saying which view is written, for views whose creation forbids writing them in place
_FORBIDDEN_WHY = {
    "multi-output": (
        " This view is the output of a function that returns multiple views. Such functions do not allow the output "
        "views to be modified inplace. You should replace the inplace operation by an out-of-place one."
    ),
    "custom_function": (
        " This view was created inside a custom Function (or because an input was returned as-is) and the autograd "
        "logic to handle view+inplace would override the custom backward associated with the custom Function, "
        "leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the "
        "custom Function."
    ),
}


def _made_in_custom_function(view: Tensor) -> Tensor:
    """The mark a custom Function leaves at the end of the view chain of a view it returned (replayed as nothing)."""
    return view


_made_in_custom_function.after_view_made_in = "custom_function"  # type: ignore[attr-defined]


def mark_custom_function_view(view: Tensor) -> None:
    view._view_chain = (*view._view_chain, (_made_in_custom_function, ()))


def _forbidden_view(t: Tensor) -> str | None:
    """PyTorch's error for writing in place, with grad mode on, into a view it forbids that for, or None: a view made
    in no_grad or inference mode, a view of one, one of several views one op returned (unbind, split, chunk) or a
    view of that, or a view a custom Function returned."""
    chain = t._view_chain
    meta, output_nr = _creation_meta(chain)
    if t.grad_fn is None:
        if not t._requires_grad:  # of a base that needs no grad: only its creation can forbid the write
            if meta not in _FORBIDDEN_WHY:
                return None
            return "A view was created in no_grad mode and is being modified inplace with grad mode enabled." + _FORBIDDEN_WHY[meta]
        made_in = "inference" if any(getattr(fn, "made_in", None) for fn, _ in chain) else "no_grad"
        return _mode_view_message(made_in, "A view was")
    if meta is None:
        return None
    name = re.sub(r"Backward\d*$", "", t.grad_fn.name())
    output = f"Output {t._output_nr if output_nr is None else output_nr} of {name}"
    if meta in _FORBIDDEN_WHY:
        return f"{output} is a view and is being modified inplace." + _FORBIDDEN_WHY[meta]
    return _mode_view_message(meta, f"{output} is a view of a view which was")


# While allow_mutation_on_saved_tensors is active: called with each tensor about to be written in place, before the
# write (else None, and in-place ops pay one global read).
before_write: Callable[[Tensor], None] | None = None


def check_inplace(t: Tensor) -> None:
    if not grad_mode.state.grad_enabled:
        return
    if t._base is not None and t._requires_grad:
        message = _forbidden_view(t)
        if message is not None:
            raise RuntimeError(message)
    if t._base is not None and t._base.grad_fn is None and t._base._requires_grad:
        raise RuntimeError(VIEW_OF_LEAF_MESSAGE + seams.explainer.leaf_inplace(t, view=True))
    if t.grad_fn is None and t._requires_grad:
        raise RuntimeError(LEAF_MESSAGE + seams.explainer.leaf_inplace(t, view=False))


def has_internal_overlap(data: np.ndarray) -> bool:
    """Whether two elements of `data` may share a memory location: an expanded dim (stride 0), or strides that
    interleave (unfold's overlapping windows, as_strided)."""
    return bool(data.size) and strides_overlap(data.shape, data.strides, data.itemsize)


def strides_overlap(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int = 1) -> bool:
    """Whether a geometry may put two elements at one location. Dims sorted by stride, each must step past the whole
    extent of the smaller ones; geometries that fail this without overlapping are too odd to be worth telling apart."""
    dims = sorted((abs(stride), n) for stride, n in zip(strides, shape, strict=True) if n > 1)
    extent = itemsize
    for stride, n in dims:
        if stride < extent:
            return True
        extent += stride * (n - 1)
    return False


class _Memory:
    """What NumPy makes an array of (its __array_interface__), keeping the memory's owner alive as the array's base."""

    def __init__(self, interface: dict[str, Any], owner: np.ndarray) -> None:
        self.__array_interface__ = interface
        self.owner = owner


def _writable_alias(data: np.ndarray) -> np.ndarray:
    """A writable array over `data`'s elements, for a read-only view (of an expand) whose elements do not overlap:
    PyTorch writes there, NumPy flags every view of a broadcast read-only."""
    owner = data
    while not owner.flags.writeable and isinstance(owner.base, np.ndarray):
        owner = owner.base
    if not owner.flags.writeable:  # memory that is read-only itself (a bytes buffer): NumPy refuses the write
        return data
    interface = dict(data.__array_interface__, data=(data.__array_interface__["data"][0], False))
    return np.asarray(_Memory(interface, owner)).view(data.dtype)


def apply_inplace(t: Tensor, compute: Callable[[Tensor], Tensor], *, any_cast: bool = False) -> Tensor:
    """Run `compute(t)` out of place, then make its value and history t's own.

    Arithmetic may not narrow the category (an int tensor cannot take a float result);
    copy-like ops (`any_cast`) may, as in PyTorch.
    """
    check_inplace(t)
    data = t._data
    if not data.flags.writeable and has_internal_overlap(data):
        raise RuntimeError(OVERLAP_MESSAGE)
    result = compute(t)
    if result.grad_fn is not None and t._base is not None and not t._requires_grad:  # the write makes t require grad
        message = _forbidden_view(t)
        if message is not None:
            raise RuntimeError(message)
    assert result is not t, "an in-place op's out-of-place half returned its input: its history would be taken for new"
    if not any_cast and result.dtype._category > t.dtype._category:
        raise RuntimeError(
            f"result type {result.dtype.scalar_name} can't be cast to the desired output type {t.dtype.scalar_name}"
        )
    if result._data.shape != t._data.shape:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, t.shape))}] doesn't match the broadcast shape "
            f"[{', '.join(map(str, result.shape))}]"
        )
    node = result.grad_fn
    if node is not None:
        _keep_original_self(node, t)
    if before_write is not None:
        before_write(t)
    np.copyto(data if data.flags.writeable else _writable_alias(data), result._data, casting="unsafe")
    bump_version(t)
    if forward_ad.state.propagating:
        carry_tangent(t, forward_ad.tangent_of(result))
    if node is None:
        return t
    _retarget_saved_result(node, t)
    if t._base is not None:
        rebase_view(t, node)
    else:
        t._with_history(node, 0)
        _carry_retained_grad(t)
    base = t._base if t._base is not None else t
    if base._views:
        _refresh_views(base, t)
    return t


def carry_tangent(t: Tensor, tangent: Tensor | None) -> None:
    """After an in-place op on t, t's tangent is the result's, as PyTorch's in-place ops give it. Where forward AD
    sees t as a view, the tangent is written into its base's (zeros if it had none); elsewhere into t's own, in place
    (PyTorch updates a tangent in place, so its aliases see the change), or it becomes t's. Every view of that base
    then reads its own part of the base's tangent again."""
    if tangent is None:
        return
    located = forward_view(t)
    if located is None:
        old = forward_ad.tangent_of(t)
        if old is None:
            forward_ad.set_tangent(t, tangent)
        else:
            with forward_ad.computing_tangents():
                old.copy_(tangent)
        _refresh_view_tangents(t, forward_ad.tangent_of(t))
        return
    base, chain = located
    if tangent._requires_grad and grad_mode.state.grad_enabled:
        raise NotImplementedError(
            "glassgrad cannot yet differentiate (in reverse mode) the tangent an in-place op on a view writes into "
            "its base's tangent; run the in-place op on a clone instead."
        )
    with forward_ad.computing_tangents(), grad_mode.no_grad():
        base_tangent = forward_ad.tangent_of(base)
        if base_tangent is None:
            base_tangent = Tensor._wrap(np.zeros_like(base._data))
            forward_ad.set_tangent(base, base_tangent)
        _write_through(base_tangent, chain, tangent)
        forward_ad.set_tangent(t, replay_view(base_tangent, chain))  # t itself may be a view autograd does not track
    _refresh_view_tangents(base, base_tangent)


def forward_view(t: Tensor) -> tuple[Tensor, tuple[Any, ...]] | None:
    """(the base of t's tangent, the view steps from it to t) where forward AD sees t as a view; None where it does
    not: t is no view, or a forward alias itself (make_dual's, unpack_dual's), or one of an alias that is gone."""
    base = t._base
    if base is None:
        return None
    chain = t._view_chain
    for i in range(len(chain) - 1, -1, -1):
        if chain[i][0] is forward_ad.forward_alias_step:
            alias = chain[i][1][0]()
            return None if alias is None or alias is t else (alias, chain[i + 1 :])
    return base, chain


def _refresh_view_tangents(base: Tensor, base_tangent: Tensor) -> None:
    """Each view whose tangent's base is `base` takes its part of base_tangent (a view of it, so later writes show)."""
    owner = base._base if base._base is not None else base
    if not owner._views:
        return
    with forward_ad.computing_tangents(), grad_mode.no_grad():
        for ref in owner._views or ():
            view = ref()
            if view is None or view is base or view._version_counter is not base._version_counter:
                continue
            located = forward_view(view)
            if located is not None and located[0] is base:
                forward_ad.set_tangent(view, replay_view(base_tangent, located[1]))


def _write_through(base_tangent: Tensor, chain: tuple[Any, ...], tangent: Tensor) -> None:
    region = replay_view(base_tangent, chain)
    if not np.shares_memory(region._data, base_tangent._data) and region._data.size:
        raise NotImplementedError(
            "glassgrad cannot carry the tangent of an in-place op on this view back to its base: the view cannot be "
            "taken again of the base's tangent."
        )
    np.copyto(region._data, tangent._data, casting="unsafe")


def track_view(base: Tensor, view: Tensor) -> None:
    """Remember a view autograd sees, so that an in-place change through its base or another view reaches it."""
    views = base._views
    if views is None:
        base._views = [weakref.ref(view)]
        return
    views.append(weakref.ref(view))
    if len(views) >= 32 and len(views) & (len(views) - 1) == 0:  # at 32, 64, 128...: drop the dead, keep it bounded
        base._views = [ref for ref in views if ref() is not None]


def _refresh_views(base: Tensor, changed: Tensor) -> None:
    """The base's other views now read values an in-place op wrote: each one's history becomes the view taken again
    of the base's new history (_regenerated), as PyTorch regenerates a view's grad_fn once its base's version moved
    on."""
    alive = []
    for ref in tuple(base._views or ()):  # a copy: each view taken again is tracked too, and needs no refresh itself
        view = ref()
        if view is None:
            continue
        alive.append(ref)
        if view is changed or view._version_counter is not changed._version_counter:
            continue
        try:
            fresh = _regenerated(base, view)
        except (IndexError, RuntimeError):
            continue  # the base's shape changed in place: that view is stale (rebase_view raises when it is written)
        if fresh.grad_fn is not None and _same_layout(fresh._data, view._data):
            view._with_history(fresh.grad_fn, fresh._output_nr)
            _carry_retained_grad(view)
    base._views = alive


def _carry_retained_grad(t: Tensor) -> None:
    """retain_grad() follows a tensor onto the node an in-place op gave it, as PyTorch moves its retains_grad hook
    (the old node's entry stays, but writes only to a tensor whose grad_fn it still is)."""
    if t._retains_grad:
        t._retains_grad = False
        t.retain_grad()


def bump_version(t: Tensor) -> None:
    # PyTorch checks inference tensors when bumping the version, after the kernel has written: the data changes.
    if t._is_inference and not grad_mode.state.inference:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
            "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
        )
    counter = t._version_counter
    counter.value += 1
    counter.modified_at = sites.caller_position()


def _keep_original_self(node: Node, t: Tensor) -> None:
    """A formula that needs the old value of t gets a copy of it, as PyTorch's original_self (which saved_tensors_hooks
    pack in place of t: t's own packing would change with the write)."""
    for name, saved in list(node._saved.items()):
        if not isinstance(saved, SavedTensor):
            continue
        packed_self = saved._unpack_hook is not None and name == "self" and saved.version_counter is t._counter
        if saved._tensor is t or packed_self:
            original = Tensor._wrap(t._data.copy())
            if t.grad_fn is not None:
                original._with_history(t.grad_fn, t._output_nr)
            node._saved[name] = SavedTensor(name, original, False)


def _retarget_saved_result(node: Node, t: Tensor) -> None:
    """A saved result now lives in t's storage, under t's version counter."""
    for saved in node.saved_tensors_list():
        if saved.is_output and saved._data is not None:
            saved._data = t._data
            saved.version_counter = t._version_counter
            saved.saved_version = t._version_counter.value


def replay_view(base: Tensor, chain: tuple[tuple[Callable[..., Tensor], tuple[Any, ...]], ...]) -> Tensor:
    view = base
    for fn, args in chain:
        view = fn(view, *args)
    return view


# Bases whose shape or strides an in-place op changed (t_, squeeze_, resize_, ...): views taken of them before the
# change may no longer replay from them. A view's own change is not noted: views of the same base replay around it.
# Keyed by id: a WeakSet would compare tensors with ==, which is elementwise. An entry leaves with its tensor.
_reshaped_bases: weakref.WeakValueDictionary[int, Tensor] = weakref.WeakValueDictionary()


def note_metadata_change(t: Tensor) -> None:
    if t._base is None:
        _reshaped_bases[id(t)] = t


STALE_VIEW_MESSAGE = (
    "glassgrad cannot record this in-place op on a view: the view's base changed its shape or strides in place "
    "(t_, transpose_, squeeze_, unsqueeze_, resize_, ...) after the view was taken, so the view can no longer be "
    "replayed from it. Take the view again after that change."
)


def _same_layout(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.strides == b.strides and (
        a.size == 0 or a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
    )


def _regenerated(base: Tensor, view: Tensor) -> Tensor:
    """The view taken again of its base's new history, for its new grad_fn. As PyTorch's: by as_strided from the
    base (AsStridedBackward0), unless view replay is on or the view's dtype is not its base's (view_as_real,
    view(dtype): PyTorch always keeps their view ops), where the view ops that made it are replayed."""
    with grad_mode.enable_grad():
        if not grad_mode.state.view_replay and view._data.dtype == base._data.dtype:
            try:
                return base.as_strided(view._data.shape, view.stride(), view.storage_offset())
            except RuntimeError:  # memory whose storage glassgrad cannot see (a strided NumPy array it does not own)
                pass
        return replay_view(base, view._view_chain)


def rebase_view(view: Tensor, node: Node) -> None:
    base = view._base
    assert base is not None
    previous = (base.grad_fn, base._output_nr, base._requires_grad)
    copy_slices = CopySlices(base, view._view_chain, node)
    base._with_history(copy_slices, 0)
    _carry_retained_grad(base)
    # CopySlices replays the view from its base's current shape (PyTorch's takes it by strides): once the base's
    # metadata changed in place, the replay may pick other elements (or fail), and the gradient would be wrong.
    if _reshaped_bases.get(id(base)) is base:
        try:
            with grad_mode.enable_grad():
                replayed: Tensor | None = replay_view(base, view._view_chain)
        except (IndexError, RuntimeError):
            replayed = None
        if replayed is None or not _same_layout(replayed._data, view._data):
            base.grad_fn, base._output_nr, base._requires_grad = previous
            raise RuntimeError(STALE_VIEW_MESSAGE)
    fresh = _regenerated(base, view)
    view._with_history(fresh.grad_fn, fresh._output_nr)
    _carry_retained_grad(view)


class CopySlices(NodeBase):
    """The base's node after an in-place op on one of its views."""

    __slots__ = ("fn", "view_chain")

    def __init__(self, base: Tensor, view_chain: tuple[Any, ...], fn: Node) -> None:
        super().__init__()
        self.fn = fn
        self.view_chain = view_chain
        self.next_functions = (edge_to(base), *fn.next_functions[1:])
        self._input_meta = (base._data.shape, base._data.dtype, *fn._input_meta[2:])

    def name(self) -> str:
        return "torch::autograd::CopySlices"  # PyTorch's name() is the C++ class's, unlike its type name

    def apply(self, grad_outputs: list[Tensor | None], needed: Container[Node] | None = None) -> tuple[Tensor | None, ...]:
        if self._freed_by is not None:  # PyTorch drops fn on release, so even a fn that saved nothing cannot run again
            raise RuntimeError(explain_freed(self, None))
        grad = grad_outputs[0]
        if grad is None:
            return (None,) * len(self.next_functions)
        result = grad.clone()
        region = replay_view(result, self.view_chain)
        fn_grads = self.fn.apply([region.clone()])
        old_view_grad = fn_grads[0]
        if old_view_grad is None:
            old_view_grad = Tensor._wrap(np.zeros(region._data.shape, region._data.dtype))
        elif old_view_grad.shape != region.shape:
            old_view_grad = old_view_grad.sum_to_size(region.shape)
        region.copy_(old_view_grad)
        return (result, *fn_grads[1:])

    def saved_tensors_list(self) -> list[SavedTensor]:
        return self.fn.saved_tensors_list()

    def release(self, freed_by: Any) -> None:
        self.fn.release(freed_by)
        super().release(freed_by)

