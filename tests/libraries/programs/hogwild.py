"""Hogwild in miniature, as pytorch/examples' mnist_hogwild does it: model.share_memory(), then spawned processes
that each train the parent's model with their own SGD, and the parent reads the trained weights. The trainers run
one after the other so that the result is deterministic. Prints the parameters, whether the model and the data
are shared, and what a Queue round trip of a view shows."""

import json

import torch
import torch.multiprocessing as mp
import torch.nn.functional as F


def train(rank, model, data, target, steps):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    for _ in range(steps):
        optimizer.zero_grad()
        F.mse_loss(model(data), target).backward()
        optimizer.step()


def scale(inbox, outbox, done):
    view = inbox.get()
    view.mul_(10)
    outbox.put((view, type(view).__name__, view.storage_offset(), view.is_shared()))
    done.wait()  # the receiver maps the memory through this process's descriptor: stay until it has


if __name__ == "__main__":
    mp.set_start_method("spawn", force=True)
    model = torch.nn.Linear(3, 1)
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[0.1, -0.2, 0.3]]))
        model.bias.fill_(0.05)
    model.share_memory()
    data = torch.arange(12.0).reshape(4, 3) / 10
    target = torch.tensor([[1.0], [0.0], [-1.0], [0.5]])
    for rank in range(2):
        trainer = mp.Process(target=train, args=(rank, model, data, target, 3))
        trainer.start()
        trainer.join()
    base = torch.arange(5.0)
    inbox, outbox, done = mp.Queue(), mp.Queue(), mp.Event()
    scaler = mp.Process(target=scale, args=(inbox, outbox, done))
    scaler.start()
    inbox.put(base[1:])
    back, kind, offset, shared = outbox.get()
    done.set()
    scaler.join()
    print(json.dumps({
        "parameters": [p.tolist() for p in model.parameters()],
        "shared": [p.is_shared() for p in model.parameters()] + [data.is_shared()],
        "round_trip": [back.tolist(), base.tolist(), kind, offset, shared, back.data_ptr() == base[1:].data_ptr()],
    }))
