"""glassgrad.save/load: round trips, the weights_only security model, damaged files, and safetensors interchange."""

from __future__ import annotations

import io
import pickle
import zipfile
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import glassgrad
from glassgrad import nn, serialization

DOCUMENTED = (RuntimeError, pickle.UnpicklingError)


def round_trip(obj, **kwargs):
    buf = io.BytesIO()
    glassgrad.save(obj, buf)
    buf.seek(0)
    return glassgrad.load(buf, **kwargs)


def test_tensors_state_dicts_and_nested_containers_round_trip() -> None:
    t = glassgrad.arange(6, dtype=glassgrad.float64).reshape(2, 3)
    obj = {
        "t": t, "same": t, "ints": glassgrad.tensor([1, 2], dtype=glassgrad.int16), "flag": glassgrad.tensor([True]),
        "nested": [(1, 2.5, "x", None), {"p": nn.Parameter(glassgrad.ones(2))}], "dtype": glassgrad.float16,
        "size": glassgrad.Size([2, 3]), "counter": OrderedDict(a=1), "empty": glassgrad.zeros(0, 3),
    }
    back = round_trip(obj)
    assert back["t"].tolist() == t.tolist() and back["t"].dtype == glassgrad.float64
    assert back["same"] is back["t"]
    assert back["ints"].dtype == glassgrad.int16 and back["flag"].tolist() == [True]
    assert back["nested"][0] == (1, 2.5, "x", None)
    p = back["nested"][1]["p"]
    assert isinstance(p, nn.Parameter) and p.requires_grad
    assert back["dtype"] is glassgrad.float16 and back["size"] == (2, 3) and type(back["size"]) is glassgrad.Size
    assert type(back["counter"]) is OrderedDict and back["empty"].shape == (0, 3)


def test_state_dict_and_whole_module_and_optimizer(tmp_path: Path) -> None:
    model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 1))
    opt = glassgrad.optim.Adam(model.parameters(), lr=0.01)
    model(glassgrad.randn(2, 3)).sum().backward()
    opt.step()
    path = tmp_path / "ckpt.pt"
    glassgrad.save({"model": model.state_dict(), "optim": opt.state_dict()}, path)
    ckpt = glassgrad.load(path)
    fresh = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 1))
    fresh.load_state_dict(ckpt["model"])
    assert all(np.array_equal(a.detach().numpy(), b.detach().numpy()) for a, b in zip(fresh.parameters(), model.parameters(), strict=True))
    glassgrad.optim.Adam(fresh.parameters()).load_state_dict(ckpt["optim"])
    glassgrad.save(model, path)
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL glassgrad\.nn\.modules\.container\.Sequential was not an allowed global"):
        glassgrad.load(path)
    whole = glassgrad.load(path, weights_only=False)
    assert repr(whole) == repr(model) and whole[0].weight.tolist() == model[0].weight.tolist()
    with serialization.safe_globals([nn.Sequential, nn.Linear, set]):
        assert repr(glassgrad.load(path)) == repr(model)


class Exploit:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        import os

        return (os.system, (f"touch {self.marker}",))


def malicious_checkpoint(marker: Path) -> bytes:
    """A checkpoint laid out as save() lays it out, whose structure pickle would run a shell command."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        archive.writestr("archive/data.pkl", pickle.dumps({"weights": [1.0], "payload": Exploit(marker)}, protocol=2))
        archive.writestr("archive/byteorder", "little")
    return buf.getvalue()


def test_a_malicious_pickle_is_refused_and_never_runs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    path.write_bytes(malicious_checkpoint(marker))
    with pytest.raises(pickle.UnpicklingError) as err:
        glassgrad.load(path)
    assert "Weights only load failed" in str(err.value)
    assert "Trying to load unsupported GLOBAL posix.system whose module posix is blocked" in str(err.value)
    assert "`weights_only` set to `False`" in str(err.value)
    assert not marker.exists()
    glassgrad.load(path, weights_only=False)  # the documented opt-in does what pickle does: here, run the command
    assert marker.exists()


def test_non_archives_raise_runtime_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello")
    with pytest.raises(RuntimeError, match=r"notes.txt: PytorchStreamReader failed reading zip archive"):
        glassgrad.load(path)
    with pytest.raises(FileNotFoundError):
        glassgrad.load(tmp_path / "missing.pt")


def _valid_checkpoint() -> bytes:
    buf = io.BytesIO()
    glassgrad.save({"w": glassgrad.arange(12.0).reshape(3, 4), "meta": {"epoch": 3, "names": ["a", "b"]}}, buf)
    return buf.getvalue()


VALID = _valid_checkpoint()


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_fuzzed_files_only_raise_documented_errors(data) -> None:
    blob = bytearray(VALID)
    if data.draw(st.booleans(), label="truncate"):
        blob = blob[: data.draw(st.integers(0, len(blob) - 1), label="cut")]
    else:
        for _ in range(data.draw(st.integers(1, 8), label="flips")):
            i = data.draw(st.integers(0, len(blob) - 1), label="at")
            blob[i] ^= data.draw(st.integers(1, 255), label="xor")
    try:
        loaded = glassgrad.load(io.BytesIO(bytes(blob)))
    except DOCUMENTED:
        return
    # A flip may land in bytes no reader looks at (zip comments, unused header fields): then the load must be whole.
    assert loaded["w"].tolist() == np.arange(12.0).reshape(3, 4).tolist() and loaded["meta"] == {"epoch": 3, "names": ["a", "b"]}


@pytest.mark.torch_oracle
def test_safetensors_round_trip_through_real_torch(tmp_path: Path) -> None:
    from safetensors.torch import load_file, save_file

    model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2, dtype=glassgrad.float64))
    model.register_buffer("steps", glassgrad.tensor([7]))
    path = tmp_path / "model.safetensors"
    serialization.save_safetensors(model.state_dict(), path)
    loaded = load_file(str(path))
    ref = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2, dtype=torch.float64))
    ref.register_buffer("steps", torch.tensor([0]))
    ref.load_state_dict(loaded)
    for key, value in model.state_dict().items():
        assert np.array_equal(loaded[key].numpy(), value.numpy()) and str(loaded[key].dtype).endswith(value.dtype.name)
    back_path = tmp_path / "back.safetensors"
    save_file({k: v.contiguous() for k, v in ref.state_dict().items()}, str(back_path))
    back = glassgrad.load_safetensors(back_path)
    assert sorted(back) == sorted(model.state_dict())  # safetensors stores keys in its own order
    for key, value in model.state_dict().items():
        assert np.array_equal(back[key].numpy(), value.numpy()) and back[key].dtype == value.dtype
