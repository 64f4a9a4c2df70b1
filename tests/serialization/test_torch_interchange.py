"""Checkpoints both ways: torch.load reads glassgrad.save's files and glassgrad.load reads torch.save's, against the
installed PyTorch. Tensors are compared byte for byte (NaN payloads and -0.0 included)."""

from __future__ import annotations

import io
import math
import os
import pickle
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import glassgrad

pytestmark = pytest.mark.torch_oracle

WEIGHTS_ONLY = pytest.mark.parametrize("weights_only", [True, False], ids=["weights_only", "full_pickle"])


# -- comparing and converting values across the two libraries ------------------------------------------------------
def assert_same(mine: Any, theirs: Any, where: str = "obj") -> None:
    """glassgrad value `mine` and PyTorch value `theirs` hold the same structure, types and bytes."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(mine, glassgrad.Tensor), f"{where}: {type(mine).__name__}, not a tensor"
        assert isinstance(mine, glassgrad.nn.Parameter) == isinstance(theirs, torch.nn.Parameter), where
        assert str(theirs.dtype) == f"torch.{mine.dtype.name}", f"{where}: {mine.dtype} vs {theirs.dtype}"
        assert tuple(mine.shape) == tuple(theirs.shape), f"{where}: shape {mine.shape} vs {theirs.shape}"
        assert mine.requires_grad == theirs.requires_grad, f"{where}: requires_grad"
        assert mine.detach().numpy().tobytes() == theirs.detach().numpy().tobytes(), f"{where}: values differ"
    elif isinstance(theirs, torch.Size):
        assert type(mine) is glassgrad.Size and tuple(mine) == tuple(theirs), where
    elif isinstance(theirs, torch.dtype):
        assert isinstance(mine, glassgrad.dtype) and str(theirs) == f"torch.{mine.name}", where
    elif isinstance(theirs, torch.device):
        assert isinstance(mine, glassgrad.device) and str(mine) == str(theirs), where
    elif isinstance(theirs, dict):
        assert type(mine) is type(theirs) and list(mine) == list(theirs), f"{where}: {list(mine)} vs {list(theirs)}"
        assert getattr(mine, "_metadata", None) == getattr(theirs, "_metadata", None), f"{where}: _metadata"
        for key in theirs:
            assert_same(mine[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert type(mine) is type(theirs) and len(mine) == len(theirs), f"{where}: {mine!r} vs {theirs!r}"
        for i, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(theirs, float):
        assert type(mine) is float and math.copysign(1, mine) == math.copysign(1, theirs), where
        assert mine == theirs or (math.isnan(mine) and math.isnan(theirs)), f"{where}: {mine} vs {theirs}"
    else:
        assert type(mine) is type(theirs) and mine == theirs, f"{where}: {mine!r} vs {theirs!r}"


def to_torch(value: Any) -> Any:
    """The PyTorch twin of a glassgrad value, built in memory (no file), for expectations."""
    if isinstance(value, glassgrad.Tensor):
        t = torch.from_numpy(value.detach().numpy().copy())
        if isinstance(value, glassgrad.nn.Parameter):
            return torch.nn.Parameter(t, value.requires_grad)
        return t.requires_grad_(value.requires_grad)
    if isinstance(value, glassgrad.Size):
        return torch.Size(value)
    if isinstance(value, glassgrad.dtype):
        return getattr(torch, value.name)
    if isinstance(value, glassgrad.device):
        return torch.device(str(value))
    if isinstance(value, dict):
        out = type(value)((k, to_torch(v)) for k, v in value.items())
        if hasattr(value, "_metadata"):
            out._metadata = value._metadata
        return out
    if isinstance(value, (list, tuple)):
        return type(value)(to_torch(v) for v in value)
    return value


def to_glassgrad(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        t = glassgrad.tensor(value.detach().numpy().copy())
        if isinstance(value, torch.nn.Parameter):
            return glassgrad.nn.Parameter(t, value.requires_grad)
        return t.requires_grad_(value.requires_grad)
    if isinstance(value, dict):
        out = type(value)((k, to_glassgrad(v)) for k, v in value.items())
        if hasattr(value, "_metadata"):
            out._metadata = value._metadata
        return out
    if isinstance(value, (list, tuple)):
        return type(value)(to_glassgrad(v) for v in value)
    return value


def through_torch(obj: Any, **load_args: Any) -> Any:
    buf = io.BytesIO()
    glassgrad.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **load_args)


def through_glassgrad(obj: Any, **load_args: Any) -> Any:
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return glassgrad.load(buf, **load_args)


# -- models and optimizers -----------------------------------------------------------------------------------------
def cnn(lib: Any) -> Any:
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 3, 3, padding=1), nn.BatchNorm2d(3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(3 * 4 * 4, 10), nn.ReLU(), nn.Linear(10, 2),
    )


def trained_cnn(lib: Any) -> Any:
    lib.manual_seed(0)
    model = cnn(lib)
    model(lib.linspace(-1, 1, 2 * 64).reshape(2, 1, 8, 8))  # training mode: BatchNorm's running stats move
    return model


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


def test_a_dtype_glassgrad_lacks_is_refused_with_the_conversion_to_make() -> None:
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL torch\.BFloat16Storage.*no bfloat16.*v\.float\(\)"):
        through_glassgrad({"w": torch.ones(2, dtype=torch.bfloat16)})


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


# -- the archive ---------------------------------------------------------------------------------------------------
def state_dicts() -> tuple[Any, Any]:
    mine = trained_cnn(glassgrad).state_dict()
    return mine, to_torch(mine)


def test_the_archive_is_torch_saves_record_for_record(tmp_path: Path) -> None:
    mine, theirs = state_dicts()
    glassgrad.save(mine, tmp_path / "gg.v2.pt")  # folders "gg.v2" and "pt.v2": names of one length, one layout
    torch.save(theirs, tmp_path / "pt.v2.pt")
    with zipfile.ZipFile(tmp_path / "gg.v2.pt") as a, zipfile.ZipFile(tmp_path / "pt.v2.pt") as b:
        assert [n.replace("gg.v2/", "") for n in a.namelist()] == [n.replace("pt.v2/", "") for n in b.namelist()]
        for name in b.namelist():
            if not name.endswith("serialization_id"):
                assert a.read(name.replace("pt.v2/", "gg.v2/")) == b.read(name), name
        assert len(a.read("gg.v2/.data/serialization_id")) == 40
    readers = torch._C.PyTorchFileReader(str(tmp_path / "gg.v2.pt")), torch._C.PyTorchFileReader(str(tmp_path / "pt.v2.pt"))
    for name in readers[1].get_all_records():  # every record's data at torch's own offset, 64-byte aligned
        assert readers[0].get_record_offset(name) == readers[1].get_record_offset(name), name


def test_torch_can_compute_the_storage_offsets_instead_of_reading_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from torch.utils.serialization import config

    obj = {"a": glassgrad.ones(3), "empty": glassgrad.zeros(0), "b": glassgrad.arange(100, dtype=glassgrad.int16),
           "also_empty": glassgrad.zeros(0, 2), "c": glassgrad.tensor(True)}
    glassgrad.save(obj, tmp_path / "offsets.pt")
    # With .format_version 1 torch.load may compute offsets from its writer's layout; the debug flag checks each one.
    monkeypatch.setenv("TORCH_SERIALIZATION_DEBUG", "1")
    with config.patch({"load.calculate_storage_offsets": True}):
        assert_same(obj, torch.load(tmp_path / "offsets.pt", mmap=True))


@pytest.mark.parametrize("cursor", [0, 1000, 2**32 - 100, 2**32 + 7, 2**40])
@pytest.mark.parametrize("size", [0, 1, 63, 2**32 - 2, 2**32 - 1, 2**33])
def test_the_layout_rule_is_torchs_for_large_archives_too(tmp_path: Path, cursor: int, size: int) -> None:
    from glassgrad.serialization._writer import _data_offset

    path = tmp_path / "any.pt"
    torch.save({}, path)
    reader = torch._C.PyTorchFileReader(str(path))
    assert _data_offset(cursor, len("any/data/7"), size) == reader.get_record_offset_no_read(cursor, "data/7", size, 64)


class WriteOnly(io.RawIOBase):
    """A pipe-like stream: write, no seek."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.chunks.append(bytes(data))
        return len(self.chunks[-1])


def test_paths_and_file_objects_both_ways(tmp_path: Path) -> None:
    mine, theirs = state_dicts()
    for target in (str(tmp_path / "a.pt"), tmp_path / "b.pt"):
        glassgrad.save(mine, target)
        assert_same(mine, torch.load(target))
        torch.save(theirs, target)
        assert_same(glassgrad.load(target), theirs)
    with open(tmp_path / "c.pt", "wb") as f:
        glassgrad.save(mine, f)
    with open(tmp_path / "c.pt", "rb") as f:
        assert_same(mine, torch.load(f))
    with open(tmp_path / "d.pt", "wb") as f:
        torch.save(theirs, f)
    with open(tmp_path / "d.pt", "rb") as f:
        assert_same(glassgrad.load(f), theirs)
    pipe = WriteOnly()
    glassgrad.save(mine, pipe)
    assert_same(mine, torch.load(io.BytesIO(b"".join(pipe.chunks))))
    with pytest.raises(AttributeError, match="has no callable attribute 'write'"):
        glassgrad.save(mine, object())
    with pytest.raises(RuntimeError, match=r"Parent directory .*missing does not exist"):
        glassgrad.save(mine, tmp_path / "missing" / "e.pt")


# -- map_location --------------------------------------------------------------------------------------------------
@pytest.fixture
def cuda_checkpoint(monkeypatch: pytest.MonkeyPatch) -> bytes:
    """A checkpoint whose storages torch.save tagged "cuda:0", as a GPU machine writes them."""
    monkeypatch.setattr(torch.serialization, "location_tag", lambda storage: "cuda:0")
    buf = io.BytesIO()
    torch.save({"w": torch.arange(4.0), "step": 3}, buf)
    return buf.getvalue()


def test_gpu_checkpoints_need_map_location_as_in_torch(cuda_checkpoint: bytes) -> None:
    with pytest.raises(RuntimeError) as theirs:
        torch.load(io.BytesIO(cuda_checkpoint))
    with pytest.raises(RuntimeError) as mine:
        glassgrad.load(io.BytesIO(cuda_checkpoint))
    assert str(mine.value) == str(theirs.value)
    expected = torch.load(io.BytesIO(cuda_checkpoint), map_location="cpu")
    for where in ("cpu", glassgrad.device("cpu"), {"cuda:0": "cpu"}, {"cuda:0": glassgrad.device("cpu")}, lambda storage, location: storage):
        assert_same(glassgrad.load(io.BytesIO(cuda_checkpoint), map_location=where), expected)
    with pytest.raises(RuntimeError, match="CPU"):
        glassgrad.load(io.BytesIO(cuda_checkpoint), map_location="cuda:1")


def test_big_endian_checkpoints_are_swapped_as_torch_swaps_them() -> None:
    theirs = {"f": torch.tensor([1.5, -2.0]), "i": torch.tensor([1, -2], dtype=torch.int16), "b": torch.tensor([True])}
    buf = io.BytesIO()
    torch.save(theirs, buf)
    # The file a big-endian machine writes: its storages in big-endian byte order, and the record saying so.
    big = io.BytesIO()
    with zipfile.ZipFile(buf) as src, zipfile.ZipFile(big, "w") as dst:
        storages = {f"archive/data/{k}": t for k, t in enumerate(theirs.values())}
        for name in src.namelist():
            record = src.read(name)
            if name in storages:
                record = storages[name].numpy().byteswap().tobytes()
            dst.writestr(name, b"big" if name.endswith("byteorder") else record)
    assert_same(glassgrad.load(io.BytesIO(big.getvalue())), torch.load(io.BytesIO(big.getvalue())))
    assert_same(glassgrad.load(io.BytesIO(big.getvalue())), theirs)


def test_without_a_byteorder_record_both_read_little_endian() -> None:
    mine = {"f": glassgrad.tensor([1.5, -2.0])}
    buf = io.BytesIO()
    glassgrad.save(mine, buf, _disable_byteorder_record=True)
    assert "archive/byteorder" not in zipfile.ZipFile(buf).namelist()
    assert_same(mine, torch.load(io.BytesIO(buf.getvalue())))
    theirs = {"f": torch.tensor([1.5, -2.0])}
    buf = io.BytesIO()
    torch.save(theirs, buf, _disable_byteorder_record=True)
    assert_same(glassgrad.load(io.BytesIO(buf.getvalue())), theirs)


# -- hostile files -------------------------------------------------------------------------------------------------
class RunsCommand:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> Any:
        return (os.system, (f"touch {self.marker}",))


class Evaluates:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> Any:
        return (eval, (f"open({str(self.marker)!r}, 'w')",))


@pytest.mark.parametrize("payload", [RunsCommand, Evaluates], ids=["os.system", "builtins.eval"])
def test_a_hostile_torch_checkpoint_is_refused_by_both_and_runs_nothing(tmp_path: Path, payload: type) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "model.pt"
    torch.save({"weights": torch.ones(2), "payload": payload(marker)}, path)  # torch.save lays it out
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(path)
    with pytest.raises(pickle.UnpicklingError) as mine:
        glassgrad.load(path)
    assert not marker.exists()
    refused = "posix.system" if payload is RunsCommand else "eval"  # torch names builtins without their module
    assert refused in str(theirs.value) and refused in str(mine.value)
    assert "weights_only" in str(mine.value)  # what to do, if the file is trusted


def test_modules_that_run_commands_stay_blocked_even_when_allow_listed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "model.pt"
    torch.save({"payload": RunsCommand(marker)}, path)
    allow = [(os.system, "posix.system")]
    with torch.serialization.safe_globals(allow), pytest.raises(pickle.UnpicklingError, match="posix is blocked"):
        torch.load(path)
    with glassgrad.serialization.safe_globals(allow), pytest.raises(pickle.UnpicklingError, match="posix is blocked"):
        glassgrad.load(path)
    assert not marker.exists()


class TensorRecord:
    """Pickles as torch.save pickles a tensor, with any offset, size and stride: what a forger can write."""

    STORAGE = object()

    def __init__(self, offset: int, size: tuple[int, ...], stride: tuple[int, ...]) -> None:
        self.args = (self.STORAGE, offset, size, stride, False, OrderedDict())

    def __reduce__(self) -> Any:
        return (torch._utils._rebuild_tensor_v2, self.args)


def forged_checkpoint(obj: Any, storage: np.ndarray) -> bytes:
    """An archive laid out as torch.save's, whose tensor records all view `storage` (float32)."""
    structure = io.BytesIO()
    pickler = pickle.Pickler(structure, protocol=2)
    pickler.persistent_id = lambda o: (  # type: ignore[method-assign]
        ("storage", torch.FloatStorage, "0", "cpu", storage.size) if o is TensorRecord.STORAGE else None
    )
    pickler.dump(obj)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, record in [("data.pkl", structure.getvalue()), ("byteorder", b"little"), ("data/0", storage.tobytes()), ("version", b"3\n")]:
            archive.writestr(f"archive/{name}", record)
    return out.getvalue()


def test_a_tensor_record_reaching_past_its_storage_is_refused_by_both() -> None:
    forged = forged_checkpoint({"t": TensorRecord(0, (400,), (1,))}, np.arange(4, dtype=np.float32))
    with pytest.raises(RuntimeError) as theirs:
        torch.load(io.BytesIO(forged))
    with pytest.raises(RuntimeError) as mine:
        glassgrad.load(io.BytesIO(forged))
    assert str(mine.value).startswith(str(theirs.value))  # PyTorch's sentence, then what glassgrad found


@settings(max_examples=60, deadline=None)
@given(
    numel=st.integers(0, 12), offset=st.integers(0, 14),
    dims=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 5)), max_size=3),
)
def test_any_tensor_record_is_read_as_torch_reads_it_or_refused(numel: int, offset: int, dims: list[tuple[int, int]]) -> None:
    size, stride = tuple(n for n, _ in dims), tuple(s for _, s in dims)
    forged = forged_checkpoint([TensorRecord(offset, size, stride)], np.arange(numel, dtype=np.float32))
    try:
        theirs = torch.load(io.BytesIO(forged))
    except RuntimeError:
        with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
            glassgrad.load(io.BytesIO(forged))
        return
    mine = glassgrad.load(io.BytesIO(forged))
    assert_same(mine, theirs)
    if all(size):
        assert mine[0].stride() == theirs[0].stride()


# -- glassgrad's earlier format ------------------------------------------------------------------------------------
DATA = Path(__file__).parent / "data"


@WEIGHTS_ONLY
def test_checkpoints_written_by_glassgrad_0_1_still_load(weights_only: bool) -> None:
    import json

    checkpoint = glassgrad.load(DATA / "glassgrad-0.1.0.pt", weights_only=weights_only)
    expected = json.loads((DATA / "glassgrad-0.1.0.json").read_text())
    assert {k: v.tolist() for k, v in checkpoint["model"].items()} == expected["model"]
    state = checkpoint["optimizer"]["state"]
    assert {str(i): {k: v.tolist() for k, v in s.items()} for i, s in state.items()} == expected["optimizer_state"]
    assert checkpoint["optimizer"]["param_groups"][0]["betas"] == (0.9, 0.999) and checkpoint["epoch"] == 2
    param = checkpoint["param"]
    assert isinstance(param, glassgrad.nn.Parameter) and param.requires_grad and param.tolist() == [1.5, -2.0]
    assert checkpoint["flags"].dtype == glassgrad.bool and checkpoint["dtype"] is glassgrad.float16
    assert type(checkpoint["size"]) is glassgrad.Size and checkpoint["nested"][0] == (1, "x")
    assert checkpoint["nested"][1]["empty"].shape == (0, 3) and checkpoint["nested"][1]["empty"].dtype == glassgrad.int8
    # ... and, saved again, they are PyTorch checkpoints
    assert_same(checkpoint["model"], through_torch(checkpoint["model"]))
