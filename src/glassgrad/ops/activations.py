"""Activation functions of glassgrad.nn.functional."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

NAMESPACE = "glassgrad.nn.functional"
FUNCTIONS: dict[str, Callable[..., Any]] = {}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
