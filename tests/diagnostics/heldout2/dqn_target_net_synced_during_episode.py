"""The DQN tutorial's loop with the target network's weights copied from the policy network every few steps.

Source: https://github.com/pytorch/tutorials/pull/2110
Title: update target network weight during episode after x timesteps
Pattern: correct program: the TD targets come from the target network under `no_grad`, each step optimises the
  policy network once, and the target network is refreshed inside the episode with `load_state_dict` (a copy of values,
  no graph); the PR moved that refresh from the end of the episode into the step loop.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
policy_net = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
target_net = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
target_net.load_state_dict(policy_net.state_dict())
optimizer = torch.optim.AdamW(policy_net.parameters(), lr=1e-4, amsgrad=True)
gamma, target_update = 0.99, 3
steps_done = 0
for _episode in range(2):
    for _t in range(6):
        states, next_states = torch.randn(8, 4), torch.randn(8, 4)
        actions, rewards = torch.randint(0, 2, (8, 1)), torch.randn(8)
        state_action_values = policy_net(states).gather(1, actions)
        with torch.no_grad():
            next_state_values = target_net(next_states).max(1).values
        expected = rewards + gamma * next_state_values
        loss = torch.nn.functional.smooth_l1_loss(state_action_values, expected.unsqueeze(1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
        optimizer.step()
        steps_done += 1
        if steps_done % target_update == 0:
            target_net.load_state_dict(policy_net.state_dict())
