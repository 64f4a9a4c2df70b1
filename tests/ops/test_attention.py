"""What the OpInfos of scaled_dot_product_attention cannot say: dropout's draws, and the second
derivatives of the fused node (PyTorch's own raise, so finite differences are the oracle)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad
import glassgrad.nn.functional as F


def _normal(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def _attention_weights(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """softmax(q k^T / sqrt(E)) from PyTorch: the expected weights, with no dropout."""
    scores = torch.tensor(q) @ torch.tensor(k).transpose(-2, -1) / np.sqrt(q.shape[-1])
    return scores.softmax(-1).numpy()


@pytest.mark.parametrize("p", [0.2, 0.5])
def test_dropout_zeroes_weights_at_rate_p_and_scales_the_rest(p: float) -> None:
    # With the identity as value, the output is the dropped-out attention weights themselves.
    q, k = _normal(4, 8, 16, 3), _normal(4, 8, 16, 3, seed=1)
    eye = np.broadcast_to(np.eye(16), (4, 8, 16, 16))
    out = F.scaled_dot_product_attention(*(glassgrad.tensor(a) for a in (q, k, eye)), dropout_p=p).numpy()
    weights = _attention_weights(q, k)
    dropped = out == 0
    assert abs(dropped.mean() - p) < 0.03
    np.testing.assert_allclose(out[~dropped], weights[~dropped] / (1 - p), rtol=1e-12)


def test_dropout_averages_to_the_attention_without_it() -> None:
    q, k, v = _normal(2, 6, 4), _normal(2, 6, 4, seed=1), _normal(2, 6, 5, seed=2)
    args = [glassgrad.tensor(a) for a in (q, k, v)]
    mean = np.mean([F.scaled_dot_product_attention(*args, dropout_p=0.3).numpy() for _ in range(2000)], axis=0)
    expected = _attention_weights(q, k) @ v
    np.testing.assert_allclose(mean, expected, atol=0.1)


def test_dropout_draws_from_glassgrads_generator() -> None:
    args = [glassgrad.tensor(_normal(3, 5, 4, seed=s)) for s in range(3)]
    glassgrad.manual_seed(7)
    first = F.scaled_dot_product_attention(*args, dropout_p=0.5).numpy()
    second = F.scaled_dot_product_attention(*args, dropout_p=0.5).numpy()
    glassgrad.manual_seed(7)
    assert np.array_equal(F.scaled_dot_product_attention(*args, dropout_p=0.5).numpy(), first)
    assert not np.array_equal(first, second)


def test_dropout_gradient_flows_only_through_kept_weights() -> None:
    # value = identity again: d(sum of out * seed)/d(value) row j sums the kept weights' seeds, scaled by 1/(1-p).
    q, k = (glassgrad.tensor(_normal(1, 6, 3, seed=s)) for s in range(2))
    v = glassgrad.tensor(np.eye(6)[None], requires_grad=True)
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    (grad,) = glassgrad.autograd.grad(out.sum(), v)
    kept = out.detach().numpy()  # out[i, j] is weight (i, j) / 0.5 where kept, 0 where dropped
    np.testing.assert_allclose(grad.numpy(), np.broadcast_to(kept.sum(-2)[..., None], (1, 6, 6)), rtol=1e-12)


FUSED_CASES = {
    "plain": {},
    "causal": {"is_causal": True},
    "bool_mask": {"attn_mask": np.array([[True, False, True], [False, False, False]])},  # a query that sees no key
    "float_mask_and_scale": {"attn_mask": _normal(1, 1, 2, 3, seed=9), "scale": 0.4},
    "grouped_query": {"enable_gqa": True},
}


@pytest.mark.parametrize("case", list(FUSED_CASES))
def test_fused_node_has_second_derivatives(case: str) -> None:
    kw = dict(FUSED_CASES[case])
    if "attn_mask" in kw:
        kw["attn_mask"] = glassgrad.tensor(kw["attn_mask"])
    kv_heads = 1 if kw.get("enable_gqa") else 2
    q = glassgrad.tensor(_normal(1, 2, 2, 2), requires_grad=True)
    k, v = (glassgrad.tensor(_normal(1, kv_heads, 3, 2, seed=s), requires_grad=True) for s in (1, 2))

    def attend(*qkv: glassgrad.Tensor) -> glassgrad.Tensor:
        return F.scaled_dot_product_attention(*qkv, **kw)

    assert type(attend(q, k, v).grad_fn).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert glassgrad.autograd.gradcheck(attend, (q, k, v))
    assert glassgrad.autograd.gradgradcheck(attend, (q, k, v))


def test_fused_node_saves_only_what_the_gradients_of_its_inputs_need() -> None:
    q, k = (glassgrad.tensor(_normal(1, 1, 2, 2, seed=s)) for s in range(2))
    v = glassgrad.tensor(_normal(1, 1, 2, 2, seed=2), requires_grad=True)
    node = F.scaled_dot_product_attention(q, k, v).grad_fn
    # value's gradient is the weights (from query and key) applied to the output's: value itself is not needed.
    assert set(node._saved) == {"query", "key", "attn_mask", "is_causal", "scale", "value_heads"}
    assert node._saved_query is not None and node._saved_scale == pytest.approx(2**-0.5)
