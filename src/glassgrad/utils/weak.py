"""torch.utils.weak: weak references and a weak-keyed dictionary that go by identity, not equality.

A tensor's == is elementwise and its hash is its id, so Python's WeakKeyDictionary cannot key on tensors
by equality; these key on the object itself and drop an entry when its key is collected."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from .._missing import module_getattr as _module_getattr
from ..tensor import Tensor

__all__ = ["TensorWeakRef", "WeakIdKeyDictionary", "WeakIdRef", "WeakTensorKeyDictionary"]


class WeakIdRef(weakref.ref):  # type: ignore[type-arg]
    """A weak reference that hashes by its referent's id and equals another when both refer to the same live
    object (or, once the referent is gone, only itself)."""

    __slots__ = ("_id",)

    def __init__(self, key: Any, callback: Callable[[Any], Any] | None = None) -> None:
        self._id = id(key)
        super().__init__(key, callback)  # type: ignore[call-arg]

    def __hash__(self) -> int:
        return self._id

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WeakIdRef):
            return NotImplemented
        mine, theirs = self(), other()
        return self is other if mine is None or theirs is None else mine is theirs


class WeakIdKeyDictionary(MutableMapping):  # type: ignore[type-arg]
    """A mapping whose keys are held weakly and compared by identity; an entry goes when its key is collected."""

    def __init__(self, dict: Any = None, ref_type: type[WeakIdRef] = WeakIdRef) -> None:
        self.data: dict[WeakIdRef, Any] = {}
        self.ref_type = ref_type
        self_ref = weakref.ref(self)

        def remove(dead: WeakIdRef) -> None:
            owner = self_ref()
            if owner is not None:
                owner.data.pop(dead, None)

        self._remove = remove
        if dict is not None:
            self.update(dict)

    def _ref(self, key: Any) -> WeakIdRef:
        return self.ref_type(key)

    def __getitem__(self, key: Any) -> Any:
        return self.data[self._ref(key)]

    def __setitem__(self, key: Any, value: Any) -> None:
        self.data[self.ref_type(key, self._remove)] = value

    def __delitem__(self, key: Any) -> None:
        del self.data[self._ref(key)]

    def __contains__(self, key: object) -> bool:
        try:
            return self._ref(key) in self.data
        except TypeError:  # not weakly referenceable, so never a key
            return False

    def __iter__(self) -> Iterator[Any]:
        for ref in list(self.data):
            key = ref()
            if key is not None:
                yield key

    def __len__(self) -> int:
        return sum(ref() is not None for ref in list(self.data))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} at {id(self):#x}>"


WeakTensorKeyDictionary = WeakIdKeyDictionary


class TensorWeakRef:
    """A weak reference to a tensor, which calling gives back (or None once it is collected)."""

    def __init__(self, tensor: Tensor) -> None:
        if not isinstance(tensor, Tensor):
            raise AssertionError(f"expected torch.Tensor, got {type(tensor)}.")
        self.ref = weakref.ref(tensor)

    def __call__(self) -> Tensor | None:
        return self.ref()


__getattr__ = _module_getattr(__name__)  # a PyTorch name glassgrad lacks: say so, and where it was used
