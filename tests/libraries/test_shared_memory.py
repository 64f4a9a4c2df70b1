"""Tensors in shared memory across processes, against PyTorch's: share_memory_ and is_shared on tensors, storages
and modules; tensors sent through torch.multiprocessing (fork, and spawn under `glassgrad run`) rebuilt over the
same memory; in-place updates and optimizers writing into it; the memory freed when its last user is done."""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import pickle
import subprocess
import sys
import weakref
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from typing import Any

import pytest
import torch

import glassgrad
from glassgrad import storage

pytestmark = pytest.mark.torch_oracle

PROGRAMS = Path(__file__).parent / "programs"
FORK = multiprocessing.get_context("fork")


@pytest.fixture(params=["glassgrad", "torch"])
def engine(request: pytest.FixtureRequest) -> Any:
    return glassgrad if request.param == "glassgrad" else torch


def test_share_memory_moves_the_storage_in_place_and_its_views_follow(engine: Any) -> None:
    base = engine.arange(6.0)
    view, alias, untyped = base[2:], base.detach(), base.untyped_storage()
    assert not base.is_shared() and not untyped.is_shared()
    assert base.share_memory_() is base
    assert [base.is_shared(), view.is_shared(), alias.is_shared(), untyped.is_shared()] == [True] * 4
    assert base._version == 0  # PyTorch moves the bytes without counting a modification
    view[0] = 100.0
    assert base.tolist() == alias.tolist() == [0.0, 1.0, 100.0, 3.0, 4.0, 5.0]
    assert view.storage_offset() == 2 and view.data_ptr() - base.data_ptr() == 8


def test_every_kind_of_tensor_can_be_shared(engine: Any) -> None:
    leaf = engine.ones(3, requires_grad=True)
    transposed = engine.arange(12.0).reshape(3, 4).t()
    tensors = [engine.empty(0), engine.tensor(3.0), engine.arange(3), leaf, leaf * 2, transposed]
    for t in tensors:
        t.share_memory_()
    assert [t.is_shared() for t in tensors] == [True] * len(tensors)
    assert transposed.stride() == (1, 4) and transposed[1].tolist() == [1.0, 5.0, 9.0]


def test_an_untyped_storage_shares_itself(engine: Any) -> None:
    untyped = engine.UntypedStorage(4)
    assert not untyped.is_shared()
    assert untyped.share_memory_() is untyped and untyped.is_shared()


def test_module_share_memory_shares_parameters_existing_grads_and_buffers(engine: Any) -> None:
    model = engine.nn.Sequential(engine.nn.Linear(2, 2), engine.nn.BatchNorm1d(2))
    model[0].weight.grad = engine.zeros(2, 2)
    assert model.share_memory() is model
    tensors = [*model.parameters(), *model.buffers(), model[0].weight.grad]
    assert [t.is_shared() for t in tensors] == [True] * len(tensors)
    assert model[0].bias.grad is None


def test_a_lazy_module_refuses_as_pytorchs() -> None:
    messages = []
    for engine in (glassgrad, torch):
        with pytest.raises(RuntimeError) as raised:
            engine.nn.LazyLinear(3).share_memory()
        messages.append(str(raised.value))
    assert messages[0] == messages[1]


def test_plain_pickle_writes_the_values_not_a_reference(engine: Any) -> None:
    shared = engine.arange(3.0).share_memory_()
    copy = pickle.loads(pickle.dumps(shared))
    assert not copy.is_shared() and copy.tolist() == [0.0, 1.0, 2.0]


def test_a_non_leaf_that_requires_grad_is_refused_as_pytorchs() -> None:
    messages = []
    for engine in (glassgrad, torch):
        with pytest.raises(RuntimeError) as raised:
            ForkingPickler.dumps(engine.ones(2, requires_grad=True) * 2)
        messages.append(str(raised.value))
    assert messages[0] == messages[1]


def test_the_pickler_of_multiprocessing_sends_tensors_and_storages_as_references(engine: Any) -> None:
    base = engine.arange(4.0)
    view, untyped = ForkingPickler.loads(ForkingPickler.dumps((base[1:], base.untyped_storage())))
    view.fill_(7.0)
    assert base.tolist() == [0.0, 7.0, 7.0, 7.0] and view.storage_offset() == 1
    assert untyped.is_shared() and untyped.nbytes() == 16 and untyped.data_ptr() == base.untyped_storage().data_ptr()


IN_PLACE_UPDATES = {
    "data.add_": lambda p, g: p.data.add_(g, alpha=-0.1),
    "copy_": lambda p, g: p.copy_(p - g),
    "zero_": lambda p, g: p.zero_(),
    "-=": lambda p, g: p.__isub__(g),
    "index": lambda p, g: p.__setitem__(0, 5.0),
    "detach().mul_": lambda p, g: p.detach().mul_(g),
}


@pytest.mark.parametrize("update", IN_PLACE_UPDATES)
def test_in_place_updates_write_into_the_shared_memory(engine: Any, update: str) -> None:
    param = engine.nn.Parameter(engine.ones(3)).share_memory_()
    where = param.data_ptr()
    with engine.no_grad():
        IN_PLACE_UPDATES[update](param, engine.full((3,), 2.0))
    assert param.is_shared() and param.data_ptr() == where


OPTIMIZERS = {
    "SGD momentum": lambda opt, ps: opt.SGD(ps, lr=0.1, momentum=0.9),
    "SGD nesterov foreach": lambda opt, ps: opt.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, foreach=True),
    "Adam": lambda opt, ps: opt.Adam(ps, lr=0.1),
    "Adam fused": lambda opt, ps: opt.Adam(ps, lr=0.1, fused=True),
    "AdamW foreach": lambda opt, ps: opt.AdamW(ps, lr=0.1, foreach=True),
    "RMSprop": lambda opt, ps: opt.RMSprop(ps, lr=0.1, momentum=0.5),
}


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_optimizer_steps_write_into_the_shared_memory(engine: Any, optimizer: str) -> None:
    engine.manual_seed(0)
    model = engine.nn.Linear(3, 2).share_memory()
    where = [p.data_ptr() for p in model.parameters()]
    before = [p.detach().clone() for p in model.parameters()]
    step = OPTIMIZERS[optimizer](engine.optim, model.parameters())
    for _ in range(2):
        step.zero_grad()
        model(engine.ones(4, 3)).square().sum().backward()
        step.step()
    assert [p.is_shared() for p in model.parameters()] == [True, True]
    assert [p.data_ptr() for p in model.parameters()] == where
    assert not any(p.equal(b) for p, b in zip(model.parameters(), before, strict=True))


def _forked_child(shared: Any, private: Any, inbox: Any, outbox: Any, done: Any) -> None:
    shared.add_(1)
    private.add_(1)
    received = inbox.get()
    received.detach().mul_(10)
    outbox.put((received, type(received).__name__, received.requires_grad, received.grad, received.storage_offset()))
    done.wait()  # the receiver maps the memory through this process's descriptor: stay until it has


def test_under_fork_shared_tensors_stay_shared_and_queues_send_references(engine: Any) -> None:
    shared, private = engine.zeros(2).share_memory_(), engine.zeros(2)
    base = engine.arange(4.0)
    param = engine.nn.Parameter(base[1:])
    param.grad = engine.ones(3)
    inbox, outbox, done = FORK.Queue(), FORK.Queue(), FORK.Event()
    child = FORK.Process(target=_forked_child, args=(shared, private, inbox, outbox, done))
    child.start()
    inbox.put(param)
    back, kind, requires_grad, grad, offset = outbox.get(timeout=60)  # not forever if the child failed
    done.set()
    child.join()
    assert (shared.tolist(), private.tolist()) == ([1.0, 1.0], [0.0, 0.0])
    assert base.is_shared()  # sending a tensor moved it into shared memory in the sender
    assert base.tolist() == [0.0, 10.0, 20.0, 30.0]
    assert (kind, requires_grad, grad, offset) == ("Parameter", True, None, 1)  # no .grad travels
    assert back.data_ptr() == param.data_ptr()  # back home, it maps the same memory as before


def _keep_using(inbox: Any, received: Any, freed: Any, outbox: Any) -> None:
    tensor = inbox.get()
    received.set()
    freed.wait()
    tensor.add_(1)
    outbox.put(tensor.tolist())


def test_the_memory_lives_while_a_process_uses_it_and_is_freed_after() -> None:
    shm_before = set(os.listdir("/dev/shm"))
    inbox, outbox, received, freed = FORK.Queue(), FORK.Queue(), FORK.Event(), FORK.Event()
    child = FORK.Process(target=_keep_using, args=(inbox, received, freed, outbox))
    child.start()
    tensor = glassgrad.ones(3)
    inbox.put(tensor)
    assert received.wait(timeout=60)
    block = storage.shared_place(tensor)[0]
    gone, fd = weakref.ref(block), block.fd
    gc.disable()
    try:
        del tensor, block
        assert gone() is None  # by reference counting alone
    finally:
        gc.enable()
    with pytest.raises(OSError):
        os.fstat(fd)  # closed with the block
    freed.set()
    assert outbox.get(timeout=60) == [2.0, 2.0, 2.0]  # the child's mapping kept the memory
    child.join()
    assert set(os.listdir("/dev/shm")) <= shm_before  # nothing named was left behind


def test_hogwild_trainers_spawned_by_glassgrad_run_train_the_parents_model() -> None:
    shm_before = set(os.listdir("/dev/shm"))
    run = subprocess.run(
        [sys.executable, "-m", "glassgrad", "run", str(PROGRAMS / "hogwild.py")],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert run.returncode == 0 and run.stderr == "", run.stderr  # no resource_tracker warnings either
    result = json.loads(run.stdout)
    # What the two trainers do, done here by PyTorch on a private model
    model = torch.nn.Linear(3, 1)
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[0.1, -0.2, 0.3]]))
        model.bias.fill_(0.05)
    data, target = torch.arange(12.0).reshape(4, 3) / 10, torch.tensor([[1.0], [0.0], [-1.0], [0.5]])
    for _ in range(2):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
        for _ in range(3):
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(data), target).backward()
            optimizer.step()
    for got, expected in zip(result["parameters"], model.parameters(), strict=True):
        assert torch.allclose(torch.tensor(got), expected, atol=1e-6)
    assert result["shared"] == [True, True, True]
    # PyTorch 2.13 prints the same for this program run with `python hogwild.py`
    assert result["round_trip"] == [[10.0, 20.0, 30.0, 40.0], [0.0, 10.0, 20.0, 30.0, 40.0], "Tensor", 1, True, True]
    assert set(os.listdir("/dev/shm")) <= shm_before

