"""A linear regression logged to TensorBoard, written against PyTorch's API (`import torch`).

The shape of PyTorch's recipe "How to use TensorBoard with PyTorch" (pytorch/tutorials,
recipes_source/recipes/tensorboard_with_pytorch.py): a default `SummaryWriter()` (event files under ./runs/), the
loss tensor itself handed to `add_scalar("Loss/train", loss, epoch)` every epoch, then `flush()` and `close()`;
plus what such scripts grow next: a held-out loss beside the training loss through `add_scalars`, the weights'
histogram, and the run's hyperparameters with its final loss. Run it on glassgrad unchanged with
`glassgrad run examples/tensorboard_regression.py`, or on PyTorch with `python examples/tensorboard_regression.py`
(which needs the tensorboard package; glassgrad needs tensorboardX), then `tensorboard --logdir runs`.
"""

from __future__ import annotations

import torch
from torch.utils.tensorboard import SummaryWriter

EPOCHS = 20
LR = 0.1


def main() -> None:
    torch.manual_seed(0)
    x = torch.arange(-5, 5, 0.1).view(-1, 1)
    y = -5 * x + 0.1 * torch.randn(x.size())
    x_val, y_val = x[::7] + 0.05, -5 * (x[::7] + 0.05)

    model = torch.nn.Linear(1, 1)
    criterion = torch.nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    writer = SummaryWriter()

    for epoch in range(EPOCHS):
        loss = criterion(model(x), y)
        writer.add_scalar("Loss/train", loss, epoch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            val_loss = criterion(model(x_val), y_val)
        writer.add_scalars("loss", {"training": loss.item(), "validation": val_loss.item()}, epoch)
        writer.add_histogram("weight", model.weight, epoch)

    writer.add_hparams({"lr": LR, "epochs": EPOCHS}, {"hparam/final_loss": loss.item()}, run_name="hparams")
    writer.flush()
    writer.close()
    print(f"logged {EPOCHS} epochs to {writer.get_logdir()}: final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
