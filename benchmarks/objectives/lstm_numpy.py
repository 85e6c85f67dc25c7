"""LSTM objective of ADBench in NumPy form: vector gates over a Python loop of time steps.

The mathematics, sizes and data are those of `lstm` (the loop form; see its docstring),
written the way ADBench's NumPy version writes them: one layer is
`gates = np.concatenate((inp, hidden, inp, hidden)) * weight + bias` (ADBench's weights are
per element, so this is its `W @ x + b`) cut into four slices, and the hidden and cell
states of all layers are rows of two (l x b) arrays updated row by row each time step.

The JAX reference runs the same layer source (`lstm_model`, `np` bound to `jax.numpy` by
`same_source`) with the time loop as the `lax.scan` a JAX user writes: a Python loop of
c - 1 steps under `jax.jit` would unroll into the XLA graph.  Invariants: the value
equals the loop form's to rounding; the arguments are never written.
"""

from __future__ import annotations

import numpy as np

from benchmarks.objectives.lstm import Size, make_args, sizes
from benchmarks.objectives.same_source import with_jax_numpy

NAME = "lstm_numpy"
TITLE = "LSTM (ADBench), NumPy form"
FORM = "numpy"
LOOP_FORM = "lstm"
ARGNUMS = (0, 1)
C_SOURCE = None  # the C form is the loop form's

__all__ = ["ARGNUMS", "C_SOURCE", "FORM", "LOOP_FORM", "NAME", "TITLE", "Size", "jax_primal",
           "make_args", "primal", "sizes"]


def sigmoid(x):
    """ADBench's sigmoid: 1 / (1 + exp(-x))."""
    return 1.0 / (1.0 + np.exp(-x))


def lstm_model(b, weight, bias, hidden, cell, inp):
    """One LSTM layer: the new (hidden, cell) from the input `inp` (each b)."""
    gates = np.concatenate((inp, hidden, inp, hidden)) * weight + bias
    forget = sigmoid(gates[0:b])
    ingate = sigmoid(gates[b:2 * b])
    outgate = sigmoid(gates[2 * b:3 * b])
    change = np.tanh(gates[3 * b:])
    cell = cell * forget + ingate * change
    hidden = outgate * np.tanh(cell)
    return hidden, cell


def primal(main_params, extra_params, state, sequence, l, c, b):
    """ADBench's lstm_objective in array form; a float."""
    hs = state[0::2].copy()
    cs = state[1::2].copy()
    total = 0.0
    for t in range(c - 1):
        xin = sequence[t] * extra_params[0]
        h, cl = lstm_model(b, main_params[0], main_params[1], hs[0], cs[0], xin)
        hs[0] = h
        cs[0] = cl
        for j in range(1, l):
            h, cl = lstm_model(b, main_params[2 * j], main_params[2 * j + 1], hs[j], cs[j],
                               hs[j - 1])
            hs[j] = h
            cs[j] = cl
        ypred = hs[l - 1] * extra_params[1] + extra_params[2]
        lse = np.log(np.sum(np.exp(ypred)) + 2.0)
        total += np.sum(sequence[t + 1] * (ypred - lse))
    return -total / ((c - 1) * b)


def jax_primal(main_params, extra_params, state, sequence, l, c, b):
    """`lstm_model`'s source run by jax.numpy, the time loop a `lax.scan` (ints static)."""
    import jax
    import jax.numpy as jnp

    model = with_jax_numpy(lstm_model)

    def step(carry, pair):
        hs, cs = carry
        x_t, gold = pair
        inp = x_t * extra_params[0]
        new_h, new_c = [], []
        for j in range(l):
            h, cl = model(b, main_params[2 * j], main_params[2 * j + 1], hs[j], cs[j], inp)
            new_h.append(h)
            new_c.append(cl)
            inp = h
        ypred = inp * extra_params[1] + extra_params[2]
        lse = jnp.log(jnp.sum(jnp.exp(ypred)) + 2.0)
        return (jnp.stack(new_h), jnp.stack(new_c)), jnp.sum(gold * (ypred - lse))

    _, terms = jax.lax.scan(step, (state[0::2], state[1::2]), (sequence[:-1], sequence[1:]))
    return -jnp.sum(terms) / ((c - 1) * b)
