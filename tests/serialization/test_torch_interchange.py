"""Checkpoints both ways: torch.load reads glassgrad.save's files and glassgrad.load reads torch.save's, against the
installed PyTorch: state dicts, optimizer state, containers, dtypes and layouts, views sharing a storage."""

from __future__ import annotations

import io
import pickle
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad

from .oracle import (
    WEIGHTS_ONLY,
    assert_same,
    cnn,
    through_glassgrad,
    through_torch,
    to_glassgrad,
    to_torch,
    trained_cnn,
)

pytestmark = pytest.mark.torch_oracle


@WEIGHTS_ONLY
def test_a_model_state_dict_from_glassgrad_loads_into_torch(tmp_path: Path, weights_only: bool) -> None:
    mine = trained_cnn(glassgrad)
    glassgrad.save(mine.state_dict(), tmp_path / "cnn.pt")
    loaded = torch.load(tmp_path / "cnn.pt", weights_only=weights_only)
    reference = cnn(torch)
    assert loaded._metadata == reference.state_dict()._metadata  # the versions torch's load_state_dict reads
    assert_same(mine.state_dict(), loaded)
    reference.load_state_dict(loaded)
    assert_same(mine.state_dict(), reference.state_dict())


@WEIGHTS_ONLY
def test_a_model_state_dict_from_torch_loads_into_glassgrad(tmp_path: Path, weights_only: bool) -> None:
    theirs = trained_cnn(torch)
    torch.save(theirs.state_dict(), tmp_path / "cnn.pt")
    loaded = glassgrad.load(tmp_path / "cnn.pt", weights_only=weights_only)
    assert_same(loaded, theirs.state_dict())
    mine = cnn(glassgrad)
    mine.load_state_dict(loaded)
    assert_same(mine.state_dict(), theirs.state_dict())


def mlp(lib: Any) -> Any:
    nn = lib.nn
    return nn.Sequential(nn.Linear(3, 4, dtype=lib.float64), nn.Tanh(), nn.Linear(4, 2, dtype=lib.float64))


def set_grads(lib: Any, model: Any, step: int) -> None:
    for i, p in enumerate(model.parameters()):
        p.grad = lib.tensor(np.sin(np.arange(p.numel()) * (i + 1.0) + step).reshape(tuple(p.shape)))


def adam(lib: Any, model: Any) -> Any:
    return lib.optim.Adam(model.parameters(), lr=0.05, betas=(0.8, 0.99), weight_decay=0.01, amsgrad=True)


def adam_steps(lib: Any, steps: int) -> tuple[Any, Any]:
    lib.manual_seed(0)
    model = mlp(lib)
    optimizer = adam(lib, model)
    for step in range(steps):
        set_grads(lib, model, step)
        optimizer.step()
    return model, optimizer


def one_more_step(lib: Any, model_state: Any, optimizer_state: Any) -> Any:
    model = mlp(lib)
    model.load_state_dict(model_state)
    optimizer = adam(lib, model)
    optimizer.load_state_dict(optimizer_state)
    set_grads(lib, model, 3)
    optimizer.step()
    return model


def test_adam_state_from_glassgrad_continues_in_torch(tmp_path: Path) -> None:
    model, optimizer = adam_steps(glassgrad, 3)
    glassgrad.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, tmp_path / "ckpt.pt")
    checkpoint = torch.load(tmp_path / "ckpt.pt")
    assert_same(optimizer.state_dict(), checkpoint["optimizer"])
    continued = one_more_step(torch, checkpoint["model"], checkpoint["optimizer"])
    direct = one_more_step(torch, to_torch(model.state_dict()), to_torch(optimizer.state_dict()))
    assert_same(to_glassgrad(continued.state_dict()), direct.state_dict())  # the file lost nothing the step uses
    set_grads(glassgrad, model, 3)
    optimizer.step()
    for mine, theirs in zip(model.parameters(), continued.parameters(), strict=True):  # and both libraries agree
        np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-9, atol=1e-12)


def test_adam_state_from_torch_continues_in_glassgrad(tmp_path: Path) -> None:
    model, optimizer = adam_steps(torch, 3)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, tmp_path / "ckpt.pt")
    checkpoint = glassgrad.load(tmp_path / "ckpt.pt")
    assert_same(checkpoint["optimizer"], optimizer.state_dict())
    continued = one_more_step(glassgrad, checkpoint["model"], checkpoint["optimizer"])
    direct = one_more_step(glassgrad, to_glassgrad(model.state_dict()), to_glassgrad(optimizer.state_dict()))
    assert_same(direct.state_dict(), to_torch(continued.state_dict()))
    set_grads(torch, model, 3)
    optimizer.step()
    for mine, theirs in zip(continued.parameters(), model.parameters(), strict=True):
        np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-9, atol=1e-12)


# -- containers, dtypes, shapes ------------------------------------------------------------------------------------
def nested(lib: Any) -> Any:
    metadata_dict = OrderedDict(b=lib.tensor([1, 2]), a=lib.tensor(3.5))
    metadata_dict._metadata = OrderedDict({"": {"version": 1}})
    return {
        "ints": [0, -1, 255, 2**31, -(2**63), 2**70], "floats": (0.0, -0.0, 1e-310, float("inf"), float("nan")),
        "text": ["", "ü€", b"\x00\xff bytes"], "flags": (True, False, None), "complex": 1 - 2j, "set": {1, 2, 3},
        "ordered": metadata_dict, "size": lib.Size([2, 0, 3]), "dtype": lib.float16, "device": lib.device("cpu"),
        "deep": {"list": [{"t": lib.ones(2, 2)}, (lib.zeros(()), [lib.tensor([True])])]},
        "param": lib.nn.Parameter(lib.tensor([1.0, -2.0])), "frozen": lib.nn.Parameter(lib.ones(1), requires_grad=False),
        "leaf": lib.tensor([0.5], requires_grad=True),
    }


@WEIGHTS_ONLY
def test_nested_containers_both_ways(weights_only: bool) -> None:
    assert_same(through_glassgrad(nested(torch), weights_only=weights_only), nested(torch))
    assert_same(nested(glassgrad), through_torch(nested(glassgrad), weights_only=weights_only))


def extremes(dtype: glassgrad.dtype) -> np.ndarray:
    np_dtype = dtype.np
    if dtype.is_floating_point:
        info = np.finfo(np_dtype)
        values = [0.0, -0.0, 1.5, -2.25, np.nan, np.inf, -np.inf, info.max, info.min, info.tiny, info.smallest_subnormal]
        return np.array(values, dtype=np_dtype)
    if dtype.is_complex:
        info = np.finfo(np_dtype)
        return np.array([0, -0.0 + 1j, 1.5 - 2.25j, complex(np.nan, 1), complex(0, np.inf), info.max - 1j * info.tiny], dtype=np_dtype)
    if np_dtype == np.bool_:
        return np.array([True, False, True])
    info = np.iinfo(np_dtype)
    return np.array([info.min, info.max, 0, 1, info.max - 1], dtype=np_dtype)


DTYPES = pytest.mark.parametrize("dtype", glassgrad._dtype.ALL_DTYPES, ids=lambda d: d.name)


def shapes_of(lib: Any, values: np.ndarray) -> dict[str, Any]:
    """0-d, empty, contiguous and non-contiguous tensors of values' dtype."""
    base = lib.tensor(np.resize(values, 24).reshape(4, 6))
    return {
        "scalar": lib.tensor(values[1:2]).reshape(()), "empty": base[:0], "empty_2d": lib.tensor(values[:0].reshape(0, 3)),
        "matrix": base, "transposed": base.t(), "strided": base[::2, 1::3], "expanded": lib.tensor(values[:3]).expand(2, 3),
        "column": base[:, 2],
    }


@DTYPES
@WEIGHTS_ONLY
def test_every_dtype_and_layout_from_glassgrad_reads_in_torch(dtype: glassgrad.dtype, weights_only: bool) -> None:
    mine = shapes_of(glassgrad, extremes(dtype))
    theirs = through_torch(mine, weights_only=weights_only)
    assert_same(mine, theirs)
    expected = shapes_of(torch, extremes(dtype))  # the same ops in torch: the same strides and offsets
    for key, t in theirs.items():
        assert (t.stride(), t.storage_offset()) == (expected[key].stride(), expected[key].storage_offset()), key


@DTYPES
@WEIGHTS_ONLY
def test_every_dtype_and_layout_from_torch_reads_in_glassgrad(dtype: glassgrad.dtype, weights_only: bool) -> None:
    theirs = shapes_of(torch, extremes(dtype))
    mine = through_glassgrad(theirs, weights_only=weights_only)
    assert_same(mine, theirs)
    for key, t in mine.items():
        if t.numel():  # NumPy reports zero strides for empty arrays
            assert t.stride() == theirs[key].stride(), key


def test_a_layout_glassgrad_lacks_is_refused_with_the_conversion_to_make() -> None:
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL torch\._utils\._rebuild_sparse_tensor.*no sparse.*v\.float\(\)"):
        through_glassgrad({"w": torch.ones(2).to_sparse()})


# -- shared storages -----------------------------------------------------------------------------------------------
def views(lib: Any) -> dict[str, Any]:
    base = lib.arange(24, dtype=lib.float32)
    return {
        "base": base, "block": base[2:14].view(3, 4), "transposed": base.view(4, 6).t(), "every_third": base[::3],
        "element": base[5], "permuted": base.view(2, 3, 4).permute(2, 0, 1), "other": lib.ones(3),
    }


def write_through(lib: Any, tensors: dict[str, Any]) -> None:
    tensors["block"][1, 2] = -7.0
    tensors["transposed"][0, 3] = 99.0
    tensors["element"].fill_(-1.0)


@WEIGHTS_ONLY
def test_views_saved_by_torch_share_one_storage_in_glassgrad(weights_only: bool) -> None:
    theirs = views(torch)
    mine = through_glassgrad(theirs, weights_only=weights_only)
    assert_same(mine, theirs)
    assert {k: t.stride() for k, t in mine.items()} == {k: t.stride() for k, t in theirs.items()}
    write_through(glassgrad, mine)
    write_through(torch, theirs)
    assert_same(mine, theirs)  # every write is seen through every other view, as in torch
    mine["other"].fill_(5.0)
    assert mine["base"].tolist() == theirs["base"].tolist()


@WEIGHTS_ONLY
def test_views_saved_by_glassgrad_share_one_storage_in_torch(weights_only: bool) -> None:
    mine = views(glassgrad)
    loaded = through_torch(mine, weights_only=weights_only)
    assert_same(mine, loaded)
    expected = views(torch)
    for key, t in loaded.items():
        assert (t.stride(), t.storage_offset()) == (expected[key].stride(), expected[key].storage_offset()), key
    pointers = {k: t.untyped_storage().data_ptr() for k, t in loaded.items()}
    assert len({pointers[k] for k in pointers if k != "other"}) == 1 and pointers["other"] != pointers["base"]
    write_through(torch, loaded)
    write_through(torch, expected)
    assert_same(to_glassgrad(loaded), expected)


def test_a_parameter_and_its_detached_view_share_a_storage_in_torch() -> None:
    p = glassgrad.nn.Parameter(glassgrad.arange(6.0))
    loaded = through_torch({"p": p, "row": p.detach().view(2, 3)[1]})
    assert loaded["p"].untyped_storage().data_ptr() == loaded["row"].untyped_storage().data_ptr()
    assert loaded["row"].storage_offset() == 3 and isinstance(loaded["p"], torch.nn.Parameter)


def test_views_of_one_buffer_as_two_dtypes_are_refused_as_torch_refuses() -> None:
    base = glassgrad.arange(4.0)
    mine = {"a": base, "b": glassgrad.Tensor._wrap(base._data.view(np.int32))}
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        glassgrad.save(mine, io.BytesIO())
    t = torch.arange(4.0)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        torch.save({"a": t, "b": t.view(torch.int32)}, io.BytesIO())


def test_parameters_keep_their_python_attributes_and_plain_tensors_cannot_carry_any() -> None:
    tagged = torch.nn.Parameter(torch.ones(2))
    tagged.tag = "frozen-embedding"
    loaded = through_glassgrad({"p": tagged})
    assert isinstance(loaded["p"], glassgrad.nn.Parameter) and loaded["p"].tag == "frozen-embedding"
    noted = torch.ones(2)
    noted.note = 3  # torch pickles it through torch._tensor._rebuild_from_type_v2
    with pytest.raises(pickle.UnpicklingError, match=r"Python attribute 'note'.*delete it in PyTorch"):
        through_glassgrad({"t": noted})


@WEIGHTS_ONLY
def test_a_pickled_torch_module_is_refused_with_what_to_save_instead(weights_only: bool) -> None:
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL torch\.nn\.modules\.linear\.Linear.*state_dict\(\)"):
        through_glassgrad(torch.nn.Linear(2, 2), weights_only=weights_only)
