"""The cheap error-state switches behave like np.errstate(all="ignore") and leave the caller's state alone."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

from glassgrad._quiet import quietly, run_kernel


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


def test_run_kernel_is_quiet_and_leaves_the_callers_state_alone() -> None:
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        out = run_kernel((np.divide, np.array([1.0, 0.0]), np.array([0.0, 0.0])))
        assert np.isinf(out[0]) and np.isnan(out[1])
        with pytest.raises(FloatingPointError):  # the caller's "raise" still holds outside the kernel
            np.divide(np.array([1.0]), np.array([0.0]))


def test_run_kernel_falls_back_when_the_quiet_context_is_in_use() -> None:
    # A kernel that is Python code and itself runs a kernel: the inner call finds the context entered already
    inner = np.array([1.0, 0.0]), np.array([0.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = run_kernel((lambda: run_kernel((np.divide, *inner)),))
    assert np.isinf(out[0]) and np.isnan(out[1])


def test_run_kernel_from_another_thread_while_one_is_inside() -> None:
    inside, release = threading.Event(), threading.Event()

    def holding() -> None:
        inside.set()
        release.wait(10)

    holder = threading.Thread(target=run_kernel, args=((holding,),))
    holder.start()
    try:
        assert inside.wait(10)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = run_kernel((np.log, np.array([0.0, -1.0])))
        assert np.isneginf(out[0]) and np.isnan(out[1])
    finally:
        release.set()
        holder.join()


def test_run_kernel_raises_the_kernels_own_runtime_error_once() -> None:
    calls = []

    def failing() -> None:
        calls.append(1)
        raise RuntimeError("the kernel's own")

    with pytest.raises(RuntimeError, match="the kernel's own"):
        run_kernel((failing,))
    assert calls == [1]
