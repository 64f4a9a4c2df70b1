"""A Lightning Trainer.fit on CPU: a small MLP with BatchNorm and dropout, two epochs."""

import lightning as L
import torch
from _digest import state_digest
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Regressor(L.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, 1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self.net(x), y)
        print(batch_idx, repr(loss.item()))
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


L.seed_everything(0, verbose=False)
data = TensorDataset(torch.randn(64, 8), torch.randn(64, 1))
model = Regressor()
trainer = L.Trainer(
    max_epochs=2, accelerator="cpu", logger=False, enable_checkpointing=False, enable_progress_bar=False,
    enable_model_summary=False,
)
trainer.fit(model, DataLoader(data, batch_size=16, shuffle=True))
print(state_digest(model))
