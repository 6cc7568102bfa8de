"""Rotations as numpy rows of unit quaternions (w, x, y, z), for many joints at once (the contact IK's
turn limit and two-bone solve). Products are Panda3D's order: `qmul(a, b)` turns by `a`, then by
`b`, as its row-vector matrices compose (`rows_of(qmul(a, b)) == rows_of(a) @ rows_of(b)`).
"""
import numpy as np


def turns(a, b):
    """Degrees between rotations `a` and `b` (rows of unit quaternions; 0 to 180)."""
    return 2.0 * np.degrees(np.arccos(np.minimum(np.abs(dot(a, b)), 1.0)))


def qmul(a, b):
    """Rows of `a * b` in Panda3D's order: turn by `a`, then by `b` (Hamilton's b a)."""
    return np.matmul(b[..., _QIDX] * _QSIGN, a[..., None])[..., 0]


def conj(q):
    return q * _CONJ


def slerps(a, b, u):
    """Spherical interpolation of rows of unit quaternions, along the shorter arc (as warpmath.slerp)."""
    cos = dot(a, b)
    b = np.where((cos < 0.0)[..., None], -b, b)
    cos = np.minimum(np.abs(cos), 1.0)
    linear = cos > 0.9995
    theta = np.arccos(cos)
    sin = np.where(linear, 1.0, np.sin(theta))
    wa = np.where(linear, 1.0 - u, np.sin((1.0 - u) * theta) / sin)
    wb = np.where(linear, u, np.sin(u * theta) / sin)
    out = a * wa[..., None] + b * wb[..., None]
    return out / np.sqrt(dot(out, out))[..., None]


def quats_of(rows):
    """Unit quaternions (..., 4) of rotation matrices (..., 3, 3; Panda3D's row-vector matrices,
    each row scaled by the joint's scale), by Shepperd's method (exact for small and large turns):
    of the four ways to compute it, the one whose divisor is largest."""
    m = rows / np.sqrt(np.einsum("...ij,...ij->...i", rows, rows))[..., None]
    terms = np.matmul(m.reshape(m.shape[:-2] + (9,)), _SHEPPERD).reshape(m.shape[:-2] + (4, 4)) + _SHEPPERD_ONE
    best = _ONE_HOT[np.argmax(np.diagonal(terms, axis1=-2, axis2=-1), axis=-1)]
    chosen = np.einsum("...ij,...i->...j", terms, best)
    return chosen / (2.0 * np.sqrt(np.einsum("...i,...i->...", chosen, best)))[..., None]


def rows_of(quats):
    """Panda3D's row-vector rotation matrices (..., 3, 3) of unit quaternions (..., 4): each entry
    is a quadratic form of the quaternion, so one product with a constant table gives all nine."""
    outer = quats[..., :, None] * quats[..., None, :]
    return np.matmul(outer.reshape(quats.shape[:-1] + (16,)), _ROWS).reshape(quats.shape[:-1] + (3, 3))


def dot(a, b):
    """Row-wise dot products over the last axis (einsum: numpy's sum over a short last axis costs more)."""
    return np.einsum("...i,...i->...", a, b)


def _shepperd():
    """The four ways of Shepperd's method as linear terms of a row-vector matrix's 9 entries: way i
    gives 4 times component i squared at [i, i] and 4 times component i times component j at [i, j]."""
    terms = np.zeros((3, 3, 4, 4))
    t = np.zeros((3, 3))
    t[0, 0] = t[1, 1] = t[2, 2] = 1.0
    xs, ys, zs = np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((3, 3))
    xs[1, 2], xs[2, 1], ys[2, 0], ys[0, 2], zs[0, 1], zs[1, 0] = 1, -1, 1, -1, 1, -1
    xy, xz, yz = np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((3, 3))
    xy[0, 1] = xy[1, 0] = xz[0, 2] = xz[2, 0] = yz[1, 2] = yz[2, 1] = 1.0
    diag = [t] + [2 * np.eye(3)[i][:, None] * np.eye(3)[i][None, :] - t for i in range(3)]
    ways = [[diag[0], xs, ys, zs], [xs, diag[1], xy, xz], [ys, xy, diag[2], yz], [zs, xz, yz, diag[3]]]
    for i, way in enumerate(ways):
        for j, term in enumerate(way):
            terms[:, :, i, j] = term
    return terms.reshape(9, 16), np.eye(4)


def _rows_table():
    """(16, 9): q_a q_b times entry [a, b] gives the row-vector rotation matrix of unit quaternion q."""
    table = np.zeros((4, 4, 3, 3))
    w, x, y, z = range(4)
    for (i, j), terms in {(0, 0): [(w, w, 1), (x, x, 1), (y, y, -1), (z, z, -1)], (0, 1): [(x, y, 2), (w, z, 2)],
                          (0, 2): [(x, z, 2), (w, y, -2)], (1, 0): [(x, y, 2), (w, z, -2)],
                          (1, 1): [(w, w, 1), (x, x, -1), (y, y, 1), (z, z, -1)], (1, 2): [(y, z, 2), (w, x, 2)],
                          (2, 0): [(x, z, 2), (w, y, 2)], (2, 1): [(y, z, 2), (w, x, -2)],
                          (2, 2): [(w, w, 1), (x, x, -1), (y, y, -1), (z, z, 1)]}.items():
        for a, b, k in terms:
            table[a, b, i, j] += k
    return table.reshape(16, 9)


_SHEPPERD, _SHEPPERD_ONE = _shepperd()
_ROWS = _rows_table()
_ONE_HOT = np.eye(4)
_CONJ = np.array([1.0, -1.0, -1.0, -1.0])
_QIDX = np.array([[0, 1, 2, 3], [1, 0, 3, 2], [2, 3, 0, 1], [3, 2, 1, 0]])
_QSIGN = np.array([[1.0, -1.0, -1.0, -1.0], [1.0, 1.0, -1.0, 1.0], [1.0, 1.0, 1.0, -1.0], [1.0, -1.0, 1.0, 1.0]])
