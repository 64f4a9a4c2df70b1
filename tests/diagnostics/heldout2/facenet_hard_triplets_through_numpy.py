"""A FaceNet triplet loss that selects the hard triplets by going through NumPy and back.

Source: https://github.com/liorshk/facenet_pytorch/issues/9
Title: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
Pattern: graph cut by a NumPy round-trip: the anchor, positive and negative embeddings are copied to NumPy arrays,
  indexed with the hard-triplet mask and wrapped back with `torch.from_numpy`; the new tensors have no history, so
  the triplet loss built on them cannot reach the network.
Fault: the NumPy round-trip that selects the hard triplets.
Fix (the answer in the issue): index the tensors themselves (`out_a[hard_triplets]`), staying in torch.
"""

import torch

EXPECTED = {"kind": "error", "error": "element 0 of tensors does not require grad", "fix": "stay-in-torch"}

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(24, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
margin = 0.5
for _batch in range(2):
    anchors, positives, negatives = torch.randn(10, 24), torch.randn(10, 24), torch.randn(10, 24)
    out_a, out_p, out_n = model(anchors), model(positives), model(negatives)
    d_p = torch.nn.functional.pairwise_distance(out_a, out_p)
    d_n = torch.nn.functional.pairwise_distance(out_a, out_n)
    hard_triplets = ((d_n - d_p) < margin).numpy().nonzero()[0]
    selected = [torch.from_numpy(out.data.numpy()[hard_triplets]) for out in (out_a, out_p, out_n)]  # <- culprit
    loss = torch.nn.functional.triplet_margin_loss(*selected, margin=margin)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
