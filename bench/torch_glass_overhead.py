"""What the glass costs a program that stays on real PyTorch (`glassgrad doctor --engine torch`).

The user-path W2 (nn.Linear 784-256-256-10, ReLU, F.cross_entropy, optim.SGD step, batch 64, one thread)
and W3 (three nn.Linear 2048, tanh, batch 512, loss = sum, forward and backward, two threads), timed on
PyTorch as it is and under `glassgrad.doctor.watch_torch()` (every op recorded, the watches on), the two
settings interleaved round by round after warm-up. Run with `make bench-torch-glass`. Issue 17's aim:
<= 2x on W2, <= 1.1x on W3.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

import torch

from glassgrad.doctor import watch_torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interleave import interleaved  # bench/ is not a package: its folder is on sys.path


def w2() -> Callable[[], object]:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(64, 784), torch.randint(0, 10, (64,))

    def step() -> object:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


def w3() -> Callable[[], object]:
    torch.set_num_threads(2)
    torch.manual_seed(0)
    layers = torch.nn.ModuleList(torch.nn.Linear(2048, 2048) for _ in range(3))
    x = torch.randn(512, 2048)

    def step() -> object:
        layers.zero_grad()
        h = x
        for layer in layers:
            h = torch.tanh(layer(h))
        loss = h.sum()
        loss.backward()
        return loss

    return step


SETTINGS: dict[str, Callable[[], AbstractContextManager[object]]] = {"torch": nullcontext, "torch + glass": watch_torch}


def main() -> None:
    quick = "--quick" in sys.argv
    print(f"{'':4}{'setting':16}{'median ms':>10}{'vs torch':>10}")
    for key, make, rounds, repeats in (("W2", w2, 30, 10), ("W3", w3, 8, 2)):
        times = interleaved(make(), SETTINGS, rounds=max(3, rounds // 5) if quick else rounds, repeats=repeats)
        base = statistics.median(times["torch"])
        for name, samples in times.items():
            median = statistics.median(samples)
            print(f"{key:4}{name:16}{median * 1e3:10.2f}{median / base:9.2f}x")


if __name__ == "__main__":
    main()
