"""DistributedDataParallel: one model per rank, gradients averaged (over TCP or MPI) while backward still runs.

Parameters are grouped into buckets, in the reverse of the module's order (roughly the order backward
reaches them). Each parameter's post-accumulate-grad hook marks it ready; the moment a bucket's last
gradient is in, its gradients are flattened into one buffer and a non-blocking all-reduce starts, so
communication overlaps the rest of backward. When the last bucket is under way, the hook waits for all
of them and writes the averaged gradients back.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ... import distributed
from ...autograd import grad_mode
from ...tensor import Tensor
from ..modules.module import Module
from ..parameter import Parameter

_UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates "
    "that your module has parameters that were not used in producing loss. You can enable unused parameter "
    "detection by passing the keyword argument `find_unused_parameters=True` to "
    "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs participate "
    "in calculating loss."
)


class _Bucket:
    """Parameters whose gradients travel in one all-reduce."""

    def __init__(self, params: list[Parameter]) -> None:
        self.params = params
        self.buffer = Tensor._wrap(np.zeros(sum(p.numel() for p in params), dtype=params[0]._data.dtype))
        self.pending = len(params)
        self.work: distributed.Work | None = None


class DistributedDataParallel(Module):
    """torch.nn.parallel.DistributedDataParallel for CPU modules, over glassgrad.distributed (TCP or MPI)."""

    def __init__(
        self,
        module: Module,
        device_ids: list[Any] | None = None,
        output_device: Any = None,
        dim: int = 0,
        broadcast_buffers: bool = True,
        process_group: distributed.ProcessGroup | None = None,
        bucket_cap_mb: float | None = None,
        find_unused_parameters: bool = False,
        check_reduction: bool = False,
        gradient_as_bucket_view: bool = False,
        static_graph: bool = False,
    ) -> None:
        super().__init__()
        if device_ids or output_device is not None:
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with single-device/multiple-device "
                f"GPU modules or CPU modules, but got device_ids {device_ids}, output_device {output_device}, and module "
                "parameters {device(type='cpu')}."
            )
        self.module = module
        self.process_group = process_group if process_group is not None else distributed.group.WORLD
        if self.process_group is None:
            raise ValueError("Default process group has not been initialized, please make sure to call init_process_group.")
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.dim = dim
        self._params = [p for p in module.parameters() if p.requires_grad]
        cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 2**20)
        self._buckets = self._make_buckets(cap)
        self._bucket_of = {id(p): b for b in self._buckets for p in b.params}
        self._used: dict[int, bool] = {}
        self._expecting = False  # a forward under sync has run and its backward has not reduced yet
        self.comm_wait_s = 0.0  # time spent waiting for all-reduces after backward's last gradient (bench)
        self._sync(list(module.parameters()) + list(module.buffers()))
        for param in self._params:
            param.register_post_accumulate_grad_hook(self._gradient_ready)

    def _make_buckets(self, cap: int) -> list[_Bucket]:
        buckets: list[_Bucket] = []
        current: list[Parameter] = []
        size = 0
        for param in reversed(self._params):  # backward reaches the last layers first
            if current and (size + param._data.nbytes > cap or param._data.dtype != current[0]._data.dtype):
                buckets.append(_Bucket(current))
                current, size = [], 0
            current.append(param)
            size += param._data.nbytes
        if current:
            buckets.append(_Bucket(current))
        return buckets

    def _sync(self, tensors: list[Tensor]) -> None:
        """Every rank starts from rank 0's values: one broadcast of all of them, flattened by dtype."""
        by_dtype: dict[Any, list[Tensor]] = {}
        for t in tensors:
            by_dtype.setdefault(t._data.dtype, []).append(t)
        for group in by_dtype.values():
            flat = Tensor._wrap(np.concatenate([t._data.ravel() for t in group]))
            distributed.broadcast(flat, 0, self.process_group)
            offset = 0
            for t in group:
                t._data[...] = flat._data[offset : offset + t._data.size].reshape(t._data.shape)
                offset += t._data.size

    # -- forward ----------------------------------------------------------------------------------------------
    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if self._expecting and self.require_backward_grad_sync:
            raise RuntimeError(_UNFINISHED)
        if self.broadcast_buffers:
            buffers = list(self.module.buffers())
            if buffers:
                self._sync(buffers)
        output = self.module(*inputs, **kwargs)
        if grad_mode.is_grad_enabled() and self.require_backward_grad_sync:
            self._prepare_for_backward(output)
        return output

    def _prepare_for_backward(self, output: Any) -> None:
        self._expecting = True
        self.comm_wait_s = 0.0
        for bucket in self._buckets:
            bucket.pending = len(bucket.params)
            bucket.work = None
        self._used = {id(p): False for p in self._params}
        if self.find_unused_parameters:
            reached = _parameters_under(output)
            for param in self._params:
                if id(param) not in reached:
                    self._ready(param)

    # -- backward ---------------------------------------------------------------------------------------------
    def _gradient_ready(self, param: Tensor) -> None:
        if not self._expecting or not self.require_backward_grad_sync:
            return  # under no_sync(), or a backward that no forward of this wrapper prepared
        self._used[id(param)] = True
        self._ready(param)

    def _ready(self, param: Tensor) -> None:
        bucket = self._bucket_of[id(param)]
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch(bucket)
        for earlier in self._buckets:  # testing an MPI request is what moves a non-blocking all-reduce along
            if earlier.work is not None:
                earlier.work.is_completed()
        if all(b.work is not None for b in self._buckets):
            self._finish()

    def _launch(self, bucket: _Bucket) -> None:
        data = bucket.buffer._data
        offset = 0
        for p in bucket.params:
            n = p._data.size
            if p.grad is None:
                data[offset : offset + n] = 0
            else:
                data[offset : offset + n] = p.grad._data.ravel()
            offset += n
        bucket.work = distributed.all_reduce(bucket.buffer, distributed.ReduceOp.AVG, self.process_group, async_op=True)

    def _finish(self) -> None:
        self._expecting = False
        start = time.perf_counter()
        for bucket in self._buckets:
            assert bucket.work is not None
            bucket.work.wait()
        used_anywhere = self._used_anywhere() if self.find_unused_parameters else None
        self.comm_wait_s = time.perf_counter() - start
        for bucket in self._buckets:
            offset = 0
            for p in bucket.params:
                n = p._data.size
                averaged = bucket.buffer._data[offset : offset + n].reshape(p._data.shape)
                offset += n
                if p.grad is not None:
                    p.grad._data[...] = averaged
                elif used_anywhere is None or used_anywhere[id(p)]:
                    p.grad = Tensor._wrap(averaged.copy())

    def _used_anywhere(self) -> dict[int, bool]:
        """Whether each parameter had a gradient on some rank (a parameter unused everywhere keeps grad None)."""
        flags = Tensor._wrap(np.array([self._used[id(p)] for p in self._params], dtype=np.int32))
        distributed.all_reduce(flags, distributed.ReduceOp.MAX, self.process_group)
        return {id(p): bool(f) for p, f in zip(self._params, flags._data, strict=True)}

    @contextmanager
    def no_sync(self) -> Iterator[None]:
        """Backwards inside accumulate gradients locally; the first backward after the block averages the sum."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous


def _parameters_under(output: Any) -> set[int]:
    """ids of the leaves (parameters) the autograd graph behind `output` reaches."""
    from ...autograd.graph import AccumulateGrad

    roots = [t.grad_fn for t in _tensors(output) if t.grad_fn is not None]
    seen: set[int] = set()
    reached: set[int] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            reached.add(id(node.variable))
        stack.extend(child for child, _ in node.next_functions if child is not None)
    return reached


def _tensors(output: Any) -> Iterator[Tensor]:
    if isinstance(output, Tensor):
        yield output
    elif isinstance(output, (list, tuple)):
        for item in output:
            yield from _tensors(item)
    elif isinstance(output, dict):
        for item in output.values():
            yield from _tensors(item)
