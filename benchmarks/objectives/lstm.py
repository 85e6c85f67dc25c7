"""LSTM objective of ADBench: next-character log-loss of an l-layer LSTM over c characters.

The mathematics is ADBench's `lstm_objective` (src/cpp/shared/lstm.h): characters are b-bit
vectors (sequence, c x b); layer j has weights main_params[2j] = [forget, ingate, outgate,
change] and biases main_params[2j + 1] (each 4b), state[2j] / state[2j + 1] its hidden /
cell state (copied, the arguments are not changed).  For each gate element i

    forget = sigmoid(in_i wf_i + bf_i)      ingate = sigmoid(h_i wi_i + bi_i)
    outgate = sigmoid(in_i wo_i + bo_i)     change = tanh(h_i wc_i + bc_i)
    cell_i = cell_i forget + ingate change  h_i = outgate tanh(cell_i)

with in = sequence[t] * in_weight for layer 0 and the previous layer's new hidden state
above it; the prediction is h_last * out_weight + out_bias, normalized by ADBench's
logsumexp (log(sum(exp(y)) + 2)), and the loss is -sum(sequence[t+1] . ynorm) / ((c-1) b).
The gradient is taken with respect to main_params (2l x 4b) and extra_params (3 x b).
Data follow ADBench's generator: parameters and state uniform on [0, 1); the text is
random printable ASCII, each character as b bits, most significant first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

NAME = "lstm"
TITLE = "LSTM (ADBench)"
ARGNUMS = (0, 1)
C_SOURCE = Path(__file__).with_suffix(".c")


@dataclass(frozen=True)
class Size:
    """l layers, c characters of b bits."""

    label: str
    l: int  # noqa: E741 (ADBench's name)
    c: int
    b: int


def sizes(quick: bool) -> list[Size]:
    """ADBench's l=2, c=1024 with b=14 bits, or a short sequence when `quick`."""
    if quick:
        return [Size("l2 c20 b5", 2, 20, 5)]
    return [Size("l2 c1024 b14", 2, 1024, 14)]


def make_args(size: Size, seed: int = 0) -> tuple:
    """(main_params, extra_params, state, sequence, l, c, b), drawn like ADBench's generator."""
    rng = np.random.default_rng(seed)
    l, c, b = size.l, size.c, size.b
    state = rng.random((2 * l, b))
    main_params = rng.random((2 * l, 4 * b))
    extra_params = rng.random((3, b))
    codes = rng.integers(32, 127, c) % (1 << b)
    shifts = np.arange(b - 1, -1, -1)
    sequence = ((codes[:, None] >> shifts[None, :]) & 1).astype(np.float64)
    return main_params, extra_params, state, np.ascontiguousarray(sequence), l, c, b


# --- the Python-subset form ------------------------------------------------------------------


def _sigmoid(x):
    """ADBench's sigmoid: 1 / (1 + exp(-x))."""
    return 1.0 / (1.0 + math.exp(-x))


def _logsumexp(v, b):
    """ADBench's LSTM logsumexp: log(sum(exp(v[:b])) + 2), unshifted."""
    s = 0.0
    for i in range(b):
        s += math.exp(v[i])
    s += 2.0
    return math.log(s)


def _lstm_model(b, main_params, layer, st, src, src_row):
    """One LSTM layer on input src[src_row]: updates st[2 layer] (hidden), st[2 layer + 1]."""
    h = 2 * layer
    for i in range(b):
        inp = src[src_row, i]
        forget = _sigmoid(inp * main_params[h, i] + main_params[h + 1, i])
        ingate = _sigmoid(st[h, i] * main_params[h, b + i] + main_params[h + 1, b + i])
        outgate = _sigmoid(inp * main_params[h, 2 * b + i] + main_params[h + 1, 2 * b + i])
        change = math.tanh(st[h, i] * main_params[h, 3 * b + i] + main_params[h + 1, 3 * b + i])
        st[h + 1, i] = st[h + 1, i] * forget + ingate * change
        st[h, i] = outgate * math.tanh(st[h + 1, i])


def _lstm_predict(l, b, main_params, extra_params, st, sequence, t, xin, ypred):
    """ADBench's lstm_predict on character t: advances every layer, writes ypred (b)."""
    for i in range(b):
        xin[0, i] = sequence[t, i] * extra_params[0, i]
    _lstm_model(b, main_params, 0, st, xin, 0)
    for layer in range(1, l):
        _lstm_model(b, main_params, layer, st, st, 2 * (layer - 1))
    for i in range(b):
        ypred[i] = st[2 * (l - 1), i] * extra_params[1, i] + extra_params[2, i]


def primal(main_params, extra_params, state, sequence, l, c, b):
    """ADBench's lstm_objective (see the module docstring); a float."""
    st = np.empty((2 * l, b))
    for r in range(2 * l):
        for i in range(b):
            st[r, i] = state[r, i]
    xin = np.empty((1, b))
    ypred = np.empty(b)
    total = 0.0
    count = 0
    for t in range(c - 1):
        _lstm_predict(l, b, main_params, extra_params, st, sequence, t, xin, ypred)
        lse = _logsumexp(ypred, b)
        for i in range(b):
            total += sequence[t + 1, i] * (ypred[i] - lse)
        count += b
    return -total / count


# --- the JAX form ----------------------------------------------------------------------------


def jax_primal(main_params, extra_params, state, sequence, l, c, b):
    """The same objective in jax.numpy, the time loop a `lax.scan` (shapes from the arrays)."""
    import jax
    import jax.numpy as jnp

    layers = main_params.shape[0] // 2
    bits = sequence.shape[1]
    weights = main_params[0::2].reshape(layers, 4, bits)
    biases = main_params[1::2].reshape(layers, 4, bits)

    def step(carry, t_pair):
        hidden, cell = carry
        x_t, gold = t_pair
        inp = x_t * extra_params[0]
        new_h, new_c = [], []
        for j in range(layers):
            w, bias = weights[j], biases[j]
            forget = _jax_sigmoid(inp * w[0] + bias[0])
            ingate = _jax_sigmoid(hidden[j] * w[1] + bias[1])
            outgate = _jax_sigmoid(inp * w[2] + bias[2])
            change = jnp.tanh(hidden[j] * w[3] + bias[3])
            cj = cell[j] * forget + ingate * change
            hj = outgate * jnp.tanh(cj)
            new_h.append(hj)
            new_c.append(cj)
            inp = hj
        ypred = inp * extra_params[1] + extra_params[2]
        lse = jnp.log(jnp.sum(jnp.exp(ypred)) + 2.0)
        return (jnp.stack(new_h), jnp.stack(new_c)), jnp.sum(gold * (ypred - lse))

    init = (state[0::2], state[1::2])
    _, terms = jax.lax.scan(step, init, (sequence[:-1], sequence[1:]))
    return -jnp.sum(terms) / ((sequence.shape[0] - 1) * bits)


def _jax_sigmoid(x):
    """ADBench's sigmoid in jax.numpy."""
    import jax.numpy as jnp

    return 1.0 / (1.0 + jnp.exp(-x))
