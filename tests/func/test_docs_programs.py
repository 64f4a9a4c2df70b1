"""PyTorch's torch.func tutorials, run as written on torch and on glassgrad (the parameter is named `torch`), in
float64 with the same fixed weights, and compared: per-sample gradients, model ensembling, a MAML inner loop, and
Jacobians and Hessians of a small network.

The one change to the tutorials' code: the ensembling tutorial moves its base model to the 'meta' device, which
glassgrad does not have; the base model stays on the CPU here (it only lends its forward code).
"""

from __future__ import annotations

import copy
import functools
from types import ModuleType
from typing import Any

import numpy as np
import pytest

pytestmark = [
    pytest.mark.torch_oracle,
    # PyTorch's hessian (jacfwd) imports torch.jit machinery on first use, which warns.
    pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning"),
]

RNG = np.random.default_rng(2024)
DATA = RNG.standard_normal((6, 5))
TARGETS = np.array([0, 2, 1, 2, 0, 1])


@functools.cache
def mlp_class(torch: ModuleType) -> type:
    """The tutorials' small MLP, one class per library (stack_module_state wants every model of one class)."""

    class SimpleMLP(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = torch.nn.Linear(5, 8)
            self.fc2 = torch.nn.Linear(8, 3)

        def forward(self, x: Any) -> Any:
            x = torch.nn.functional.relu(self.fc1(x))
            return self.fc2(x)

    return SimpleMLP


def mlp(torch: ModuleType, seed: int = 0) -> Any:
    """A small MLP in float64 whose weights come from NumPy, so both libraries hold the same ones."""
    model = mlp_class(torch)().double()
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5))
    return model


@pytest.mark.usefixtures("no_fallback")
def test_per_sample_gradients(oracle: Any) -> None:
    """The per-sample-gradients tutorial: vmap(grad(compute_loss)) over functional_call, against a loop; every op
    inside vmap batched by its rule."""

    def per_sample(torch: ModuleType) -> Any:
        F = torch.nn.functional
        functional_call, grad, vmap = torch.func.functional_call, torch.func.grad, torch.func.vmap
        model = mlp(torch)
        data, targets = torch.tensor(DATA), torch.tensor(TARGETS)

        def compute_grad(sample: Any, target: Any) -> Any:
            prediction = model(sample.unsqueeze(0))
            loss = F.cross_entropy(prediction, target.unsqueeze(0))
            return torch.autograd.grad(loss, list(model.parameters()))

        per_sample_grads = [compute_grad(data[i], targets[i]) for i in range(len(data))]
        per_sample_grads = [torch.stack(shards) for shards in zip(*per_sample_grads, strict=True)]

        params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v.detach() for k, v in model.named_buffers()}

        def compute_loss(params: Any, buffers: Any, sample: Any, target: Any) -> Any:
            batch = sample.unsqueeze(0)
            targets = target.unsqueeze(0)
            predictions = functional_call(model, (params, buffers), (batch,))
            return F.cross_entropy(predictions, targets)

        ft_compute_grad = grad(compute_loss)
        ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
        ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
        same = [
            torch.allclose(per_sample_grad, ft_per_sample_grad, atol=1e-12, rtol=1e-10)
            for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values(), strict=True)
        ]
        return ft_per_sample_grads, per_sample_grads, same

    outcome = oracle.check(per_sample)
    assert outcome[2] == [True] * 4


@pytest.mark.usefixtures("no_fallback")
def test_model_ensembling(oracle: Any) -> None:
    """The model-ensembling tutorial: stack_module_state, then vmap over functional_call, both ways of batching,
    every op inside vmap batched by its rule."""

    def ensembling(torch: ModuleType) -> Any:
        functional_call, stack_module_state, vmap = (
            torch.func.functional_call,
            torch.func.stack_module_state,
            torch.func.vmap,
        )
        num_models = 4
        models = [mlp(torch, seed=i) for i in range(num_models)]
        minibatches = torch.tensor(DATA).reshape(num_models // 2, 3, 5).repeat(2, 1, 1)
        minibatch = minibatches[0]
        predictions_diff_minibatch_loop = [model(mb) for model, mb in zip(models, minibatches, strict=True)]
        predictions2 = [model(minibatch) for model in models]

        params, buffers = stack_module_state(models)
        base_model = copy.deepcopy(models[0])  # the tutorial then moves it to 'meta' (see the module docstring)

        def fmodel(params: Any, buffers: Any, x: Any) -> Any:
            return functional_call(base_model, (params, buffers), (x,))

        predictions1_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
        predictions2_vmap = vmap(fmodel)(params, buffers, minibatches)
        return (
            predictions1_vmap,
            predictions2_vmap,
            torch.allclose(predictions1_vmap, torch.stack(predictions2), atol=1e-12),
            torch.allclose(predictions2_vmap, torch.stack(predictions_diff_minibatch_loop), atol=1e-12),
            {k: (tuple(v.shape), v.is_leaf, v.requires_grad) for k, v in params.items()},
        )

    outcome = oracle.check(ensembling)
    assert outcome[2] is True and outcome[3] is True


def test_maml_inner_loop(oracle: Any) -> None:
    """MAML: inner steps on functional_call with autograd.grad(create_graph=True) or torch.func.grad, then the
    meta-gradient through them into the model's own parameters."""

    def maml(torch: ModuleType) -> Any:
        F = torch.nn.functional
        functional_call, grad = torch.func.functional_call, torch.func.grad
        model = mlp(torch)
        x_support, x_query = torch.tensor(DATA[:3]), torch.tensor(DATA[3:])
        y_support, y_query = torch.tensor(TARGETS[:3]), torch.tensor(TARGETS[3:])
        alpha, inner_steps = 0.1, 2

        def inner_loss(params: Any, x: Any, y: Any) -> Any:
            return F.cross_entropy(functional_call(model, params, (x,)), y)

        # The classic form: autograd.grad with create_graph=True.
        params = dict(model.named_parameters())
        for _ in range(inner_steps):
            grads = torch.autograd.grad(inner_loss(params, x_support, y_support), params.values(), create_graph=True)
            params = {k: p - alpha * g for (k, p), g in zip(params.items(), grads, strict=True)}
        query_loss = inner_loss(params, x_query, y_query)
        meta_grads = torch.autograd.grad(query_loss, list(model.parameters()))

        # The torch.func form: grad keeps the second-order history because the parameters require grad.
        fparams = dict(model.named_parameters())
        for _ in range(inner_steps):
            fgrads = grad(inner_loss)(fparams, x_support, y_support)
            fparams = {k: p - alpha * fgrads[k] for k, p in fparams.items()}
        fquery_loss = inner_loss(fparams, x_query, y_query)
        fquery_loss.backward()
        return query_loss, meta_grads, fquery_loss, [p.grad for p in model.parameters()], fparams

    oracle.check(maml)


def test_jacobians_and_hessians_of_a_network(oracle: Any) -> None:
    """The Jacobians-and-Hessians tutorial on a linear layer with tanh, and jacrev/hessian of an MLP's parameters."""

    def jacobians(torch: ModuleType) -> Any:
        F = torch.nn.functional
        jacrev, hessian, vmap, functional_call = (
            torch.func.jacrev,
            torch.func.hessian,
            torch.func.vmap,
            torch.func.functional_call,
        )
        rng = np.random.default_rng(5)
        D = 4
        weight = torch.tensor(rng.standard_normal((D, D)))
        bias = torch.tensor(rng.standard_normal(D))
        x = torch.tensor(rng.standard_normal(D))

        def predict(weight: Any, bias: Any, x: Any) -> Any:
            return F.linear(x, weight, bias).tanh()

        jacobian = jacrev(predict, argnums=2)(weight, bias, x)
        ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
        hess_api = hessian(predict, argnums=2)(weight, bias, x)
        batch = torch.tensor(rng.standard_normal((3, D)))
        batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, batch)
        batch_hessian = vmap(hessian(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, batch)

        model = mlp(torch)
        params = {k: v.detach() for k, v in model.named_parameters()}
        sample = torch.tensor(DATA[0])

        def scalar_out(params: Any) -> Any:
            return functional_call(model, params, (sample,)).logsumexp(0)

        net_jacobian = jacrev(lambda p: functional_call(model, p, (sample,)))(params)
        net_hessian = hessian(scalar_out)(params)
        return jacobian, ft_jac_weight, ft_jac_bias, hess_api, batch_jacobian, batch_hessian, net_jacobian, net_hessian

    oracle.check(jacobians)
