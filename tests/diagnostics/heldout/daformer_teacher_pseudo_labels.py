"""Self-training with an EMA teacher: pseudo-labels from the teacher, the student's mixed loss, an EMA weight update.

Source: https://github.com/lhoyer/DAFormer/issues/59
Title: Questions about whether the teacher network is trained or not
Pattern: correct program: the teacher is only updated by the exponential moving average of the student's weights
  between steps; its pseudo-labels are detached, so `mix_loss.backward()` does not reach the teacher.
Fault: none.
Fix: correct program: no warning expected.
"""

import copy

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
student = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(8, 4, 1))
teacher = copy.deepcopy(student)
for param in teacher.parameters():
    param.detach_()
optimizer = torch.optim.AdamW(student.parameters(), lr=6e-5)
alpha = 0.99
for _iteration in range(6):
    source, source_labels = torch.randn(2, 3, 8, 8), torch.randint(0, 4, (2, 8, 8))
    target = torch.randn(2, 3, 8, 8)
    optimizer.zero_grad()
    torch.nn.functional.cross_entropy(student(source), source_labels).backward()
    pseudo_prob, pseudo_label = torch.softmax(teacher(target).detach(), dim=1).max(dim=1)
    pseudo_weight = (pseudo_prob > 0.5).float().mean()
    mix_loss = pseudo_weight * torch.nn.functional.cross_entropy(student(target), pseudo_label)
    mix_loss.backward()
    optimizer.step()
    with torch.no_grad():
        for ema_param, param in zip(teacher.parameters(), student.parameters(), strict=True):
            ema_param.mul_(alpha).add_(param, alpha=1 - alpha)
