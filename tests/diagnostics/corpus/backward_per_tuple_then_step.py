"""Image retrieval training that backwards each tuple's loss on its own and steps once per minibatch.

Source: https://github.com/filipradenovic/cnnimageretrieval-pytorch/issues/20
Title: Multiple loss.backward() for each minibatch during training
Pattern: correct program: one forward and one backward per training tuple, gradients summed in .grad, one
  optimizer step per minibatch; each tuple's graph is freed by its backward, which is why it saves memory.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(20, 16), torch.nn.ReLU(), torch.nn.Linear(16, 8))
optimizer = torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)
for _batch in range(4):
    optimizer.zero_grad()
    avg_loss = 0.0
    for _q in range(3):
        images = torch.randn(4, 20)
        vecs = torch.nn.functional.normalize(net(images), dim=1)
        query, positive, negatives = vecs[0], vecs[1], vecs[2:]
        loss = (query - positive).pow(2).sum() + torch.relu(0.7 - (query - negatives).pow(2).sum(1)).sum()
        loss.backward()
        avg_loss += loss.item()
    optimizer.step()
