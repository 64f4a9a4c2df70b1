"""torch.compiler and torch._dynamo on an engine that runs everything eagerly: the answers PyTorch gives
outside torch.compile, and the hints accepted without changing what runs."""

from __future__ import annotations

import pytest
import torch

import glassgrad

pytestmark = pytest.mark.torch_oracle


@pytest.mark.parametrize("name", ["is_compiling", "is_dynamo_compiling", "is_exporting"])
def test_questions_answer_as_pytorch_does_outside_compile(name: str) -> None:
    assert getattr(glassgrad.compiler, name)() is getattr(torch.compiler, name)() is False


def _double(x):
    return x * 2


@pytest.mark.parametrize("name", ["disable", "allow_in_graph", "assume_constant_result", "nested_compile_region"])
def test_decorators_leave_the_function_running_as_written(name: str) -> None:
    decorated = getattr(glassgrad.compiler, name)(_double)
    assert decorated(glassgrad.tensor(3.0)).item() == 6.0


def test_disable_with_arguments_is_a_decorator() -> None:
    decorated = glassgrad.compiler.disable(recursive=False, reason="not traceable")(_double)
    assert decorated(2) == 4


def test_set_stance_is_a_context_manager_and_a_decorator_that_changes_nothing() -> None:
    with glassgrad.compiler.set_stance("force_eager"):
        assert glassgrad.compiler.is_compiling() is False
    assert glassgrad.compiler.set_stance("eager_on_recompile")(_double)(5) == 10


def test_compile_through_the_compiler_namespace_returns_a_runnable_model() -> None:
    model = glassgrad.nn.Linear(2, 1)
    compiled = glassgrad.compiler.compile(model)
    assert compiled(glassgrad.ones(1, 2)).shape == (1, 1)
    assert not isinstance(compiled, glassgrad._dynamo.OptimizedModule)


def test_reset_and_cudagraph_step_are_no_ops() -> None:
    assert glassgrad.compiler.reset() is None
    assert glassgrad.compiler.cudagraph_mark_step_begin() is None


def test_an_optimized_module_cannot_be_made_here() -> None:
    with pytest.raises(AttributeError, match=r"glassgrad does not implement torch\._dynamo\.OptimizedModule"):
        glassgrad._dynamo.OptimizedModule(glassgrad.nn.Linear(1, 1))


def test_a_missing_compiler_name_says_so() -> None:
    with pytest.raises(AttributeError, match=r"glassgrad does not implement torch\.compiler\.load_cache_artifacts"):
        glassgrad.compiler.load_cache_artifacts  # noqa: B018


def test_wrap_numpy_calls_a_numpy_function_with_tensors_as_pytorch_does() -> None:
    import numpy as np

    def shifted_sine(x, y):
        return np.sin(x) + y

    ours = glassgrad.compiler.wrap_numpy(shifted_sine)(glassgrad.tensor([1.0, 2.0]), y=glassgrad.tensor([3.0, 4.0]))
    theirs = torch.compiler.wrap_numpy(shifted_sine)(torch.tensor([1.0, 2.0]), y=torch.tensor([3.0, 4.0]))
    assert isinstance(ours, glassgrad.Tensor)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())
