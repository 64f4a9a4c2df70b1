"""LazyModuleMixin at torch.nn.modules.lazy: modules whose parameters wait for the first forward to learn their
shapes; and the lazy convolutions (here beside the mixin; PyTorch keeps them in conv.py).

A lazy module holds UninitializedParameter/UninitializedBuffer placeholders. A forward pre-hook calls
initialize_parameters(input), which materializes them and resets them with the regular module's init; the
hook then removes itself and the module becomes cls_to_become (LazyLinear -> Linear), as in PyTorch.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from ...tensor import Tensor
from ..parameter import UninitializedParameter, is_lazy
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .module import Module


class LazyModuleMixin:
    cls_to_become: type[Module] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)  # type: ignore[attr-defined]

    def _save_to_state_dict(self, destination: dict[str, Any], prefix: str, keep_vars: bool) -> None:
        # Placeholders are saved as they are (detaching one would make an empty tensor of it).
        for name, t in itertools.chain(self._parameters.items(), self._buffers.items()):  # type: ignore[attr-defined]
            if t is not None and (name in self._parameters or name not in self._non_persistent_buffers_set):  # type: ignore[attr-defined]
                destination[prefix + name] = t if is_lazy(t) or keep_vars else t.detach()

    def _load_from_state_dict(self, state_dict: Mapping[str, Any], prefix: str, *args: Any) -> None:
        # A checkpoint of an initialized module gives each placeholder its shape before the values are copied.
        for name, t in itertools.chain(self._parameters.items(), self._buffers.items()):  # type: ignore[attr-defined]
            loaded = state_dict.get(prefix + name)
            if is_lazy(t) and isinstance(loaded, Tensor) and not is_lazy(loaded):
                t.materialize(loaded.shape)
        super()._load_from_state_dict(state_dict, prefix, *args)  # type: ignore[misc]

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))  # type: ignore[attr-defined]

    def _infer_parameters(self, module: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> None:
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")  # type: ignore[attr-defined]
        module._initialize_hook.remove()
        delattr(module, "_initialize_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become


class _LazyConvXdMixin(LazyModuleMixin):
    in_channels: int
    out_channels: int
    groups: int
    transposed: bool
    kernel_size: tuple[int, ...]
    weight: Any
    bias: Any
    _dims: int

    def _lazy_init(self, out_channels: int, bias: bool, device: Any, dtype: Any) -> None:
        """The placeholders; the regular constructor ran with no channels and no bias, so that nothing was drawn."""
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._get_in_channels(input)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
        else:
            self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()

    def _get_in_channels(self, input: Tensor) -> int:
        unbatched = self._dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(
                f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to {type(self).__name__}, but got "
                f"input of size: {input.shape}"
            )
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]


class _LazyConv(_LazyConvXdMixin):
    """The constructor of the lazy convolutions: Conv1d's, Conv2d's or Conv3d's, without in_channels."""

    def __init__(
        self, out_channels: int, kernel_size: int | Sequence[int], stride: int | Sequence[int] = 1,
        padding: str | int | Sequence[int] = 0, dilation: int | Sequence[int] = 1, groups: int = 1, bias: bool = True,
        padding_mode: str = "zeros", device: Any = None, dtype: Any = None,
    ) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    """The constructor of the lazy transposed convolutions: ConvTransposeNd's, without in_channels."""

    def __init__(
        self, out_channels: int, kernel_size: int | Sequence[int], stride: int | Sequence[int] = 1,
        padding: int | Sequence[int] = 0, output_padding: int | Sequence[int] = 0, groups: int = 1, bias: bool = True,
        dilation: int | Sequence[int] = 1, padding_mode: str = "zeros", device: Any = None, dtype: Any = None,
    ) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode, device, dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    cls_to_become = ConvTranspose3d
