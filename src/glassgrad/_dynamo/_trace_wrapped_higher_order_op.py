"""torch._dynamo._trace_wrapped_higher_order_op: imported by transformers' masking_utils at module level."""

from typing import Any


class TransformGetItemToIndex:
    """In PyTorch, a TorchFunctionMode that lets vmap index with 0-d integer tensors (which it would otherwise
    turn into Python ints with .item()); glassgrad's indexing takes 0-d integer tensors as they are, so this
    context changes nothing."""

    def __enter__(self) -> "TransformGetItemToIndex":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        return None
