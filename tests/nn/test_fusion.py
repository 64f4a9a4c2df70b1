"""nn.utils.fuse_conv_bn_eval, fuse_linear_bn_eval and their *_weights forms, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle


def _pair(m, transpose: bool):
    conv = (m.nn.ConvTranspose2d if transpose else m.nn.Conv2d)(3, 4, 3)
    bn = m.nn.BatchNorm2d(4)
    return conv, bn


def _copy_state(src, dst) -> None:
    dst.load_state_dict({k: glassgrad.tensor(v.detach().numpy()) for k, v in src.state_dict().items()})


@pytest.mark.parametrize("transpose", [False, True])
def test_fused_conv_computes_what_conv_then_bn_did(transpose: bool) -> None:
    torch.manual_seed(0)
    theirs = _pair(torch, transpose)
    with torch.no_grad():
        theirs[1].running_mean.uniform_(-1, 1)
        theirs[1].running_var.uniform_(0.5, 2)
        theirs[1].weight.uniform_(0.5, 1.5)
    ours = _pair(glassgrad, transpose)
    for t, o in zip(theirs, ours, strict=True):
        _copy_state(t, o)
        t.eval()
        o.eval()
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype(np.float32)
    fused_theirs = torch.nn.utils.fuse_conv_bn_eval(*theirs, transpose=transpose)
    fused_ours = glassgrad.nn.utils.fuse_conv_bn_eval(*ours, transpose=transpose)
    assert type(fused_ours) is type(ours[0]) and fused_ours is not ours[0]
    assert isinstance(fused_ours.weight, glassgrad.nn.Parameter) and fused_ours.weight.requires_grad
    np.testing.assert_allclose(fused_ours.weight.detach().numpy(), fused_theirs.weight.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(fused_ours.bias.detach().numpy(), fused_theirs.bias.detach().numpy(), rtol=1e-5, atol=1e-6)
    out = fused_ours(glassgrad.tensor(x)).detach().numpy()
    np.testing.assert_allclose(out, ours[1](ours[0](glassgrad.tensor(x))).detach().numpy(), rtol=1e-4, atol=1e-5)


def test_fused_linear_and_the_weights_forms() -> None:
    rng = np.random.default_rng(1)
    w, b, rm, rv, bw, bb = (rng.standard_normal(s) for s in ((4, 3), (4,), (4,), (4,), (4,), (4,)))
    rv = np.abs(rv) + 0.5
    results = []
    for m in (torch, glassgrad):
        t = [m.tensor(a) for a in (w, b, rm, rv, bw, bb)]
        linear = m.nn.utils.fuse_linear_bn_weights(t[0], None, *t[2:4], 1e-5, *t[4:])
        conv = m.nn.utils.fuse_conv_bn_weights(t[0].reshape(4, 3, 1), t[1], t[2], t[3], 1e-5, None, None)
        results.append([p.detach().numpy() for p in (*linear, *conv)])
        assert all(isinstance(p, m.nn.Parameter) for p in (*linear, *conv))
    for ours, theirs in zip(results[1], results[0], strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


CASES = {
    "training": lambda m: m.nn.utils.fuse_conv_bn_eval(m.nn.Conv1d(2, 2, 1), m.nn.BatchNorm1d(2).eval()),
    "features": lambda m: m.nn.utils.fuse_linear_bn_eval(m.nn.Linear(2, 3).eval(), m.nn.BatchNorm1d(2).eval()),
    "statistics": lambda m: m.nn.utils.fuse_linear_bn_eval(
        m.nn.Linear(2, 2).eval(), m.nn.BatchNorm1d(2, track_running_stats=False).eval()
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_fusion_errors_match_pytorchs(case: str) -> None:
    errors = []
    for m in (torch, glassgrad):
        with pytest.raises(AssertionError) as info:
            CASES[case](m)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
