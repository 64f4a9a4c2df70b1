"""A stateful spiking layer whose `reset_states` zeroes the membrane buffer in place between samples.

Source: https://github.com/synsense/sinabs/issues/5
Title: [Bug]RuntimeError: Trying to backward through the graph a second time, but the saved intermediate results have already been freed.
Pattern: carried state in a module attribute: the membrane potential buffer is the output of the last time step of
  the previous sample; `buffer.zero_()` changes its values but not its history, so the next sample's graph starts from
  a node of the previous sample's graph, which its backward already freed.
Fault: the in-place reset of the state buffers.
Fix (the maintainers' fix): detach the buffers when resetting them (`buffer.zero_().detach_()`).
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "detach-carried-state"}


class LeakyIntegrator(torch.nn.Module):
    def __init__(self, shape: tuple[int, ...], decay: float = 0.9) -> None:
        super().__init__()
        self.decay = decay
        self.register_buffer("v_mem", torch.zeros(shape))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.v_mem = self.decay * self.v_mem + x
        return torch.sigmoid(4 * (self.v_mem - 1.0))

    def reset_states(self) -> None:
        for buffer in self.buffers():
            buffer.zero_()  # <- culprit


torch.manual_seed(0)
linear = torch.nn.Linear(10, 6)
spiking = LeakyIntegrator((6,))
optimizer = torch.optim.Adam(linear.parameters(), lr=1e-3)
for _sample in range(3):
    spiking.reset_states()
    rates = torch.stack([spiking(linear(x_t)) for x_t in torch.randn(5, 10)]).mean(dim=0)
    loss = (rates - 0.2).pow(2).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
