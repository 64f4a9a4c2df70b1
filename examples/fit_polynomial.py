"""Fit a small two-layer network to sin(x) with nothing but autograd, PyTorch-style.

Run with `.venv/bin/python examples/fit_polynomial.py` (`make demo` runs the larger
digits_cnn.py). The program is written against PyTorch's API; only the import line
names glassgrad. At the end it backwards through a freed graph on
purpose, to show what glassgrad adds to PyTorch's error.
"""

from __future__ import annotations

import math

import glassgrad as torch


def main() -> None:
    torch.manual_seed(0)
    x = torch.linspace(-math.pi, math.pi, 256).reshape(-1, 1)
    y = torch.sin(x)

    w1 = (torch.randn(1, 32) * 1.0).requires_grad_()
    b1 = torch.zeros(32, requires_grad=True)
    w2 = (torch.randn(32, 1) * 0.2).requires_grad_()
    b2 = torch.zeros(1, requires_grad=True)
    params = [w1, b1, w2, b2]

    learning_rate = 0.05
    for step in range(1, 2001):
        prediction = torch.tanh(x @ w1 + b1) @ w2 + b2
        loss = ((prediction - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= learning_rate * p.grad
                p.grad.zero_()
        if step % 400 == 0:
            print(f"step {step:5d}  mse {loss.item():.6f}")

    final = loss.item()
    print(f"\nfitted sin(x) on [-pi, pi] with mean squared error {final:.2e}")

    print("\nNow a classic mistake: calling backward twice on one graph.\n")
    loss = ((torch.tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2).mean()
    loss.backward()
    try:
        loss.backward()
    except RuntimeError as error:
        print(error)


if __name__ == "__main__":
    main()
