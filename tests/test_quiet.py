"""The cheap error-state switch behaves like np.errstate(all="ignore") and leaves the caller's state alone."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from glassgrad._quiet import quietly


def test_kernels_run_without_warnings_and_restore_the_state() -> None:
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = quietly(np.divide, np.array([1.0, 0.0]), np.array([0.0, 0.0]))
    assert np.isinf(out[0]) and np.isnan(out[1])
    assert np.geterr() == before
    with pytest.warns(RuntimeWarning):
        np.divide(np.array([1.0]), np.array([0.0]))


def test_state_is_restored_when_the_kernel_raises() -> None:
    before = np.geterr()

    def broken(*_: object) -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError):
        quietly(broken)
    assert np.geterr() == before
