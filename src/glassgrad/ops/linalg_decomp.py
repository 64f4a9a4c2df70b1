"""glassgrad.linalg: norms, inverses, determinants and decompositions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

NAMESPACE = "glassgrad.linalg"
FUNCTIONS: dict[str, Callable[..., Any]] = {}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
