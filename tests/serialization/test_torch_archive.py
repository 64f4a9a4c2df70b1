"""The archive itself, against the installed PyTorch: torch.save's records and offsets, paths and file objects,
map_location and byte order, hostile and forged files, and glassgrad 0.1's archives."""

from __future__ import annotations

import io
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

from .oracle import WEIGHTS_ONLY, assert_same, through_torch, to_torch, trained_cnn

pytestmark = pytest.mark.torch_oracle


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
    assert str(mine.value).startswith(str(theirs.value))  # PyTorch's words, then glassgrad's advice
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
