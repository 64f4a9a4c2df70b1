"""nn.Module, containers, Linear/Flatten and friends against PyTorch 2.13."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
import torch

import glassgrad
from glassgrad import nn

from .oracle import copy_from_torch


def build(lib, dtype):
    lib.manual_seed(0)
    return lib.nn.Sequential(
        lib.nn.Linear(4, 8, dtype=dtype),
        lib.nn.Flatten(),
        lib.nn.Sequential(OrderedDict(hidden=lib.nn.Linear(8, 5, dtype=dtype), out=lib.nn.Linear(5, 3, bias=False, dtype=dtype))),
        lib.nn.Unflatten(1, (3, 1)),
    )


@pytest.mark.torch_oracle
def test_mlp_outputs_and_parameter_gradients_match_torch() -> None:
    ref = build(torch, torch.float64)
    mine = build(glassgrad, glassgrad.float64)
    copy_from_torch(mine, ref)
    x = np.random.default_rng(0).standard_normal((6, 4))
    out_ref = ref(torch.tensor(x))
    out = mine(glassgrad.tensor(x))
    np.testing.assert_allclose(out.detach().numpy(), out_ref.detach().numpy(), rtol=1e-12)
    (out_ref**2).sum().backward()
    (out**2).sum().backward()
    ref_grads = {k: p.grad.numpy() for k, p in ref.named_parameters()}
    grads = {k: p.grad.numpy() for k, p in mine.named_parameters()}
    assert grads.keys() == ref_grads.keys()
    for k in grads:
        np.testing.assert_allclose(grads[k], ref_grads[k], rtol=1e-10)


@pytest.mark.torch_oracle
def test_state_dict_keys_shapes_and_repr_match_torch() -> None:
    ref, mine = build(torch, torch.float32), build(glassgrad, glassgrad.float32)
    assert [(k, tuple(v.shape)) for k, v in mine.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in ref.state_dict().items()
    ]
    assert repr(mine) == repr(ref)
    assert repr(nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.Identity()])) == repr(
        torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)] + [torch.nn.Identity()])
    )
    assert repr(nn.Bilinear(2, 3, 4)) == repr(torch.nn.Bilinear(2, 3, 4))
    assert [n for n, _ in mine.named_modules()] == [n for n, _ in ref.named_modules()]
    assert [n for n, _ in mine.named_children()] == [n for n, _ in ref.named_children()]


@pytest.mark.torch_oracle
@pytest.mark.parametrize(
    "edit",
    [
        lambda sd: sd.pop("2.out.weight"),
        lambda sd: sd.__setitem__("extra.weight", sd["0.bias"]),
        lambda sd: sd.__setitem__("0.bias", sd["0.weight"]),
    ],
    ids=["missing", "unexpected", "shape"],
)
def test_load_state_dict_errors_match_torch(edit) -> None:
    ref, mine = build(torch, torch.float32), build(glassgrad, glassgrad.float32)
    ref_sd, sd = ref.state_dict(), mine.state_dict()
    edit(ref_sd)
    edit(sd)
    with pytest.raises(RuntimeError) as ref_err:
        ref.load_state_dict(ref_sd)
    with pytest.raises(RuntimeError) as err:
        mine.load_state_dict(sd)
    assert str(err.value) == str(ref_err.value)
    if "shape" not in str(err.value):
        result, ref_result = mine.load_state_dict(sd, strict=False), ref.load_state_dict(ref_sd, strict=False)
        assert (result.missing_keys, result.unexpected_keys) == (ref_result.missing_keys, ref_result.unexpected_keys)


def test_load_state_dict_reports_all_keys_matched() -> None:
    m = nn.Linear(2, 3)
    assert repr(m.load_state_dict(m.state_dict())) == "<All keys matched successfully>"


def test_registration_buffers_and_attribute_errors() -> None:
    m = nn.Module()
    m.w = nn.Parameter(glassgrad.ones(2))
    m.register_buffer("running", glassgrad.zeros(2))
    m.register_buffer("scratch", glassgrad.zeros(1), persistent=False)
    m.child = nn.Linear(2, 2)
    assert list(m.state_dict()) == ["w", "running", "child.weight", "child.bias"]
    assert [n for n, _ in m.named_buffers()] == ["running", "scratch"]
    with pytest.raises(TypeError, match="cannot assign 'int' as parameter 'w'"):
        m.w = 3
    with pytest.raises(KeyError, match="attribute 'child' already exists"):
        m.register_buffer("child", glassgrad.zeros(1))
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nope'"):
        _ = m.nope
    del m.w
    assert "w" not in dict(m.named_parameters())
    assert "running" in dir(m) and m.get_submodule("child") is m.child
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, shared)
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4


def test_containers() -> None:
    seq = nn.Sequential(nn.Linear(2, 3), nn.Identity(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear) and len(seq[1:]) == 2
    seq.append(nn.Flatten())
    del seq[1]
    assert list(seq._modules) == ["0", "1", "2"]
    with pytest.raises(IndexError, match="index 5 is out of range"):
        seq[5]
    ml = nn.ModuleList([nn.Linear(1, 1)])
    ml += [nn.Identity()]
    assert len(ml) == 2 and len(list(ml.parameters())) == 2
    md = nn.ModuleDict({"a": nn.Linear(1, 1)})
    md["b"] = nn.Identity()
    assert list(md) == ["a", "b"] and "a" in md
    pl = nn.ParameterList([glassgrad.ones(2), nn.Parameter(glassgrad.zeros(3))])
    assert all(isinstance(p, nn.Parameter) for p in pl) and len(list(pl.parameters())) == 2
    pd = nn.ParameterDict({"x": glassgrad.ones(1)})
    assert isinstance(pd["x"], nn.Parameter) and list(pd.keys()) == ["x"]
    assert "(x): Parameter containing: [glassgrad.float32 of size 1]" in repr(pd)


def test_parameter_is_a_tensor_alias_and_survives_deepcopy() -> None:
    import copy

    data = glassgrad.ones(3)
    p = nn.Parameter(data)
    assert isinstance(p, glassgrad.Tensor) and p.requires_grad and p.is_leaf
    assert p.data_ptr() == data.data_ptr()
    assert repr(p) == repr(torch.nn.Parameter(torch.ones(3))).replace("torch", "glassgrad")
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q.requires_grad and q.data_ptr() != p.data_ptr()


def test_forward_hooks_and_train_eval_and_dtype() -> None:
    m = nn.Sequential(nn.Linear(2, 2))
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
    h2 = m.register_forward_hook(lambda mod, args, out: calls.append(out.shape) or out + 1)
    x = glassgrad.ones(1, 2)
    with glassgrad.no_grad():
        hooked = m(x)
        h1.remove()
        h2.remove()
        plain = m(x * 2)
    np.testing.assert_allclose(hooked.numpy(), plain.numpy() + 1)
    assert calls == [glassgrad.Size([1, 2])]
    assert not m.eval().training and not m[0].training and m.train().training
    weight = m[0].weight
    m.double()
    assert m[0].weight is weight and weight.dtype == glassgrad.float64
    m.zero_grad()
    m.requires_grad_(False)
    assert not weight.requires_grad


@pytest.mark.torch_oracle
def test_full_backward_hooks_see_the_same_gradients_as_torch() -> None:
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2, dtype=lib.float64)
        with lib.no_grad():
            m.weight.copy_(lib.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]], dtype=lib.float64))
        seen = []
        m.register_full_backward_pre_hook(lambda mod, go: seen.append(("pre", go[0].tolist())))
        m.register_full_backward_hook(lambda mod, gi, go: (seen.append(("post", gi[0].tolist(), go[0].tolist())), (gi[0] * 10,))[1])
        x = lib.tensor([[1.0, 2.0, 3.0]], dtype=lib.float64, requires_grad=True)
        (m(x) * lib.tensor([[1.0, -2.0]], dtype=lib.float64)).sum().backward()
        return seen, x.grad.tolist()

    assert run(glassgrad) == run(torch)


def test_init_functions_write_in_place_under_no_grad() -> None:
    w = nn.Parameter(glassgrad.empty(64, 32))
    before = w._version
    nn.init.kaiming_uniform_(w, a=5**0.5)
    bound = 1 / 32**0.5
    assert w._version == before + 1 and w.grad_fn is None
    assert float(w.abs().max()) <= bound
    nn.init.orthogonal_(w)
    q = w.detach().numpy()
    np.testing.assert_allclose(q.T @ q, np.eye(32), atol=1e-5)
    nn.init.trunc_normal_(w, std=0.02, a=-0.04, b=0.04)
    assert float(w.abs().max()) <= 0.04
    nn.init.xavier_normal_(w)
    nn.init.eye_(w)
    assert nn.init.calculate_gain("leaky_relu", 0.2) == torch.nn.init.calculate_gain("leaky_relu", 0.2)
    assert nn.init._calculate_fan_in_and_fan_out(glassgrad.empty(4, 3, 5)) == (15, 20)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(glassgrad.empty(3))


@pytest.mark.torch_oracle
@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_clip_grad_norm_matches_torch(norm_type: float) -> None:
    grads = [np.arange(6.0).reshape(2, 3) - 2, np.array([3.0, -4.0])]
    ref = [torch.nn.Parameter(torch.zeros(g.shape, dtype=torch.float64)) for g in grads]
    mine = [nn.Parameter(glassgrad.zeros(*g.shape, dtype=glassgrad.float64)) for g in grads]
    for r, m, g in zip(ref, mine, grads, strict=True):
        r.grad, m.grad = torch.tensor(g), glassgrad.tensor(g)
    total_ref = torch.nn.utils.clip_grad_norm_(ref, 1.5, norm_type)
    total = nn.utils.clip_grad_norm_(mine, 1.5, norm_type)
    np.testing.assert_allclose(total.item(), total_ref.item())
    for r, m in zip(ref, mine, strict=True):
        np.testing.assert_allclose(m.grad.numpy(), r.grad.numpy(), rtol=1e-12)
    nn.utils.clip_grad_value_(mine, 0.1)
    assert all(float(m.grad.abs().max()) <= 0.1 for m in mine)
    mine[0].grad = glassgrad.full((2, 3), float("nan"), dtype=glassgrad.float64)  # a gradient must match its tensor's shape
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        nn.utils.clip_grad_norm_(mine, 1.0, error_if_nonfinite=True)


def test_parameters_to_vector_round_trip() -> None:
    m = nn.Linear(3, 2)
    vec = nn.utils.parameters_to_vector(m.parameters())
    assert vec.shape == glassgrad.Size([8]) and vec.grad_fn is not None
    nn.utils.vector_to_parameters(glassgrad.arange(8.0), m.parameters())
    assert m.weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and m.bias.tolist() == [6.0, 7.0]
