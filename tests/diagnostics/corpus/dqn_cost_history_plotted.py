"""A DQN agent that keeps its cost history as loss tensors and plots it at the end of training.

Source: https://github.com/ClownW/Reinforcement-learning-with-PyTorch/issues/3
Title: 5_Deep_Q_Network中RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.
Pattern: holder in an object: `self.cost_his.append(loss)` after each learning step keeps the graphs; plot_cost()
  then fails converting the history with NumPy.
Fault: the append to the cost history.
Fix (the thread): detach the loss after its backward before keeping it (or keep loss.item()).
"""

import numpy as np
import torch

EXPECTED = {"kind": "error", "error": "Can't call numpy() on Tensor that requires grad", "fix": "item-at-accumulation"}


class DeepQNetwork:
    def __init__(self) -> None:
        self.eval_net = torch.nn.Sequential(torch.nn.Linear(2, 10), torch.nn.ReLU(), torch.nn.Linear(10, 4))
        self.target_net = torch.nn.Sequential(torch.nn.Linear(2, 10), torch.nn.ReLU(), torch.nn.Linear(10, 4))
        self.optimizer = torch.optim.RMSprop(self.eval_net.parameters(), lr=0.01)
        self.cost_his: list[torch.Tensor] = []

    def learn(self, s: torch.Tensor, a: torch.Tensor, r: torch.Tensor, s_: torch.Tensor) -> None:
        q_eval = self.eval_net(s).gather(1, a)
        q_target = r + 0.9 * self.target_net(s_).max(1, keepdim=True)[0].detach()
        loss = torch.nn.functional.mse_loss(q_eval, q_target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.cost_his.append(loss)  # <- culprit

    def plot_cost(self) -> np.ndarray:
        return np.array(torch.stack(self.cost_his).numpy())


torch.manual_seed(0)
agent = DeepQNetwork()
for _step in range(5):
    agent.learn(torch.rand(16, 2), torch.randint(0, 4, (16, 1)), torch.rand(16, 1), torch.rand(16, 2))
costs = agent.plot_cost()
