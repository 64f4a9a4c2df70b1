"""RNN, LSTM, GRU and their cells at torch.nn.modules.rnn, composed from glassgrad ops.

The three layers share one driver (RNNBase): layers, directions, batch_first, dropout between
layers, initial states, PackedSequence inputs and PyTorch's output layouts. They differ only in
their step function, which maps the input's projection x W_ih^T + b_ih at one time step and the
state to the next state. The driver works on packed data (time steps stacked, each step's batch
no larger than the one before); a padded batch is the case where every step has the whole batch.
The input projection of a whole sequence is one matmul; only the recurrent part runs in the
Python loop over time steps. Gate order and formulas are PyTorch's (ATen's RNN.cpp), so weights
and outputs interchange with it.
"""

from __future__ import annotations

import itertools
import math
import numbers
import warnings
from collections.abc import Callable
from typing import Any

from ...ops.creation import empty, zeros
from ...ops.elementwise import sigmoid, tanh
from ...ops.shape import cat, stack
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

State = tuple[Tensor, ...]  # (h,) or, for LSTM, (h, c)
Step = Callable[[Tensor, State, Tensor, Tensor | None, Tensor | None], State]


def _elman_step(activation: Callable[[Tensor], Tensor]) -> Step:
    def step(gi: Tensor, state: State, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None) -> State:
        return (activation(gi + F.linear(state[0], w_hh, b_hh)),)

    return step


def _lstm_step(gi: Tensor, state: State, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None) -> State:
    h, c = state
    i, f, g, o = (gi + F.linear(h, w_hh, b_hh)).chunk(4, dim=-1)
    c = sigmoid(f) * c + sigmoid(i) * tanh(g)
    h = sigmoid(o) * tanh(c)
    return (h if w_hr is None else F.linear(h, w_hr)), c


def _gru_step(gi: Tensor, state: State, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None) -> State:
    (h,) = state
    i_r, i_z, i_n = gi.chunk(3, dim=-1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, dim=-1)
    n = tanh(i_n + sigmoid(i_r + h_r) * h_n)
    return ((h - n) * sigmoid(i_z + h_z) + n,)


# mode -> (gates per hidden unit, step)
_MODES: dict[str, tuple[int, Step]] = {
    "RNN_TANH": (1, _elman_step(tanh)),
    "RNN_RELU": (1, _elman_step(F.relu)),
    "LSTM": (4, _lstm_step),
    "GRU": (3, _gru_step),
}


Weights = tuple[Tensor, Tensor | None, Tensor | None]  # w_hh, b_hh, w_hr: what a step needs besides its input


def _run_forward(
    step: Step, projected: Tensor, batch_sizes: list[int], offsets: list[int], initial: State, weights: Weights
) -> tuple[Tensor, State]:
    """One direction from t = 0 on packed steps: when the batch shrinks, the sequences that ended keep their state.

    Returns the outputs, packed like `projected`, and every sequence's final state (in batch order).
    """
    state, ended = initial, []
    outputs = []
    for t, size in enumerate(batch_sizes):
        if size < state[0].size(0):
            ended.append(tuple(s[size:] for s in state))
            state = tuple(s[:size] for s in state)
        state = step(projected[offsets[t]:offsets[t + 1]], state, *weights)
        outputs.append(state[0])
    if ended:  # the longest sequences are first, those that ended earliest last
        state = tuple(cat([state[k], *(e[k] for e in reversed(ended))]) for k in range(len(state)))
    return cat(outputs), state


def _run_backward(
    step: Step, projected: Tensor, batch_sizes: list[int], offsets: list[int], initial: State, weights: Weights
) -> tuple[Tensor, State]:
    """One direction from the last step back: a sequence joins, from its initial state, at its own last step."""
    state = tuple(s[:batch_sizes[-1]] for s in initial) if batch_sizes[-1] < initial[0].size(0) else initial
    outputs = []
    for t in range(len(batch_sizes) - 1, -1, -1):
        size = batch_sizes[t]
        if size > state[0].size(0):
            state = tuple(cat([s, s0[s.size(0):size]]) for s, s0 in zip(state, initial, strict=True))
        state = step(projected[offsets[t]:offsets[t + 1]], state, *weights)
        outputs.append(state[0])
    return cat(outputs[::-1]), state


def _as_states(hx: Any, is_lstm: bool) -> State:
    return tuple(hx) if is_lstm else (hx,)


def _check_state_ranks(states: State, batched: bool, is_lstm: bool) -> None:
    want = 3 if batched else 2
    if any(s.dim() != want for s in states):
        kind = "batched 3-D" if batched else "unbatched 2-D"
        if is_lstm:
            got = ", ".join(f"{s.dim()}-D" for s in states)
            raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got ({got}) tensors")
        raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got {states[0].dim()}-D tensor")


def _check_sizes(input_size: Any, hidden_size: Any) -> None:
    for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(value, int):
            raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
        if value <= 0:
            raise ValueError(f"{name} must be greater than zero")


class RNNBase(Module):
    def __init__(
        self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
        batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
        device: Any = None, dtype: Any = None,
    ) -> None:
        super().__init__()
        if mode not in _MODES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                stacklevel=3,
            )
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        _check_sizes(input_size, hidden_size)
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        gate_size = _MODES[mode][0] * hidden_size
        real_hidden = proj_size or hidden_size
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * directions
            for direction in range(directions):
                shapes = {"weight_ih": (gate_size, layer_input), "weight_hh": (gate_size, real_hidden)}
                if bias:
                    shapes |= {"bias_ih": (gate_size,), "bias_hh": (gate_size,)}
                if proj_size:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                for kind, shape in shapes.items():
                    name = f"{kind}_l{layer}{'_reverse' if direction else ''}"
                    setattr(self, name, Parameter(empty(shape, device=device, dtype=dtype)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list[Tensor]:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        per_direction = len(self._flat_weights_names) // (self.num_layers * (2 if self.bidirectional else 1))
        flat = self._flat_weights
        return [flat[i:i + per_direction] for i in range(0, len(flat), per_direction)]

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """PyTorch packs the weights into one cuDNN buffer here; programs call it, and on NumPy there is nothing to do."""

    def _weights(self, layer: int, direction: int) -> tuple[Tensor | None, ...]:
        suffix = f"_l{layer}{'_reverse' if direction else ''}"
        return tuple(self._parameters.get(kind + suffix) for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"))

    def _state_sizes(self) -> tuple[int, ...]:
        real_hidden = self.proj_size or self.hidden_size
        return (real_hidden, self.hidden_size) if self.mode == "LSTM" else (real_hidden,)

    def _check_input(self, input: Tensor, packed: bool) -> None:
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                f"Convert input: input.to({weight_dtype}), or convert model: model.to({input.dtype})"
            )
        expected_dim = 2 if packed else 3
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if input.size(-1) != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.size(-1)}")

    def _check_states(self, states: State, batch: int) -> None:
        leading = self.num_layers * (2 if self.bidirectional else 1)
        for i, (state, size) in enumerate(zip(states, self._state_sizes(), strict=True)):
            if tuple(state.shape) != (leading, batch, size):
                label = f"hidden[{i}]" if self.mode == "LSTM" else "hidden"
                raise RuntimeError(f"Expected {label} size {(leading, batch, size)}, got {list(state.shape)}")

    def _run(self, x: Tensor, batch_sizes: list[int], states: State) -> tuple[Tensor, State]:
        """x is packed data (sum(batch_sizes), features); returns the last layer's packed outputs and the final
        states, layer-major. A padded batch is the packed case whose batch sizes are all equal."""
        step = _MODES[self.mode][1]
        directions = 2 if self.bidirectional else 1
        offsets = [0, *itertools.accumulate(batch_sizes)]
        finals: list[State] = []
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout > 0 and self.training:
                x = F.dropout(x, self.dropout)
            outputs = []
            for direction in range(directions):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, direction)
                initial = tuple(s[layer * directions + direction] for s in states)
                run = _run_backward if direction else _run_forward
                output, final = run(step, F.linear(x, w_ih, b_ih), batch_sizes, offsets, initial, (w_hh, b_hh, w_hr))
                outputs.append(output)
                finals.append(final)
            x = cat(outputs, dim=1) if directions == 2 else outputs[0]
        return x, tuple(stack([final[k] for final in finals]) for k in range(len(states)))

    def forward(self, input: Tensor | PackedSequence, hx: Any = None) -> tuple[Any, Any]:
        is_lstm = self.mode == "LSTM"
        leading = self.num_layers * (2 if self.bidirectional else 1)
        if isinstance(input, PackedSequence):
            x, batch_sizes_t, sorted_indices, unsorted_indices = input
            batch_sizes = [int(n) for n in batch_sizes_t.tolist()]
            batch = batch_sizes[0]
            states = None if hx is None else _as_states(hx, is_lstm)
            if states is not None and sorted_indices is not None:  # hx comes in the caller's batch order
                states = tuple(s.index_select(1, sorted_indices) for s in states)
            self._check_input(x, packed=True)
        else:
            name = {"LSTM": "LSTM", "GRU": "GRU"}.get(self.mode, "RNN")
            if input.dim() not in (2, 3):
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D {'tensor ' if name == 'RNN' else ''}instead")
            batched = input.dim() == 3
            x = input if batched else input.unsqueeze(0 if self.batch_first else 1)
            states = None if hx is None else _as_states(hx, is_lstm)
            if states is not None:
                _check_state_ranks(states, batched, is_lstm)
                states = states if batched else tuple(s.unsqueeze(1) for s in states)
            self._check_input(x, packed=False)
            if self.batch_first:
                x = x.transpose(0, 1)
            steps, batch = x.size(0), x.size(1)
            batch_sizes = [batch] * steps
            x = x.reshape(steps * batch, x.size(2))
        if states is None:
            states = tuple(zeros((leading, batch, size), dtype=x.dtype) for size in self._state_sizes())
        self._check_states(states, batch)
        output, finals = self._run(x, batch_sizes, states)
        if isinstance(input, PackedSequence):
            if unsorted_indices is not None:
                finals = tuple(f.index_select(1, unsorted_indices) for f in finals)
            result: Any = PackedSequence(output, batch_sizes_t, sorted_indices, unsorted_indices)
        else:
            result = output.view(steps, batch, output.size(-1))
            if self.batch_first:
                result = result.transpose(0, 1)
            if not batched:
                result = result.squeeze(0 if self.batch_first else 1)
                finals = tuple(f.squeeze(1) for f in finals)
        return result, (finals if is_lstm else finals[0])

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    """An Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh), or relu."""

    def __init__(
        self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh", bias: bool = True,
        batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, device: Any = None,
        dtype: Any = None,
    ) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(
            f"RNN_{nonlinearity.upper()}", input_size, hidden_size, num_layers, bias, batch_first, dropout,
            bidirectional, device=device, dtype=dtype,
        )
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    def __init__(
        self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True, batch_first: bool = False,
        dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0, device: Any = None, dtype: Any = None,
    ) -> None:
        super().__init__(
            "LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, proj_size, device, dtype
        )


class GRU(RNNBase):
    def __init__(
        self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True, batch_first: bool = False,
        dropout: float = 0.0, bidirectional: bool = False, device: Any = None, dtype: Any = None,
    ) -> None:
        super().__init__(
            "GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, device=device, dtype=dtype
        )


class RNNCellBase(Module):
    """One time step of an RNN layer, on (batch, features) or unbatched (features,) inputs."""

    _mode: str

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def forward(self, input: Tensor, hx: Any = None) -> Any:
        name = type(self).__name__
        is_lstm = self._mode == "LSTM"
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            states: State = tuple(zeros((x.size(0), self.hidden_size), dtype=x.dtype) for _ in range(2 if is_lstm else 1))
        else:
            states = tuple(hx) if is_lstm else (hx,)
            for idx, state in enumerate(states):
                if state.dim() not in (1, 2):
                    label = f"hx[{idx}]" if is_lstm else "hidden"
                    raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {state.dim()}D instead")
            states = states if batched else tuple(s.unsqueeze(0) for s in states)
        if self._mode not in _MODES:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        step = _MODES[self._mode][1]
        new = step(F.linear(x, self.weight_ih, self.bias_ih), states, self.weight_hh, self.bias_hh, None)
        new = new if batched else tuple(s.squeeze(0) for s in new)
        return new if is_lstm else new[0]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(RNNCellBase):
    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh", device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    @property
    def _mode(self) -> str:  # type: ignore[override]
        return f"RNN_{self.nonlinearity.upper()}"


class LSTMCell(RNNCellBase):
    _mode = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)


class GRUCell(RNNCellBase):
    _mode = "GRU"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)
