"""vmap's batching rules against torch.func.vmap on the same functions: values, shapes, requires_grad and the
gradients of a weighted sum of the outputs with respect to every floating input, in float64.

Every case runs with the fallback loop forbidden (it raises), so a case passes only through its rules.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

pytestmark = [
    pytest.mark.torch_oracle,
    pytest.mark.usefixtures("no_fallback"),
    # PyTorch has no batching rule for kl_div; its one-time warning would fail the case that runs first.
    pytest.mark.filterwarnings("ignore:There is a performance drop because we have not yet implemented"),
]


def data(m: ModuleType, *shape: int, seed: int = 0) -> Any:
    return m.tensor(np.random.default_rng(seed).standard_normal(shape))


def indices(m: ModuleType, high: int, *shape: int, seed: int = 0) -> Any:
    return m.tensor(np.random.default_rng(seed).integers(0, high, shape))


def weighted_sum(m: ModuleType, outputs: list[Any]) -> Any:
    """A scalar that weighs every output element differently, so that every gradient entry is checked."""
    total = 0
    for out in outputs:
        if isinstance(out, m.Tensor) and out.dtype == m.float64:
            total = total + (out * m.arange(out.numel(), dtype=m.float64).reshape(out.shape).cos()).sum()
    return total


def run(
    m: ModuleType, fn: Callable[..., Any], inputs: list[Any], in_dims: Any = 0, out_dims: Any = 0, **vmap_kwargs: Any
) -> Any:
    """vmap(fn)(*inputs), and the gradients of the weighted sum of its outputs with respect to the inputs."""
    for x in inputs:
        if x.dtype == m.float64:
            x.requires_grad_()
    out = m.func.vmap(fn, in_dims=in_dims, out_dims=out_dims, **vmap_kwargs)(*inputs)
    flat = list(out) if isinstance(out, tuple | list) else [out]
    loss = weighted_sum(m, flat)
    if not isinstance(loss, m.Tensor) or not loss.requires_grad:
        return out
    grads = m.autograd.grad(loss, [x for x in inputs if x.requires_grad], allow_unused=True)
    return out, grads


Case = Callable[[ModuleType], Any]

POINTWISE: dict[str, Case] = {
    "unary_and_unbatched_operand": lambda m: run(m, lambda a, b: a.sin() + b, [data(m, 3, 4), data(m, 4)], (0, None)),
    "ranks_differ": lambda m: run(m, lambda a, b: a * b.exp(), [data(m, 3, 2, 4), data(m, 3, 4, seed=1)]),
    "unbatched_operand_has_more_dims": lambda m: run(
        m, lambda a, b: a - b, [data(m, 3, 4), data(m, 2, 4, seed=1)], (0, None)
    ),
    "scalar_elements": lambda m: run(m, lambda a, b: a * b + 1, [data(m, 5), data(m, 5, 3, seed=1)]),
    "where_pow_clamp": lambda m: run(
        m, lambda a, b: m.where(a > 0, a.pow(2), b.clamp(min=-0.1, max=0.5)), [data(m, 3, 4), data(m, 4, seed=1)],
        (0, None),
    ),
    "reflected_operators": lambda m: run(m, lambda a: (2 - a, 1 / (a + 3), 2**a, a**2, -a, abs(a)), [data(m, 3, 4)]),
    "activations": lambda m: run(
        m,
        lambda a: (
            m.nn.functional.gelu(a), m.nn.functional.softplus(a), m.nn.functional.leaky_relu(a, 0.1),
            m.nn.functional.elu(a), m.sigmoid(a), m.relu(a), m.nn.functional.silu(a),
        ),
        [data(m, 3, 4)],
    ),
    "in_place_on_a_batched_copy": lambda m: run(
        m, lambda a, b: a.clone().mul_(b).add_(1).sub_(b, alpha=2), [data(m, 3, 4), data(m, 4, seed=1)], (0, None)
    ),
    "in_dims_1_out_dims_1": lambda m: run(m, lambda a, b: a * b, [data(m, 4, 3), data(m, 3, 4, seed=1)], (1, 0), 1),
    "negative_dims": lambda m: run(m, lambda a: a.tanh(), [data(m, 2, 4, 3)], -1, -2),
    "comparisons_are_not_differentiable": lambda m: run(m, lambda a: (a > 0, a.eq(a.round())), [data(m, 3, 4)]),
}

REDUCTIONS: dict[str, Case] = {
    "sums_and_means": lambda m: run(
        m,
        lambda a: (a.sum(), a.sum(0), a.sum(-1, keepdim=True), a.mean((0, 1)), m.sum(a, dim=1), a.mean()),
        [data(m, 3, 2, 4)],
    ),
    "max_min_arg": lambda m: run(
        m,
        lambda a: (a.amax(-1), *a.max(dim=0), a.max(), a.min(1, keepdim=True).values, a.argmax(), a.argmin(-1)),
        [data(m, 3, 2, 4)],
    ),
    "statistics": lambda m: run(
        m,
        lambda a: (
            a.std(0), a.var(), a.logsumexp(-1), a.prod(-1), a.norm(), a.median(-1)[0], a.median(),
            *m.std_mean(a), *m.var_mean(a, 1, keepdim=True), *m.var_mean(a, keepdim=True),
        ),
        [data(m, 3, 2, 5)],
    ),
    "reductions_of_scalars": lambda m: run(m, lambda a: (a.sum(), a.sum(0), a.amax(-1, keepdim=True)), [data(m, 4)]),
    "scans_and_softmax": lambda m: run(
        m,
        lambda a: (a.cumsum(0), a.softmax(-1), a.log_softmax(0), m.nn.functional.softmax(a, dim=-1), a.cumprod(1)),
        [data(m, 3, 2, 4)],
    ),
    "sorting": lambda m: run(m, lambda a: (*a.sort(-1), *a.topk(2), a.argsort(0)), [data(m, 3, 2, 4)]),
    "max_of_two_tensors": lambda m: run(m, lambda a, b: m.max(a, b), [data(m, 3, 4), data(m, 4, seed=1)], (0, None)),
}

VIEWS: dict[str, Case] = {
    "reshape_view_flatten": lambda m: run(
        m, lambda a: (a.reshape(-1), a.view(4, 3), a.flatten(), a.reshape(2, 2, 3).flatten(1)), [data(m, 2, 3, 4)]
    ),
    "transposes": lambda m: run(
        m, lambda a: (a.t(), a.T, a.mT, a.transpose(0, 1), a.permute(1, 0), a.movedim(0, -1)), [data(m, 2, 3, 4)]
    ),
    "squeeze_unsqueeze": lambda m: run(
        m, lambda a: (a.unsqueeze(-1), a.unsqueeze(0), a.squeeze(), a.squeeze(0), m.squeeze(a, 1)), [data(m, 2, 1, 3)]
    ),
    "expand_repeat": lambda m: run(
        m,
        lambda a, b: (a.expand(2, 3, 4), a.expand(3, -1), a.repeat(2, 1), a.expand_as(b), a.reshape(4).view_as(b[0])),
        [data(m, 2, 1, 4), data(m, 3, 4, seed=1)],
        (0, None),
    ),
    "splits": lambda m: run(
        m,
        lambda a: (*a.unbind(1), *a.split(2, -1), *a.chunk(2, 0), a.narrow(1, 1, 2), a.select(0, 1)),
        [data(m, 2, 2, 3, 4)],
    ),
    "flip_roll_diagonal_unflatten": lambda m: run(
        m,
        lambda a: (a.flip(0), a.flip(0, 1), a.roll(1, 0), a.diagonal(), a.unflatten(1, (2, 2))),
        [data(m, 2, 3, 4)],
    ),
    "cat_and_stack_with_an_unbatched_member": lambda m: run(
        m,
        lambda a, b: (m.cat([a, b], 0), m.stack([a, b], -1), m.stack([b, a])),
        [data(m, 2, 3, 4), data(m, 3, 4, seed=1)],
        (0, None),
    ),
    "indexing": lambda m: run(
        m,
        lambda a, i: (a[0], a[:, 1:], a[..., None], a[i], a[[0, 2]], a[i, 1], a[1:, i], a[..., i, :]),
        [data(m, 2, 3, 4), m.tensor([2, 0])],
        (0, None),
    ),
    "gather": lambda m: run(
        m,
        lambda a, i: (a.gather(1, i), m.gather(a, 0, i)),
        [data(m, 2, 3, 4), indices(m, 3, 2, 3, 2)],
        (0, 0),
    ),
}

MATMUL: dict[str, Case] = {
    "vector_vector": lambda m: run(m, lambda a, b: a @ b, [data(m, 3, 4), data(m, 3, 4, seed=1)]),
    "batched_vector_unbatched_matrix": lambda m: run(
        m, lambda a, b: (a @ b, b.t() @ a), [data(m, 3, 4), data(m, 4, 5, seed=1)], (0, None)
    ),
    "batched_matrix_unbatched_matrix": lambda m: run(
        m, lambda a, b: (a @ b, b.t() @ a.t(), m.mm(a, b)), [data(m, 3, 2, 4), data(m, 4, 5, seed=1)], (0, None)
    ),
    "both_batched_with_stacks": lambda m: run(
        m, lambda a, b: (a @ b, m.bmm(a, b)), [data(m, 3, 2, 2, 4), data(m, 3, 2, 4, 5, seed=1)]
    ),
    "unbatched_stack_against_batched_matrix": lambda m: run(
        m, lambda a, b: b @ a, [data(m, 3, 4, 2), data(m, 5, 3, 4, seed=1)], (0, None)
    ),
    "mv_dot_outer_linear": lambda m: run(
        m,
        lambda a, w, v: (m.mv(w, a), a.dot(v), m.outer(a, v), m.nn.functional.linear(a, w, v[:3])),
        [data(m, 3, 4), data(m, 3, 4, seed=1), data(m, 4, seed=2)],
        (0, None, None),
    ),
}

LAYERS: dict[str, Case] = {
    "cross_entropy_reductions": lambda m: run(
        m,
        lambda x, t: tuple(m.nn.functional.cross_entropy(x, t, reduction=r) for r in ("mean", "sum", "none")),
        [data(m, 3, 4, 5), indices(m, 5, 3, 4)],
    ),
    "cross_entropy_one_sample_and_ignored_targets": lambda m: run(
        m,
        lambda x, t: (
            m.nn.functional.cross_entropy(x, t[0]),
            m.nn.functional.cross_entropy(x.unsqueeze(0), t[:1], ignore_index=1),
            m.nn.functional.nll_loss(x.log_softmax(-1).unsqueeze(0).expand(3, -1), t, ignore_index=2),
        ),
        [data(m, 4, 5), m.tensor([[1, 2, 0], [2, 2, 1], [0, 1, 2], [4, 4, 4]])],
    ),
    "cross_entropy_probabilities_and_smoothing": lambda m: run(
        m,
        lambda x, p, t: (
            m.nn.functional.cross_entropy(x, p.softmax(-1)),
            m.nn.functional.cross_entropy(x, t, label_smoothing=0.1),
        ),
        [data(m, 3, 4, 5), data(m, 4, 5, seed=1), indices(m, 5, 3, 4)],
        (0, None, 0),
    ),
    "pointwise_losses": lambda m: run(
        m,
        lambda x, y: (
            m.nn.functional.mse_loss(x, y),
            m.nn.functional.l1_loss(x, y, reduction="sum"),
            m.nn.functional.smooth_l1_loss(x, y, reduction="none"),
            m.nn.functional.binary_cross_entropy_with_logits(x, y.sigmoid()),
            m.nn.functional.kl_div(x.log_softmax(-1), y.softmax(-1), reduction="batchmean"),
        ),
        [data(m, 3, 2, 4), data(m, 3, 2, 4, seed=1)],
    ),
    "layer_norm": lambda m: run(
        m,
        lambda x, w, b: (m.nn.functional.layer_norm(x, (4,), w[0], b), m.nn.functional.layer_norm(x, (3, 4), None)),
        [data(m, 2, 3, 4), data(m, 2, 4, seed=1), data(m, 4, seed=2)],
        (0, None, None),
    ),
    "layer_norm_batched_affine": lambda m: run(
        m,
        lambda x, w: m.nn.functional.layer_norm(x, (4,), w, w),
        [data(m, 2, 3, 4), data(m, 2, 4, seed=1)],
    ),
    "convolution_and_pooling": lambda m: run(
        m,
        lambda x, w: (
            m.nn.functional.conv2d(x, w, padding=1),
            m.nn.functional.conv2d(x.unsqueeze(0).expand(2, -1, -1, -1), w),
            m.nn.functional.max_pool2d(x, 2),
            m.nn.functional.avg_pool2d(x.unsqueeze(0), 2),
            m.nn.functional.conv1d(x[:, 0], w[:, :, 0]),
        ),
        [data(m, 2, 3, 4, 4), data(m, 5, 3, 3, 3, seed=1)],
        (0, None),
    ),
    "embedding": lambda m: run(
        m, lambda i, w: m.nn.functional.embedding(i, w), [indices(m, 6, 3, 2), data(m, 6, 4)], (0, None)
    ),
}

NESTED: dict[str, Case] = {
    "outer_product_by_two_vmaps": lambda m: run(
        m, m.func.vmap(lambda a, b: a * b, in_dims=(None, 0)), [data(m, 3), data(m, 4, seed=1)], (0, None)
    ),
    "matmul_at_two_levels": lambda m: run(
        m, m.func.vmap(lambda a, b: a @ b, in_dims=(0, None)), [data(m, 2, 3, 4), data(m, 2, 4, 5, seed=1)]
    ),
    "reductions_and_views_inside": lambda m: run(
        m,
        m.func.vmap(lambda a: (a.softmax(-1).sum(0), a.t().reshape(-1)), in_dims=1, out_dims=(0, 1)),
        [data(m, 2, 3, 4, 2)],
        0,
        1,
    ),
    "per_sample_jacobians": lambda m: run(
        m, m.func.jacrev(lambda a: a.sin() * a.sum()), [data(m, 3, 4)]
    ),
    "per_sample_grads_of_two_levels": lambda m: run(
        m,
        m.func.vmap(m.func.grad(lambda w, a: (w * a).tanh().sum()), in_dims=(None, 0)),
        [data(m, 4), data(m, 2, 3, 4, seed=1)],
        (None, 0),
    ),
}

CASES = {
    **{f"pointwise-{k}": v for k, v in POINTWISE.items()},
    **{f"reductions-{k}": v for k, v in REDUCTIONS.items()},
    **{f"views-{k}": v for k, v in VIEWS.items()},
    **{f"matmul-{k}": v for k, v in MATMUL.items()},
    **{f"layers-{k}": v for k, v in LAYERS.items()},
    **{f"nested-{k}": v for k, v in NESTED.items()},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rule_matches_torch(oracle: Any, case: str) -> None:
    outcome = oracle.check(CASES[case])
    assert type(outcome).__name__ != "Raised", f"PyTorch raised for {case}: {outcome}"


ERRORS: dict[str, Case] = {
    "batched_boolean_mask": lambda m: m.func.vmap(lambda a: a[a > 0])(data(m, 3, 4)),
    "item": lambda m: m.func.vmap(lambda a: a.sum().item())(data(m, 3, 4)),
    "float": lambda m: m.func.vmap(lambda a: float(a.sum()))(data(m, 3, 4)),
    "data_dependent_control_flow": lambda m: m.func.vmap(lambda a: a if a.sum() > 0 else -a)(data(m, 3, 4)),
    "in_place_into_an_unbatched_tensor": lambda m: m.func.vmap(lambda a: m.zeros(4, dtype=m.float64).add_(a))(
        data(m, 3, 4)
    ),
    "copy_into_an_unbatched_tensor": lambda m: m.func.vmap(lambda a: m.zeros(4, dtype=m.float64).copy_(a))(
        data(m, 3, 4)
    ),
    "setitem_into_an_unbatched_tensor": lambda m: m.func.vmap(lambda a: _set_into(m.zeros(4, dtype=m.float64), a))(
        data(m, 3, 4)
    ),
    "backward_inside_vmap": lambda m: m.func.vmap(lambda a: a.sum().backward())(data(m, 3, 4).requires_grad_()),
    "out_dims_none_for_a_batched_output": lambda m: m.func.vmap(lambda a: a.sin(), out_dims=None)(data(m, 3, 4)),
}


def _set_into(z: Any, a: Any) -> Any:
    z[1:] = a[:3]
    return z


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_refused_as_functorch_refuses(oracle: Any, case: str) -> None:
    outcome = oracle.check(lambda m: oracle.attempt(lambda: ERRORS[case](m)))
    assert type(outcome).__name__ == "Raised", f"PyTorch did not raise for {case}: the case tests nothing"


MORE: dict[str, Case] = {
    "ops_given_as_the_function": lambda m: (
        run(m, m.dot, [data(m, 3, 4), data(m, 3, 4, seed=1)]),
        run(m, m.func.grad(m.sin), [data(m, 5)]),
        run(m, m.func.vmap(m.linalg.det), [data(m, 2, 3, 3, 3)]),
    ),
    "linalg": lambda m: run(
        m,
        lambda a, b: (m.linalg.inv(a) @ b, m.linalg.det(a), m.linalg.svdvals(a), m.linalg.vector_norm(a, dim=-1)),
        [data(m, 2, 3, 3), data(m, 3, 2, seed=1)],
        (0, None),
    ),
    "einsum": lambda m: run(
        m,
        lambda a, b, c: (m.einsum("ij,jk->ik", a, b), m.einsum("ij,j->", a, c), m.einsum("...j,jk->...k", a, b)),
        [data(m, 2, 3, 4), data(m, 4, 5, seed=1), data(m, 2, 4, seed=2)],
        (0, None, 0),
    ),
    "new_tensors": lambda m: run(
        m,
        lambda a: (a.new_zeros(2) + a.sum(), a.new_full((2, 1), 3.0) * a, a.new_tensor([1.0, 2.0]), a.new_ones(())),
        [data(m, 3, 4)],
    ),
    "setitem": lambda m: run(
        m,
        lambda a, v: _assigned(a, v),
        [data(m, 2, 3, 4), data(m, 2, 4, seed=1)],
    ),
}


def _assigned(a: Any, v: Any) -> Any:
    b = a.clone()
    b[0] = v * 2
    b[:, 1] = 0.0
    b[1:, 2:] = v[:2]
    return b


@pytest.mark.parametrize("case", sorted(MORE))
def test_more_rules_match_torch(oracle: Any, case: str) -> None:
    outcome = oracle.check(MORE[case])
    assert type(outcome).__name__ != "Raised", f"PyTorch raised for {case}: {outcome}"


LAYERS_MORE: dict[str, Case] = {
    "normalisations": lambda m: run(
        m,
        lambda x, w: (
            m.nn.functional.group_norm(x, 2, w, w),
            m.nn.functional.batch_norm(x, w.detach() * 0, w.detach().exp(), w, None, training=False),
            m.nn.functional.instance_norm(x),
        ),
        [data(m, 2, 3, 4, 5), data(m, 4, seed=1)],
        (0, None),
    ),
    "one_hot_pad_cosine_cross": lambda m: run(
        m,
        lambda i, a, b: (
            m.nn.functional.one_hot(i, 5),
            m.nn.functional.pad(a, (1, 2), value=0.5),
            m.nn.functional.cosine_similarity(a, b, dim=-1),
            m.cross(a, b.expand(4, 3), dim=-1),
        ),
        [indices(m, 5, 2, 3), data(m, 2, 4, 3, seed=1), data(m, 3, seed=2)],
        (0, 0, None),
    ),
}


@pytest.mark.parametrize("case", sorted(LAYERS_MORE))
def test_more_layers_match_torch(oracle: Any, case: str) -> None:
    outcome = oracle.check(LAYERS_MORE[case])
    assert type(outcome).__name__ != "Raised", f"PyTorch raised for {case}: {outcome}"
