"""Comparing and converting values between glassgrad and PyTorch, for the checkpoint tests: tensors are compared
byte for byte (NaN payloads and -0.0 included), with their dtype, shape, requires_grad and Parameter-ness."""

from __future__ import annotations

import io
import math
from typing import Any

import pytest
import torch

import glassgrad

WEIGHTS_ONLY = pytest.mark.parametrize("weights_only", [True, False], ids=["weights_only", "full_pickle"])


# -- comparing and converting values across the two libraries ------------------------------------------------------
def assert_same(mine: Any, theirs: Any, where: str = "obj") -> None:
    """glassgrad value `mine` and PyTorch value `theirs` hold the same structure, types and bytes."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(mine, glassgrad.Tensor), f"{where}: {type(mine).__name__}, not a tensor"
        assert isinstance(mine, glassgrad.nn.Parameter) == isinstance(theirs, torch.nn.Parameter), where
        assert str(theirs.dtype) == f"torch.{mine.dtype.name}", f"{where}: {mine.dtype} vs {theirs.dtype}"
        assert tuple(mine.shape) == tuple(theirs.shape), f"{where}: shape {mine.shape} vs {theirs.shape}"
        assert mine.requires_grad == theirs.requires_grad, f"{where}: requires_grad"
        assert mine.detach().numpy().tobytes() == theirs.detach().numpy().tobytes(), f"{where}: values differ"
    elif isinstance(theirs, torch.Size):
        assert type(mine) is glassgrad.Size and tuple(mine) == tuple(theirs), where
    elif isinstance(theirs, torch.dtype):
        assert isinstance(mine, glassgrad.dtype) and str(theirs) == f"torch.{mine.name}", where
    elif isinstance(theirs, torch.device):
        assert isinstance(mine, glassgrad.device) and str(mine) == str(theirs), where
    elif isinstance(theirs, dict):
        assert type(mine) is type(theirs) and list(mine) == list(theirs), f"{where}: {list(mine)} vs {list(theirs)}"
        assert getattr(mine, "_metadata", None) == getattr(theirs, "_metadata", None), f"{where}: _metadata"
        for key in theirs:
            assert_same(mine[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert type(mine) is type(theirs) and len(mine) == len(theirs), f"{where}: {mine!r} vs {theirs!r}"
        for i, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(theirs, float):
        assert type(mine) is float and math.copysign(1, mine) == math.copysign(1, theirs), where
        assert mine == theirs or (math.isnan(mine) and math.isnan(theirs)), f"{where}: {mine} vs {theirs}"
    else:
        assert type(mine) is type(theirs) and mine == theirs, f"{where}: {mine!r} vs {theirs!r}"


def to_torch(value: Any) -> Any:
    """The PyTorch twin of a glassgrad value, built in memory (no file), for expectations."""
    if isinstance(value, glassgrad.Tensor):
        t = torch.from_numpy(value.detach().numpy().copy())
        if isinstance(value, glassgrad.nn.Parameter):
            return torch.nn.Parameter(t, value.requires_grad)
        return t.requires_grad_(value.requires_grad)
    if isinstance(value, glassgrad.Size):
        return torch.Size(value)
    if isinstance(value, glassgrad.dtype):
        return getattr(torch, value.name)
    if isinstance(value, glassgrad.device):
        return torch.device(str(value))
    if isinstance(value, dict):
        out = type(value)((k, to_torch(v)) for k, v in value.items())
        if hasattr(value, "_metadata"):
            out._metadata = value._metadata
        return out
    if isinstance(value, (list, tuple)):
        return type(value)(to_torch(v) for v in value)
    return value


def to_glassgrad(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        t = glassgrad.tensor(value.detach().numpy().copy())
        if isinstance(value, torch.nn.Parameter):
            return glassgrad.nn.Parameter(t, value.requires_grad)
        return t.requires_grad_(value.requires_grad)
    if isinstance(value, dict):
        out = type(value)((k, to_glassgrad(v)) for k, v in value.items())
        if hasattr(value, "_metadata"):
            out._metadata = value._metadata
        return out
    if isinstance(value, (list, tuple)):
        return type(value)(to_glassgrad(v) for v in value)
    return value


def through_torch(obj: Any, **load_args: Any) -> Any:
    buf = io.BytesIO()
    glassgrad.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **load_args)


def through_glassgrad(obj: Any, **load_args: Any) -> Any:
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return glassgrad.load(buf, **load_args)


# -- models and optimizers -----------------------------------------------------------------------------------------
def cnn(lib: Any) -> Any:
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 3, 3, padding=1), nn.BatchNorm2d(3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(3 * 4 * 4, 10), nn.ReLU(), nn.Linear(10, 2),
    )


def trained_cnn(lib: Any) -> Any:
    lib.manual_seed(0)
    model = cnn(lib)
    model(lib.linspace(-1, 1, 2 * 64).reshape(2, 1, 8, 8))  # training mode: BatchNorm's running stats move
    return model
