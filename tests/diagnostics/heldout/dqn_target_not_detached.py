"""DQN whose TD target comes from a separate target network, without detach().

Source: https://github.com/seungeunrho/minimalRL/pull/41
Title: Detach the target
Pattern: correct program: the PR proposed detaching the target; the answer was that the target is computed by
  `q_target`, whose parameters the optimizer does not own, so nothing learns from it and each step's graph is
  freed by its own backward (the PR was closed).
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
q = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
q_target = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
q_target.load_state_dict(q.state_dict())
optimizer = torch.optim.Adam(q.parameters(), lr=5e-4)
gamma = 0.98
for step in range(8):
    s, a, r = torch.randn(16, 4), torch.randint(0, 2, (16, 1)), torch.randn(16, 1)
    s_prime, done_mask = torch.randn(16, 4), torch.randint(0, 2, (16, 1)).float()
    q_a = q(s).gather(1, a)
    max_q_prime = q_target(s_prime).max(1)[0].unsqueeze(1)
    target = r + gamma * max_q_prime * done_mask
    loss = torch.nn.functional.smooth_l1_loss(q_a, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 4 == 3:
        q_target.load_state_dict(q.state_dict())
