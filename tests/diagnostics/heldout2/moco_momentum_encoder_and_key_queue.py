"""MoCo: a query encoder trained against a queue of keys from a momentum encoder updated without gradients.

Source: https://devhide.com/why-moco-key-encoder-backpropagation-is-intractable-77280989
Title: Why MoCo key encoder backpropagation is intractable
Pattern: correct program: the key encoder is an exponential moving average of the query encoder, updated under
  `no_grad`; keys are computed under `no_grad` and enqueued into a fixed-size buffer, so the contrastive loss only
  reaches the query encoder and nothing of earlier steps stays in the graph. The question is why the key encoder is
  not trained by backpropagation through the queue (the memory it would take), which this design avoids.
Fault: none.
Fix: correct program: no warning expected.
"""

import copy

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
encoder_q = torch.nn.Sequential(torch.nn.Linear(32, 16), torch.nn.ReLU(), torch.nn.Linear(16, 8))
encoder_k = copy.deepcopy(encoder_q)
for param_k in encoder_k.parameters():
    param_k.requires_grad = False
optimizer = torch.optim.SGD(encoder_q.parameters(), lr=0.03, momentum=0.9)
queue = torch.nn.functional.normalize(torch.randn(8, 40), dim=0)
queue_ptr, m, temperature = 0, 0.999, 0.07
for _iteration in range(6):
    images = torch.randn(4, 32)
    q = torch.nn.functional.normalize(encoder_q(images + 0.1 * torch.randn(4, 32)), dim=1)
    with torch.no_grad():
        for param_q, param_k in zip(encoder_q.parameters(), encoder_k.parameters(), strict=True):
            param_k.data = param_k.data * m + param_q.data * (1.0 - m)
        k = torch.nn.functional.normalize(encoder_k(images + 0.1 * torch.randn(4, 32)), dim=1)
    l_pos = torch.einsum("nc,nc->n", q, k).unsqueeze(-1)
    l_neg = torch.einsum("nc,ck->nk", q, queue.clone().detach())
    logits = torch.cat([l_pos, l_neg], dim=1) / temperature
    loss = torch.nn.functional.cross_entropy(logits, torch.zeros(4, dtype=torch.long))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    queue[:, queue_ptr:queue_ptr + 4] = k.T
    queue_ptr = (queue_ptr + 4) % queue.shape[1]
