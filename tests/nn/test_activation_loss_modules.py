"""Every activation and loss module against PyTorch 2.13: outputs, input gradients, buffers and repr."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad
from glassgrad import nn

from .oracle import check_against_torch, make_pair

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4)) * 3

ACTIVATIONS = [
    ("ReLU", {}), ("ReLU6", {}), ("LeakyReLU", {"negative_slope": 0.2}), ("ELU", {"alpha": 0.7}), ("SELU", {}),
    ("CELU", {"alpha": 1.3}), ("GELU", {}), ("GELU", {"approximate": "tanh"}), ("SiLU", {}), ("Mish", {}),
    ("Softplus", {"beta": 2.0, "threshold": 3.0}), ("Softsign", {}), ("Hardtanh", {"min_val": -2.0, "max_val": 1.5}),
    ("Hardsigmoid", {}), ("Hardswish", {}), ("Tanhshrink", {}), ("LogSigmoid", {}), ("Softmax", {"dim": 1}),
    ("LogSoftmax", {"dim": 0}), ("Softmin", {"dim": -1}), ("GLU", {}), ("GLU", {"dim": 0}), ("Sigmoid", {}), ("Tanh", {}),
]


# PyTorch's CPU backward of these uses float32 constants even in float64 (hardsigmoid's 1/6, celu's
# 1/alpha), so their gradients differ from the exact ones in the 8th digit; glassgrad keeps the exact ones.
FLOAT32_CONSTANTS_IN_TORCH_BACKWARD = {"Hardsigmoid", "CELU"}


@pytest.mark.torch_oracle
@pytest.mark.parametrize(("name", "kwargs"), ACTIVATIONS, ids=[f"{n}{k or ''}" for n, k in ACTIVATIONS])
def test_activation_matches_torch(name: str, kwargs: dict) -> None:
    def factory(lib):
        return getattr(lib.nn, name)(**kwargs)

    ref, mine = make_pair(factory)
    x = X[:2] if name == "GLU" and kwargs.get("dim") == 0 else X
    check_against_torch(ref, mine, [x], rtol=1e-7 if name in FLOAT32_CONSTANTS_IN_TORCH_BACKWARD else 1e-9)
    assert repr(mine) == repr(ref)
    assert type(mine).__module__ == "glassgrad.nn.modules.activation"


@pytest.mark.torch_oracle
@pytest.mark.parametrize("name", ["ReLU", "LeakyReLU", "ELU", "Hardtanh", "SiLU"])
def test_inplace_activation_writes_into_its_input_and_shows_in_repr(name: str) -> None:
    mine, ref = getattr(nn, name)(inplace=True), getattr(torch.nn, name)(inplace=True)
    assert repr(mine) == repr(ref)
    x = glassgrad.tensor(X.copy())
    out = mine(x)
    np.testing.assert_allclose(x.numpy(), ref(torch.tensor(X.copy())).numpy(), rtol=1e-12)
    assert out is x


def test_softmax_without_dim_warns_like_torch() -> None:
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        nn.Softmax()(glassgrad.ones(2, 3))


def labels(*shape: int, classes: int = 4) -> np.ndarray:
    return rng.integers(0, classes, shape)


def signs(*shape: int) -> np.ndarray:
    return rng.choice([-1.0, 1.0], shape)


def probs(*shape: int) -> np.ndarray:
    return rng.uniform(0.05, 0.95, shape)


LOGITS = rng.standard_normal((5, 4))
LOSSES = [
    ("MSELoss", {}, [LOGITS, rng.standard_normal((5, 4))]),
    ("L1Loss", {"reduction": "sum"}, [LOGITS, rng.standard_normal((5, 4))]),
    ("SmoothL1Loss", {"beta": 0.5}, [LOGITS, rng.standard_normal((5, 4))]),
    ("HuberLoss", {"delta": 0.7, "reduction": "none"}, [LOGITS, rng.standard_normal((5, 4))]),
    ("CrossEntropyLoss", {}, [LOGITS, labels(5)]),
    ("CrossEntropyLoss", {"weight": rng.uniform(0.5, 2, 4), "ignore_index": 1, "label_smoothing": 0.1}, [LOGITS, labels(5)]),
    ("CrossEntropyLoss", {"reduction": "none"}, [rng.standard_normal((2, 4, 3)), labels(2, 3)]),
    ("NLLLoss", {"weight": rng.uniform(0.5, 2, 4)}, [np.log(probs(5, 4)), labels(5)]),
    ("BCELoss", {"weight": rng.uniform(0.5, 2, 4)}, [probs(5, 4), probs(5, 4)]),
    ("BCEWithLogitsLoss", {"pos_weight": rng.uniform(0.5, 2, 4)}, [LOGITS, probs(5, 4)]),
    ("KLDivLoss", {"reduction": "batchmean"}, [np.log(probs(5, 4)), probs(5, 4)]),
    ("KLDivLoss", {"log_target": True, "reduction": "sum"}, [np.log(probs(5, 4)), np.log(probs(5, 4))]),
    ("MarginRankingLoss", {"margin": 0.3}, [rng.standard_normal(6), rng.standard_normal(6), signs(6)]),
    ("HingeEmbeddingLoss", {"margin": 0.8}, [rng.standard_normal((3, 4)), signs(3, 4)]),
    ("CosineEmbeddingLoss", {"margin": 0.2}, [rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), signs(4)]),
    ("TripletMarginLoss", {"margin": 0.5, "p": 1.0, "swap": True}, [rng.standard_normal((4, 3)) for _ in range(3)]),
    ("PoissonNLLLoss", {}, [rng.standard_normal((3, 4)), rng.poisson(2.0, (3, 4)).astype(float)]),
    ("PoissonNLLLoss", {"log_input": False, "full": True}, [probs(3, 4) * 3, rng.poisson(2.0, (3, 4)).astype(float)]),
    ("GaussianNLLLoss", {"full": True}, [LOGITS, rng.standard_normal((5, 4)), probs(5, 4)]),
]


@pytest.mark.torch_oracle
@pytest.mark.parametrize(("name", "kwargs", "inputs"), LOSSES, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(LOSSES)])
def test_loss_matches_torch(name: str, kwargs: dict, inputs: list[np.ndarray]) -> None:
    def factory(lib):
        return getattr(lib.nn, name)(**{k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()})

    ref, mine = make_pair(factory)
    check_against_torch(ref, mine, inputs)
    assert repr(mine) == repr(ref) == f"{name}()"
    assert type(mine).__module__ == "glassgrad.nn.modules.loss"


@pytest.mark.torch_oracle
def test_legacy_reduction_flags_warn_and_map_like_torch() -> None:
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        mine = nn.MSELoss(size_average=False)
    with pytest.warns(UserWarning):
        ref = torch.nn.MSELoss(size_average=False)
    assert mine.reduction == ref.reduction == "sum"
    with pytest.raises(ValueError, match="expected margin to be greater than 0"):
        nn.TripletMarginLoss(margin=0.0)
