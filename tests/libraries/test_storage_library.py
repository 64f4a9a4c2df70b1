"""UntypedStorage (what safetensors asks of a tensor's memory) and torch.library's custom ops against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle


def test_a_views_storage_is_its_bases() -> None:
    for lib in (torch, glassgrad):
        base = lib.arange(12.0).view(3, 4)
        view = base[1:, 2:]
        assert view.untyped_storage().data_ptr() == base.untyped_storage().data_ptr() == base.data_ptr()
        assert view.untyped_storage().nbytes() == base.untyped_storage().nbytes() == 48
        assert lib.zeros(3).untyped_storage().data_ptr() != base.untyped_storage().data_ptr()


def test_a_new_storage_has_its_size_in_bytes() -> None:
    ours, theirs = glassgrad.UntypedStorage(5), torch.UntypedStorage(5)
    assert len(ours) == len(theirs) == ours.nbytes() == ours.size() == 5
    assert ours.element_size() == theirs.element_size() == 1
    assert str(ours.device) == str(theirs.device)


def _define(lib, namespace: str):
    def scaled_square(x, scale: float = 2.0):
        return x * x * scale

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x * ctx.scale, None

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.scale = inputs[1]

    op = lib.library.custom_op(
        f"{namespace}::scaled_square", scaled_square, mutates_args=(), schema="(Tensor x, float scale=2.0) -> Tensor"
    )
    lib.library.register_fake(f"{namespace}::scaled_square", lambda x, scale=2.0: lib.empty_like(x))
    lib.library.register_autograd(f"{namespace}::scaled_square", backward, setup_context=setup_context)
    return op


def test_a_custom_op_with_autograd_gives_pytorchs_values_and_gradients() -> None:
    ours_op, theirs_op = _define(glassgrad, "glassgrad_test"), _define(torch, "glassgrad_test")
    values = [1.0, -2.0, 0.5]
    x, y = glassgrad.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    out, expected = ours_op(x, scale=3.0), theirs_op(y, scale=3.0)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy())
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy())
    assert glassgrad.ops.glassgrad_test.scaled_square is ours_op
    assert torch.ops.glassgrad_test.scaled_square(y, 3.0).shape == out.shape


def test_a_custom_op_as_a_decorator_without_autograd() -> None:
    @glassgrad.library.custom_op("glassgrad_test::plus_one", mutates_args=(), schema="(Tensor x) -> Tensor")
    def plus_one(x):
        return x + 1

    assert plus_one(glassgrad.tensor([1.0])).item() == 2.0
    with pytest.raises(ValueError, match="namespace::opname"):
        glassgrad.library.custom_op("no_namespace", plus_one, mutates_args=())


def test_load_library_of_a_missing_path_raises_pytorchs_oserror_and_an_existing_one_is_refused() -> None:
    # torcheval tries an optional kernel library this way and catches the OSError
    missing = "//deeplearning/fbgemm/fbgemm_gpu:metric_ops"
    for lib in (torch, glassgrad):
        with pytest.raises(OSError, match=r"^Could not load this library: /deeplearning/fbgemm/fbgemm_gpu:metric_ops$"):
            lib.ops.load_library(missing)
    with pytest.raises(NotImplementedError, match=r"runs no C\+\+ operators"):
        glassgrad.ops.load_library(__file__)
