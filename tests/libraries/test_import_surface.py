"""The smaller names transformers and Lightning reach, against PyTorch: placements, sdpa_kernel, _parse_to,
DataLoader iterators, record_function, the distributed constants; and names that exist only to be imported
raise when used, naming themselves."""

from __future__ import annotations

import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle


def test_placements_compare_print_and_split_as_pytorchs() -> None:
    from torch.distributed.tensor import placement_types as theirs

    from glassgrad.distributed.tensor import placement_types as ours

    for make in (lambda m: m.Shard(1), lambda m: m.Replicate(), lambda m: m.Partial(), lambda m: m._StridedShard(0, split_factor=2)):
        assert repr(make(ours)) == repr(make(theirs))
    assert str(ours.Shard(1)) == str(theirs.Shard(1)) and ours.Shard(1) == ours.Shard(1)
    assert ours.Shard(0).is_shard() and ours.Replicate().is_replicate() and ours.Partial().is_partial()
    for size, chunks in ((10, 4), (2, 4), (0, 3)):
        for rank in range(chunks):
            assert ours.Shard.local_shard_size_and_offset(size, chunks, rank) == theirs.Shard.local_shard_size_and_offset(
                size, chunks, rank
            )


def test_sdpa_kernel_checks_its_argument_and_changes_nothing() -> None:
    from glassgrad.nn.attention import SDPBackend, sdpa_kernel

    assert {b.name: b.value for b in SDPBackend} == {
        name: int(value) for name, value in torch.nn.attention.SDPBackend.__members__.items()
    }
    q = glassgrad.ones(1, 2, 3, 4)
    with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION]):
        out = glassgrad.nn.functional.scaled_dot_product_attention(q, q, q)
    assert out.shape == q.shape
    with pytest.raises(AssertionError), sdpa_kernel("math"):
        pass


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [(("cpu",), {}), (("float64",), {}), (("cpu", "float16"), {}), ((), {"device": "cpu", "dtype": "float32", "non_blocking": True})],
)
def test_parse_to_reads_to_arguments_as_pytorch(args: tuple, kwargs: dict) -> None:
    def resolve(lib, values):
        return [getattr(lib, v) if isinstance(v, str) and v != "cpu" else v for v in values]

    ours = glassgrad._C._nn._parse_to(*resolve(glassgrad, args), **dict(zip(kwargs, resolve(glassgrad, kwargs.values()), strict=True)))
    theirs = torch._C._nn._parse_to(*resolve(torch, args), **dict(zip(kwargs, resolve(torch, kwargs.values()), strict=True)))
    assert [str(x).replace("glassgrad.", "torch.") for x in ours] == [str(x) for x in theirs]


def test_dataloader_iterators_are_classes_lightning_can_test() -> None:
    from glassgrad.utils.data.dataloader import _BaseDataLoaderIter, _MultiProcessingDataLoaderIter

    loader = glassgrad.utils.data.DataLoader(list(range(5)), batch_size=2)
    iterator = iter(loader)
    assert isinstance(iterator, _BaseDataLoaderIter) and not isinstance(iterator, _MultiProcessingDataLoaderIter)
    assert len(iterator) == len(iter(torch.utils.data.DataLoader(list(range(5)), batch_size=2))) == 3
    assert [b.tolist() for b in iterator] == [[0, 1], [2, 3], [4]]
    assert loader.multiprocessing_context is None and loader._iterator is None


def test_record_function_outside_a_profiler_runs_the_code_as_written() -> None:
    from glassgrad.autograd.profiler import record_function

    with record_function("step"):
        x = glassgrad.ones(2) * 2

    @record_function("double")
    def double(t):
        return t * 2

    assert double(x).tolist() == [4.0, 4.0]
    assert {a.name: a.value for a in glassgrad.profiler.ProfilerAction} == {
        name: a.value for name, a in torch.profiler.ProfilerAction.__members__.items()
    }
    assert {a.name: a.value for a in glassgrad.profiler.ProfilerActivity} == {
        name: int(a) for name, a in torch.profiler.ProfilerActivity.__members__.items()
    }


def test_distributed_constants_and_torchelastic(monkeypatch: pytest.MonkeyPatch) -> None:
    from glassgrad.distributed.constants import default_pg_timeout

    assert default_pg_timeout == torch.distributed.constants.default_pg_timeout
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    assert glassgrad.distributed.is_torchelastic_launched() is torch.distributed.is_torchelastic_launched() is False
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "1")
    assert glassgrad.distributed.is_torchelastic_launched() is torch.distributed.is_torchelastic_launched() is True


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("glassgrad.distributed.tensor", "DTensor"),
        ("glassgrad.distributed.fsdp", "FullyShardedDataParallel"),
        ("glassgrad.nn.attention.flex_attention", "create_block_mask"),
        ("glassgrad.nn.utils.prune", "l1_unstructured"),
        ("glassgrad.optim.swa_utils", "AveragedModel"),
        ("glassgrad.fx", "GraphModule"),
    ],
)
def test_names_made_only_for_imports_raise_when_used(module: str, name: str) -> None:
    import importlib

    placeholder = getattr(importlib.import_module(module), name)
    assert not isinstance(glassgrad.ones(1), placeholder)
    torch_name = "torch" + f"{module}.{name}".removeprefix("glassgrad")
    with pytest.raises(AttributeError, match=f"glassgrad does not implement {torch_name} yet"):
        placeholder()


def test_entering_a_torch_function_mode_says_it_is_not_implemented() -> None:
    class Mode(glassgrad.overrides.TorchFunctionMode):
        pass

    with pytest.raises(AttributeError, match="TorchFunctionMode"), Mode():
        pass
    assert glassgrad.overrides.has_torch_function((glassgrad.ones(1),)) is False
