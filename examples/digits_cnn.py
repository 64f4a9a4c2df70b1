"""Train a small convolutional network on scikit-learn's handwritten digits, PyTorch-style.

Run with `make demo`. The program is written against PyTorch's API; only the import line
names glassgrad. It trains with Adam and a DataLoader, saves a checkpoint, reloads it into
a fresh model with the weights-only loader, and shows the graph one training step recorded.
The digits (1,797 8x8 images) ship inside scikit-learn: nothing is downloaded.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import glassgrad as torch
from glassgrad import nn
from glassgrad.diagnostics import inspect
from glassgrad.utils.data import DataLoader, TensorDataset

EPOCHS = 20
BATCH_SIZE = 32


def make_model() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 32, kernel_size=3, padding=1),  # 32 x 8 x 8
        nn.ReLU(),
        nn.MaxPool2d(2),  # 32 x 4 x 4
        nn.Conv2d(32, 64, kernel_size=3, padding=1),  # 64 x 4 x 4
        nn.ReLU(),
        nn.MaxPool2d(2),  # 64 x 2 x 2
        nn.Flatten(),
        nn.Dropout(0.25),
        nn.Linear(256, 128),
        nn.ReLU(),
        nn.Linear(128, 10),
    )


def load_data() -> tuple[TensorDataset, TensorDataset]:
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]  # pixels are 0..16; one input channel
    x_train, x_test, y_train, y_test = train_test_split(
        images, digits.target, test_size=0.2, random_state=0, stratify=digits.target
    )
    return (
        TensorDataset(torch.tensor(x_train), torch.tensor(y_train)),
        TensorDataset(torch.tensor(x_test), torch.tensor(y_test)),
    )


@torch.no_grad()
def accuracy(model: nn.Module, data: TensorDataset) -> float:
    model.eval()
    images, labels = data.tensors
    correct = (model(images).argmax(dim=1) == labels).sum().item()
    model.train()
    return correct / len(labels)


def show_one_step_graph(model: nn.Module, loss_fn: nn.Module, loader: DataLoader) -> None:
    """What glassgrad recorded for one training step, and that backward released all of it."""
    images, labels = next(iter(loader))
    loss = loss_fn(model(images), labels)
    before = inspect(loss)
    print(f"\nOne training step recorded a graph of {len(before.nodes)} nodes "
          f"({len(before.leaves)} of them parameters' accumulators) holding {before.saved_bytes:,} saved bytes.")
    loss.backward()
    after = inspect(loss)
    released = "all released" if after.saved_bytes == 0 else "NOT all released"
    print(f"After backward the same graph holds {after.saved_bytes} saved bytes: {released}.")
    print("Run `glassgrad doctor examples/digits_cnn.py` for the full report, and see README's \"The glass\".")
    model.zero_grad()


def main() -> None:
    start = time.perf_counter()
    torch.manual_seed(0)
    train_set, test_set = load_data()
    loader = DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=True, generator=torch.Generator().manual_seed(0))
    model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS)
    loss_fn = nn.CrossEntropyLoss()
    print(f"{len(train_set)} training and {len(test_set)} test digits; model:\n{model}")

    columns = (
        TextColumn("epoch {task.fields[epoch]:>2}/{task.fields[epochs]}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("loss {task.fields[loss]:.4f}  test accuracy {task.fields[accuracy]:.2%}"), TimeElapsedColumn(),
    )
    with Progress(*columns) as progress:
        task = progress.add_task("train", total=EPOCHS * len(loader), epoch=1, epochs=EPOCHS, loss=float("nan"), accuracy=0.0)
        for epoch in range(1, EPOCHS + 1):
            total, count = 0.0, 0
            for images, labels in loader:
                optimizer.zero_grad()
                loss = loss_fn(model(images), labels)
                loss.backward()
                optimizer.step()
                total, count = total + loss.item() * len(labels), count + len(labels)
                progress.update(task, advance=1, epoch=epoch, loss=total / count)
            scheduler.step()
            progress.update(task, accuracy=accuracy(model, test_set))
    trained = accuracy(model, test_set)
    train_time = time.perf_counter() - start

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "digits_cnn.pt"
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epochs": EPOCHS}, path)
        checkpoint = torch.load(path, weights_only=True)
        size = path.stat().st_size
    fresh = make_model()
    fresh.load_state_dict(checkpoint["model"])
    torch.optim.Adam(fresh.parameters(), lr=3e-3).load_state_dict(checkpoint["optimizer"])
    reloaded = accuracy(fresh, test_set)
    print(f"\nsaved a {size:,}-byte checkpoint (state_dict + Adam state) and reloaded it with weights_only=True")
    print(f"test accuracy: trained {trained:.2%}, reloaded {reloaded:.2%}"
          f" ({'identical' if reloaded == trained else 'DIFFERENT'})")

    show_one_step_graph(model, loss_fn, loader)
    print(f"\nfinal test accuracy {trained:.2%}; wall time {time.perf_counter() - start:.1f} s "
          f"({train_time:.1f} s to load the data and train)")


if __name__ == "__main__":
    # Batches this small are faster on one BLAS thread: several threads spend more time in handing
    # work over than in computing, badly so on a busy machine.
    torch.set_num_threads(1)
    main()
