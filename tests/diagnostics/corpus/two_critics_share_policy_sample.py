"""Two critic losses that both use the same policy sample: the second critic's backward fails without retain_graph.

Source: https://github.com/yihaosun1124/OfflineRL-Kit/issues/15
Title: [Question]: Why critic1's update needs retain_graph=True in combo.py?
Pattern: shared subgraph: the log-probability of actions sampled from the policy is computed once and enters the
  conservative term of both critics' losses; critic1's backward frees the policy part of the graph that critic2's
  backward also needs.
Fault: the policy log-probability computed once for both losses.
Fix (the code the asker read): retain_graph=True on critic1's backward (or compute the shared term with the
  policy's gradient cut, or once per loss).
"""

import torch

EXPECTED = {"kind": "error", "error": "Trying to backward through the graph a second time", "fix": "combine-or-retain"}

torch.manual_seed(0)
policy = torch.nn.Linear(4, 2)
critic1, critic2 = torch.nn.Linear(6, 1), torch.nn.Linear(6, 1)
opt1, opt2 = torch.optim.Adam(critic1.parameters(), lr=3e-4), torch.optim.Adam(critic2.parameters(), lr=3e-4)
obs, actions, target_q = torch.randn(32, 4), torch.randn(32, 2), torch.randn(32, 1)
pi_actions = torch.tanh(policy(obs))
pi_logp = -(pi_actions ** 2).sum(1, keepdim=True)  # <- culprit
obs_pi = torch.cat([obs, pi_actions], 1)
obs_act = torch.cat([obs, actions], 1)
loss1 = ((critic1(obs_act) - target_q) ** 2).mean() + (critic1(obs_pi) - pi_logp).exp().mean()
loss2 = ((critic2(obs_act) - target_q) ** 2).mean() + (critic2(obs_pi) - pi_logp).exp().mean()
opt1.zero_grad()
loss1.backward()
opt1.step()
opt2.zero_grad()
loss2.backward()
opt2.step()
