"""MultiheadAttention and F.multi_head_attention_forward against PyTorch 2.13: every option and mask form, errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from .oracle import assert_raises_like_torch, check_against_torch, make_pair

rng = np.random.default_rng(0)


def randn(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape)


def causal(n: int, s: int | None = None) -> np.ndarray:
    return np.triu(np.ones((n, s or n), dtype=bool), 1)


def shared_inputs(lib: Any, *args: Any, **options: Any) -> Any:
    """An MHA called as m(x, x, x) (self-attention) or m(x, mem, mem) (key is value), as transformer layers call it."""

    class SharedInputs(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.attn = lib.nn.MultiheadAttention(*args, **options)

        def forward(self, x: Any, memory: Any = None, **kwargs: Any) -> Any:
            kv = x if memory is None else memory
            return self.attn(x, kv, kv, **kwargs)

    return SharedInputs()


KPM = np.array([[False] * 6, [False] * 4 + [True] * 2, [True] + [False] * 5])

CASES: dict[str, tuple[Any, list[Any], dict[str, Any]]] = {
    "plain": (lambda lib: lib.nn.MultiheadAttention(8, 2), [randn(5, 3, 8), randn(6, 3, 8), randn(6, 3, 8)], {}),
    "per_head_weights": (
        lambda lib: lib.nn.MultiheadAttention(8, 4), [randn(5, 3, 8), randn(6, 3, 8), randn(6, 3, 8)],
        {"average_attn_weights": False},
    ),
    "no_weights_bool_kpm": (
        lambda lib: lib.nn.MultiheadAttention(8, 2, batch_first=True), [randn(3, 5, 8), randn(3, 6, 8), randn(3, 6, 8)],
        {"key_padding_mask": KPM, "need_weights": False},
    ),
    "float_kpm_float_2d_mask": (
        lambda lib: lib.nn.MultiheadAttention(8, 4, batch_first=True), [randn(3, 5, 8), randn(3, 6, 8), randn(3, 6, 8)],
        {"key_padding_mask": np.where(KPM, -np.inf, 0.0), "attn_mask": randn(5, 6), "average_attn_weights": False},
    ),
    "bool_3d_mask_and_kpm": (
        lambda lib: lib.nn.MultiheadAttention(6, 3), [randn(4, 3, 6), randn(6, 3, 6), randn(6, 3, 6)],
        {"attn_mask": rng.random((9, 4, 6)) < 0.3, "key_padding_mask": np.array([[False] * 5 + [True]] * 3)},
    ),
    "float_3d_mask_no_weights": (
        lambda lib: lib.nn.MultiheadAttention(6, 3), [randn(4, 2, 6), randn(5, 2, 6), randn(5, 2, 6)],
        {"attn_mask": randn(6, 4, 5), "need_weights": False},
    ),
    "no_bias_bool_causal": (
        lambda lib: lib.nn.MultiheadAttention(6, 3, bias=False), [randn(4, 2, 6), randn(4, 2, 6), randn(4, 2, 6)],
        {"attn_mask": causal(4)},
    ),
    "kdim_vdim_bias_kv_zero_attn_masks": (
        lambda lib: lib.nn.MultiheadAttention(8, 2, kdim=5, vdim=3, add_bias_kv=True, add_zero_attn=True),
        [randn(4, 2, 8), randn(6, 2, 5), randn(6, 2, 3)],
        {"key_padding_mask": np.array([[False] * 5 + [True], [False] * 6]), "attn_mask": causal(4, 6)},
    ),
    "bias_kv_no_weights_3d_mask": (
        lambda lib: lib.nn.MultiheadAttention(4, 2, add_bias_kv=True, batch_first=True),
        [randn(2, 3, 4), randn(2, 5, 4), randn(2, 5, 4)], {"attn_mask": randn(4, 3, 5), "need_weights": False},
    ),
    "zero_attn_only": (
        lambda lib: lib.nn.MultiheadAttention(4, 1, add_zero_attn=True), [randn(3, 2, 4), randn(3, 2, 4), randn(3, 2, 4)],
        {"key_padding_mask": np.array([[False, True, True], [False] * 3])},
    ),
    "unbatched": (lambda lib: lib.nn.MultiheadAttention(4, 2), [randn(3, 4), randn(5, 4), randn(5, 4)], {}),
    "unbatched_kpm_3d_mask": (
        lambda lib: lib.nn.MultiheadAttention(4, 2, batch_first=True), [randn(3, 4), randn(5, 4), randn(5, 4)],
        {"key_padding_mask": np.array([False] * 4 + [True]), "attn_mask": rng.random((2, 3, 5)) < 0.3,
         "average_attn_weights": False},
    ),
    # is_causal trusts the hint: with need_weights=False and no padding mask the attention is causal whatever
    # attn_mask holds (here a zero mask, which alone would mask nothing).
    "is_causal_overrides_mask": (
        lambda lib: shared_inputs(lib, 8, 2), [randn(5, 2, 8)],
        {"attn_mask": np.zeros((5, 5)), "is_causal": True, "need_weights": False},
    ),
    "is_causal_with_weights_uses_mask": (
        lambda lib: shared_inputs(lib, 8, 2), [randn(5, 2, 8)], {"attn_mask": causal(5), "is_causal": True},
    ),
    "is_causal_with_kpm_uses_mask": (
        lambda lib: shared_inputs(lib, 8, 2, batch_first=True), [randn(2, 4, 8)],
        {"attn_mask": np.zeros((4, 4)), "is_causal": True, "need_weights": False,
         "key_padding_mask": np.array([[0.0] * 4, [0.0] * 3 + [-np.inf]])},
    ),
    "self_attention_same_tensor": (lambda lib: shared_inputs(lib, 8, 4), [randn(5, 3, 8)], {"key_padding_mask": KPM[:, :5]}),
    "self_attention_batch_first_no_bias": (
        lambda lib: shared_inputs(lib, 8, 4, batch_first=True, bias=False), [randn(3, 5, 8)], {"need_weights": False},
    ),
    "key_is_value": (
        lambda lib: shared_inputs(lib, 8, 2, batch_first=True), [randn(3, 4, 8), randn(3, 6, 8)], {"key_padding_mask": KPM},
    ),
    # A query that may attend to nothing: NaN through the explicit softmax (need_weights=True) ...
    "fully_masked_row_weights": (
        lambda lib: lib.nn.MultiheadAttention(4, 2), [randn(3, 2, 4), randn(3, 2, 4), randn(3, 2, 4)],
        {"key_padding_mask": np.array([[True] * 3, [False] * 3])},
    ),
    # ... and zeros, with zero gradients, through scaled_dot_product_attention's softmax (need_weights=False).
    "fully_masked_row_no_weights": (
        lambda lib: lib.nn.MultiheadAttention(4, 2), [randn(3, 2, 4), randn(3, 2, 4), randn(3, 2, 4)],
        {"key_padding_mask": np.array([[True] * 3, [False] * 3]), "need_weights": False,
         "attn_mask": np.array([[False, True, True], [True, True, True], [False] * 3])},
    ),
}


@pytest.mark.torch_oracle
@pytest.mark.parametrize("case", CASES.keys())
def test_multihead_attention_matches_torch(case: str) -> None:
    factory, inputs, kwargs = CASES[case]
    ref, mine = make_pair(factory)
    check_against_torch(ref, mine, inputs, kwargs)


@pytest.mark.torch_oracle
def test_eval_mode_drops_nothing_and_training_drops_weights() -> None:
    ref, mine = make_pair(lambda lib: lib.nn.MultiheadAttention(8, 2, dropout=0.5))
    inputs = [randn(5, 3, 8), randn(6, 3, 8), randn(6, 3, 8)]
    ref.eval()
    mine.eval()
    check_against_torch(ref, mine, inputs)
    glassgrad.manual_seed(0)
    fresh = glassgrad.nn.MultiheadAttention(8, 2, dropout=0.5)  # default init: weights not peaked, row sums tight
    x, kv = glassgrad.randn(5, 40, 8), glassgrad.randn(6, 40, 8)
    weights = fresh(x, kv, kv, average_attn_weights=False)[1].detach().numpy()
    assert 0.45 < (weights == 0).mean() < 0.55
    assert abs(weights.sum(-1).mean() - 1.0) < 0.1  # the kept half is scaled by 2


@pytest.mark.torch_oracle
def test_functional_with_static_kv_and_separate_weights_matches_torch() -> None:
    e, heads, bsz, tgt, src = 6, 3, 2, 4, 5
    arrays = {
        "query": randn(tgt, bsz, e), "key": randn(src, bsz, 4), "value": randn(src, bsz, 4),
        "q_proj_weight": randn(e, e), "k_proj_weight": randn(e, 4), "v_proj_weight": randn(e, 4),
        "in_proj_bias": randn(3 * e), "out_proj_weight": randn(e, e), "out_proj_bias": randn(e),
        "static_k": randn(bsz * heads, src, e // heads), "static_v": randn(bsz * heads, src, e // heads),
    }

    def run(lib: Any) -> tuple[Any, ...]:
        t = {k: lib.tensor(v, requires_grad=True) for k, v in arrays.items()}
        out, weights = lib.nn.functional.multi_head_attention_forward(
            t["query"], t["key"], t["value"], e, heads, None, t["in_proj_bias"], None, None, False, 0.0,
            t["out_proj_weight"], t["out_proj_bias"], use_separate_proj_weight=True, q_proj_weight=t["q_proj_weight"],
            k_proj_weight=t["k_proj_weight"], v_proj_weight=t["v_proj_weight"], static_k=t["static_k"],
            static_v=t["static_v"], attn_mask=lib.tensor(causal(tgt, src)), average_attn_weights=False,
        )
        (out.sum() + (weights * lib.tensor(arrays["static_k"][:, :tgt, 0].reshape(bsz, heads, tgt, 1))).sum()).backward()
        return out, weights, *(t[k].grad for k in arrays)

    for i, (mine, ref) in enumerate(zip(run(glassgrad), run(torch), strict=True)):
        if ref is None:
            assert mine is None, i
        else:
            np.testing.assert_allclose(mine.detach().numpy(), ref.detach().numpy(), rtol=1e-9, atol=1e-12, err_msg=str(i))


def mha(lib: Any, **options: Any) -> Any:
    return lib.nn.MultiheadAttention(4, 2, **options).double()


def z(lib: Any, *shape: int, dtype: str = "float64") -> Any:
    return lib.zeros(shape, dtype=getattr(lib, dtype))


ERRORS = {
    "query_rank": lambda lib: mha(lib)(z(lib, 1, 3, 2, 4), z(lib, 3, 2, 4), z(lib, 3, 2, 4)),
    "batched_key_rank": lambda lib: mha(lib)(z(lib, 3, 2, 4), z(lib, 3, 4), z(lib, 3, 2, 4)),
    "unbatched_key_rank": lambda lib: mha(lib)(z(lib, 3, 4), z(lib, 3, 2, 4), z(lib, 3, 4)),
    "batched_kpm_rank": lambda lib: mha(lib)(
        z(lib, 3, 2, 4), z(lib, 3, 2, 4), z(lib, 3, 2, 4), key_padding_mask=z(lib, 3, dtype="bool")
    ),
    "unbatched_kpm_rank": lambda lib: mha(lib)(
        z(lib, 3, 4), z(lib, 3, 4), z(lib, 3, 4), key_padding_mask=z(lib, 1, 3, dtype="bool")
    ),
    "mask_rank": lambda lib: mha(lib)(z(lib, 3, 2, 4), z(lib, 3, 2, 4), z(lib, 3, 2, 4), attn_mask=z(lib, 1, 4, 3, 3)),
    "unbatched_mask_rank": lambda lib: mha(lib)(z(lib, 3, 4), z(lib, 3, 4), z(lib, 3, 4), attn_mask=z(lib, 3)),
    "unbatched_3d_mask_shape": lambda lib: mha(lib)(z(lib, 3, 4), z(lib, 3, 4), z(lib, 3, 4), attn_mask=z(lib, 1, 3, 3)),
    "2d_mask_shape": lambda lib: mha(lib)(z(lib, 3, 2, 4), z(lib, 5, 2, 4), z(lib, 5, 2, 4), attn_mask=z(lib, 3, 3)),
    "3d_mask_shape": lambda lib: mha(lib)(z(lib, 3, 2, 4), z(lib, 5, 2, 4), z(lib, 5, 2, 4), attn_mask=z(lib, 2, 3, 5)),
    "is_causal_without_mask": lambda lib: mha(lib)(z(lib, 3, 2, 4), z(lib, 3, 2, 4), z(lib, 3, 2, 4), is_causal=True),
    "embed_dim": lambda lib: mha(lib)(z(lib, 3, 2, 6), z(lib, 3, 2, 6), z(lib, 3, 2, 6)),
    "self_attention_width": lambda lib: shared_inputs(lib, 4, 2).double()(z(lib, 3, 2, 6)),
    "memory_width": lambda lib: shared_inputs(lib, 4, 2).double()(z(lib, 3, 2, 4), z(lib, 5, 2, 6)),
    "key_value_shapes": lambda lib: mha(lib)(z(lib, 3, 2, 4), z(lib, 3, 2, 4), z(lib, 4, 2, 4)),
    "separate_key_value_lengths": lambda lib: mha(lib, kdim=3, vdim=5)(z(lib, 3, 2, 4), z(lib, 3, 2, 3), z(lib, 4, 2, 5)),
    "kpm_batch": lambda lib: mha(lib)(
        z(lib, 3, 2, 4), z(lib, 3, 2, 4), z(lib, 3, 2, 4), key_padding_mask=z(lib, 3, 3, dtype="bool")
    ),
    "kpm_length": lambda lib: mha(lib, add_zero_attn=True)(
        z(lib, 3, 2, 4), z(lib, 3, 2, 4), z(lib, 3, 2, 4), key_padding_mask=z(lib, 2, 5, dtype="bool")
    ),
    "integer_mask": lambda lib: mha(lib)(
        z(lib, 3, 2, 4), z(lib, 3, 2, 4), z(lib, 3, 2, 4), attn_mask=z(lib, 3, 3, dtype="int64")
    ),
    "heads_divide_embed_dim": lambda lib: lib.nn.MultiheadAttention(6, 4),
    "positive_sizes": lambda lib: lib.nn.MultiheadAttention(0, 2),
}


@pytest.mark.torch_oracle
@pytest.mark.parametrize("case", ERRORS.keys())
def test_errors_match_torch(case: str) -> None:
    assert_raises_like_torch(ERRORS[case])


@pytest.mark.torch_oracle
def test_mismatched_mask_types_warn_like_torch() -> None:
    for lib in (torch, glassgrad):
        x = z(lib, 3, 2, 4)
        with pytest.warns(UserWarning, match="^Support for mismatched key_padding_mask and attn_mask is deprecated"):
            mha(lib)(x, x, x, key_padding_mask=z(lib, 2, 3, dtype="bool"), attn_mask=z(lib, 3, 3))
