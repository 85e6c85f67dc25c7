"""The demo's Python example: fit y ~ a * exp(-b t) + c by gradient descent with `grad`."""

import math

import numpy as np


def loss(params, t, y):
    """Mean squared error of the model a * exp(-b t) + c on the data (t, y), NumPy-style."""
    a, b, c = params[0], params[1], params[2]
    r = a * np.exp(-b * t) + c - y
    return np.mean(r * r)


def loss_loop(params, t, y):
    """The same loss as a loop (the same gradient, to rounding)."""
    a = params[0]
    b = params[1]
    c = params[2]
    s = 0.0
    for i in range(t.shape[0]):
        r = a * math.exp(-b * t[i]) + c - y[i]
        s += r * r
    return s / t.shape[0]


def make_data(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = np.array([2.5, 1.3, 0.5])
    t = np.linspace(0.0, 4.0, n)
    y = truth[0] * np.exp(-truth[1] * t) + truth[2] + 0.01 * rng.standard_normal(n)
    return t, y, truth
