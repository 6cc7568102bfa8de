"""Smooth curves through authored keys: the torso, root and free-limb paths of every clip."""
import numpy as np


def smoothstep(x):
    x = min(max(x, 0.0), 1.0)
    return x * x * (3.0 - 2.0 * x)


def ramp(t, t0, t1):
    """Smooth 0 -> 1 as t goes t0 -> t1."""
    if t1 <= t0:
        return 1.0 if t >= t1 else 0.0
    return smoothstep((t - t0) / (t1 - t0))


class Curve:
    """Monotone piecewise-cubic (PCHIP) interpolation through keys [(t, value), ...].

    C1-smooth, never overshoots the keys, flat before the first / after the last key.
    """

    def __init__(self, keys):
        self.t = np.array([k[0] for k in keys], dtype=np.float64)
        self.v = np.array([np.atleast_1d(np.asarray(k[1], dtype=np.float64)) for k in keys])
        self.scalar = np.ndim(keys[0][1]) == 0
        n = len(self.t)
        h = np.diff(self.t)
        d = np.diff(self.v, axis=0) / h[:, None] if n > 1 else np.zeros((0, self.v.shape[1]))
        m = np.zeros_like(self.v)
        for i in range(1, n - 1):
            w1, w2 = 2 * h[i] + h[i - 1], h[i] + 2 * h[i - 1]
            for c in range(self.v.shape[1]):
                a, b = d[i - 1, c], d[i, c]
                if a * b > 0:
                    m[i, c] = (w1 + w2) / (w1 / a + w2 / b)
        self.m = m

    def __call__(self, t):
        ts = self.t
        if t <= ts[0]:
            out = self.v[0]
        elif t >= ts[-1]:
            out = self.v[-1]
        else:
            i = int(np.searchsorted(ts, t, side="right")) - 1
            h = ts[i + 1] - ts[i]
            s = (t - ts[i]) / h
            h00 = 2 * s ** 3 - 3 * s ** 2 + 1
            h10 = s ** 3 - 2 * s ** 2 + s
            h01 = -2 * s ** 3 + 3 * s ** 2
            h11 = s ** 3 - s ** 2
            out = h00 * self.v[i] + h10 * h * self.m[i] + h01 * self.v[i + 1] + h11 * h * self.m[i + 1]
        return float(out[0]) if self.scalar else out.copy()


def curves(table):
    """{name: [(t, v), ...]} -> {name: Curve}."""
    return {k: Curve(v) for k, v in table.items()}
