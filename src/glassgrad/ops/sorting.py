"""Sorting, selection and set ops (sort, topk, median, unique, ...)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

FUNCTIONS: dict[str, Callable[..., Any]] = {}
METHODS: dict[str, Callable[..., Any]] = {}
INPLACE: tuple[str, ...] = ()
