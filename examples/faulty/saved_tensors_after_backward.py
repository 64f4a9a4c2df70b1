"""A custom Function whose saved tensors are read after backward freed them."""

import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x**2


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Cube.apply(x)
y.sum().backward()
print("saved:", y.grad_fn.saved_tensors)
