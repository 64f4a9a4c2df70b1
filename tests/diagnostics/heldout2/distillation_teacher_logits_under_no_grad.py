"""Knowledge distillation with the teacher's logits computed under `no_grad` and a temperature-softened KL loss.

Source: https://github.com/microsoft/nni/pull/1819
Title: Knowledge Distillation support
Pattern: correct program: the teacher runs under `torch.no_grad()`, so its logits carry no graph; the student's loss
  mixes the cross-entropy with the KL divergence to the teacher's softened distribution and is backwarded once per
  batch.
Fault: none.
Fix: correct program: no warning expected.
"""

import torch

EXPECTED = {"kind": "correct"}

torch.manual_seed(0)
teacher = torch.nn.Sequential(torch.nn.Linear(12, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
student = torch.nn.Sequential(torch.nn.Linear(12, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4))
optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
kd_t, alpha = 4.0, 0.9
teacher.eval()
for _batch in range(6):
    data, target = torch.randn(16, 12), torch.randint(0, 4, (16,))
    student_out = student(data)
    with torch.no_grad():
        kd_out = teacher(data)
    soft_log_out = torch.nn.functional.log_softmax(student_out / kd_t, dim=1)
    soft_t = torch.nn.functional.softmax(kd_out / kd_t, dim=1)
    kd_loss = torch.nn.functional.kl_div(soft_log_out, soft_t, reduction="batchmean") * kd_t * kd_t
    loss = alpha * kd_loss + (1 - alpha) * torch.nn.functional.cross_entropy(student_out, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
