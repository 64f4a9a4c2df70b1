"""torch.autograd.graph.allow_mutation_on_saved_tensors: in-place ops may change tensors saved for backward.

Inside the context every saved tensor is packed (a saved_tensors_hooks seam) as a handle to the tensor itself; just
before an in-place op writes into a tensor, the saved tensors it aliases at their current version are cloned, once,
and backward unpacks the clones. A handle lives as long as the node that saved it, so a graph that was freed (or
backwarded) costs no clone. Aliases are the tensors sharing a version counter: a tensor, its views and its detached
aliases.
"""

from __future__ import annotations

import weakref
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager

from ..tensor import Tensor
from . import inplace
from .graph import saved_tensors_hooks

OUTSIDE_MESSAGE = (  # PyTorch's words, its missing space included
    "Trying to backward outside of the 'allow_mutation_on_saved_tensors' contextin which the graph was originally "
    "recorded."
)


class _Handle:
    """What a saved tensor is packed as: a key that dies with the node holding it."""

    __slots__ = ("__weakref__",)


class _AllowMutationOnSavedContext:
    """The saved tensors of one context: the originals, the clones made before a write, and which (storage, version)
    each handle stands for."""

    def __init__(self) -> None:
        self.original: weakref.WeakKeyDictionary[_Handle, Tensor] = weakref.WeakKeyDictionary()
        self.cloned: weakref.WeakKeyDictionary[_Handle, Tensor] = weakref.WeakKeyDictionary()
        # (id of the tensor, id of its version counter, version) -> the handle saved for it
        self.tid_to_weakhandle: weakref.WeakValueDictionary[tuple[int, int, int], _Handle] = weakref.WeakValueDictionary()
        self.sid_to_tid: defaultdict[tuple[int, int], set[tuple[int, int, int]]] = defaultdict(set)

    def clear(self) -> None:
        for mapping in (self.original, self.cloned, self.tid_to_weakhandle, self.sid_to_tid):
            mapping.clear()

    def pack(self, tensor: Tensor) -> _Handle:
        sid = (id(tensor._version_counter), tensor._version)
        tid = (id(tensor), *sid)
        self.sid_to_tid[sid].add(tid)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:
            handle = self.tid_to_weakhandle[tid] = _Handle()
            self.original[handle] = tensor
        return handle

    def unpack(self, handle: _Handle) -> Tensor:
        if _active is not self:
            raise AssertionError(OUTSIDE_MESSAGE)
        if handle in self.cloned:
            return self.cloned[handle]
        if handle not in self.original:
            raise AssertionError(OUTSIDE_MESSAGE)
        return self.original[handle]

    def before_write(self, tensor: Tensor) -> None:
        """Clone every saved tensor that `tensor` aliases at its present version, before it changes."""
        sid = (id(tensor._version_counter), tensor._version)
        for tid in self.sid_to_tid.pop(sid, ()):
            handle = self.tid_to_weakhandle.get(tid)
            if handle is not None and handle not in self.cloned:
                self.cloned[handle] = self.original.pop(handle).clone()


_active: _AllowMutationOnSavedContext | None = None


@contextmanager
def allow_mutation_on_saved_tensors() -> Iterator[_AllowMutationOnSavedContext]:
    """Inside: in-place ops may modify tensors saved for backward; backward sees the values they had when saved."""
    global _active
    if _active is not None:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    ctx = _AllowMutationOnSavedContext()
    _active = ctx
    inplace.before_write = ctx.before_write
    try:
        with saved_tensors_hooks(ctx.pack, ctx.unpack):
            yield ctx
    finally:
        ctx.clear()
        _active = None
        inplace.before_write = None
