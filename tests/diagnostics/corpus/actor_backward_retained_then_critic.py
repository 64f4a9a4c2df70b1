"""A shared sequence model trained with an actor loss and a critic loss: actor backward with retain_graph, critic
gradients zeroed, critic backward, one step.

Source: https://github.com/UT-Austin-RPL/amago/pull/27
Title: Alternate Backward
Pattern: correct program: the actor's objective goes through the critics, so the critics' share of the actor's
  gradient is zeroed before the critic loss is backwarded over the same retained graph; both backwards are in
  one iteration and the last one frees the graph.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
traj_encoder = torch.nn.GRU(5, 16, batch_first=True)
actor, critic = torch.nn.Linear(16, 2), torch.nn.Linear(16 + 2, 1)
optimizer = torch.optim.AdamW([*traj_encoder.parameters(), *actor.parameters(), *critic.parameters()], lr=1e-4)
for _step in range(4):
    seq, actions, td_target = torch.randn(3, 6, 5), torch.randn(3, 6, 2), torch.randn(3, 6, 1)
    s_rep, _ = traj_encoder(seq)
    a_pi = torch.tanh(actor(s_rep))
    actor_loss = -critic(torch.cat([s_rep, a_pi], -1)).mean()
    critic_loss = (critic(torch.cat([s_rep, actions], -1)) - td_target).pow(2).mean()
    optimizer.zero_grad()
    actor_loss.backward(retain_graph=True)
    for p in critic.parameters():
        p.grad = None
    critic_loss.backward()
    optimizer.step()
