"""Analytic two-bone IK on joint matrices (upper, mid, end: shoulder-elbow-hand, hip-knee-foot), for many limbs at once.

Works on the joints' net matrices in Character space (Panda3D row-vector convention:
`net = local * parent_net`, a point `p` goes to `p @ net[:3, :3] + net[3, :3]`), as numpy arrays
whose leading axis is the limb: one call bends every limb of a crowd (ik.limbs), so numpy's cost
per call is paid once a frame, not once a limb. The bend direction (where the elbow or knee
points) is taken from the animated pose, so the solve only changes how far the limb bends and
where it points, never which way it folds; the end joint keeps its animated orientation (a foot
stays flat, a hand keeps its grip).
"""
import numpy as np

from .quats import dot, qmul, rows_of

#: Fraction of full reach no limb goes beyond (a fully locked knee or elbow has no bend plane).
MAX_REACH = 0.9995
#: Fraction of full reach the IK stretches a limb to at most (unless the animation is straighter).
STRETCH = 0.95
#: How far (fraction of the upper bone) the mid joint must sit off the limb's line before the
#: animated bend direction outweighs last frame's.
STRAIGHT = 0.01

_X, _Y = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])


def norm(v):
    return np.sqrt(dot(v, v))


def cross(a, b):
    """Row-wise cross products over the last axis (np.cross costs several times more on small arrays)."""
    ax, ay, az, bx, by, bz = a[..., 0], a[..., 1], a[..., 2], b[..., 0], b[..., 1], b[..., 2]
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    out[..., 0], out[..., 1], out[..., 2] = ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx
    return out


def solve(upper, mid, end, target, bend):
    """New net matrices (n, 3, 4, 4: upper, mid, end) putting each `end`'s origin on its
    `target` (n, 3; Character space). `bend` (n, 3): the direction each mid joint bends toward
    (`bend_direction` of the animated pose). Out-of-reach targets get the limb pointed at them,
    nearly straight; a degenerate limb (a zero-length bone, a target on its root) is kept."""
    a, b, c = upper[:, 3, :3], mid[:, 3, :3], end[:, 3, :3]
    bones = np.stack([b - a, c - b, target - a, c - a], axis=1)
    len1, len2, dist, span = np.sqrt(np.einsum("nki,nki->kn", bones, bones))
    keep = np.minimum(np.minimum(len1, len2), dist) < 1e-9
    if keep.any():
        len1, len2, dist = np.where(keep, 1.0, len1), np.where(keep, 1.0, len2), np.where(keep, 1.0, dist)
    u = bones[:, 2] / dist[:, None]
    d = np.maximum(np.minimum(dist, reach_limit(span, len1 + len2)), np.abs(len1 - len2) + 1e-4)
    side = bend - u * dot(bend, u)[:, None]
    length = norm(side)
    along = length < 1e-6
    if along.any():   # the bend direction lies along the new limb: any perpendicular works
        other = cross(u, np.where((np.abs(u[:, 0]) < 0.9)[:, None], _X, _Y))
        side, length = np.where(along[:, None], other, side), np.where(along, norm(other), length)
    cos_a = np.clip((len1 * len1 + d * d - len2 * len2) / (2 * len1 * d), -1.0, 1.0)
    new_b = a + (u * (cos_a * len1)[:, None] + side * (np.sqrt(1.0 - cos_a * cos_a) * len1 / length)[:, None])
    new_c = a + u * d[:, None]
    # the upper joint turns about its origin so the mid joint lands on new_b; then the mid joint
    # turns about new_b so the end lands on new_c; the end keeps its orientation
    turn1 = turn_between(bones[:, 0], new_b - a, len1 * len1)
    turned_c = a + np.matmul(bones[:, 3, None, :], rows_of(turn1))[:, 0]
    turn2 = qmul(turn1, turn_between(turned_c - new_b, new_c - new_b, len2 * len2))
    new = np.stack([upper, mid, end], axis=1)
    new[:, :2, :3, :3] = np.matmul(new[:, :2, :3, :3], rows_of(np.stack([turn1, turn2], axis=1)))
    new[:, 1, 3, :3], new[:, 2, 3, :3] = new_b, new_c
    return np.where(keep[:, None, None, None], np.stack([upper, mid, end], axis=1), new) if keep.any() else new


def slide_within_reach(upper, target, reach, up):
    """`target` (n, 3), moved along the level plane through it (normal `up`, unit vectors) toward
    the point of that plane under `upper` just far enough to be `reach` (n) from `upper`: a planted
    foot whose hip has travelled further than the leg reaches slides along what it stands on instead
    of lifting off it. Unchanged when already within reach; the point under `upper` when even
    that is out of reach (then nothing on the plane is)."""
    to = target - upper
    out = norm(to) > reach
    if not out.any():
        return target
    under = upper + up * dot(to, up)[:, None]        # the plane's point closest to `upper`
    across = norm(under - upper)
    along = target - under
    length = norm(along)
    far = (across >= reach) | (length < 1e-9)
    scale = np.sqrt(np.maximum(reach * reach - across * across, 0.0)) / np.where(far, 1.0, length)
    slid = np.where(far[:, None], under, under + along * scale[:, None])
    return np.where(out[:, None], slid, target)


def reach_limit(animated, reach):
    """The longest span the IK stretches a limb to: STRETCH of its full reach, or the animated span
    when the animation has it straighter. A limb never locks straight, so it never snaps out of it.
    Numbers or numpy arrays."""
    return np.minimum(np.maximum(reach * STRETCH, animated), reach * MAX_REACH)


def bend_direction(a, b, c, previous):
    """Where each mid joint `b` sits off the line from `a` to `c` (unit vectors; (n, 3) arrays).

    `previous` (last frame's directions, zero where there is none) is added with a small weight:
    it only decides when the animated limb is (nearly) straight, so the knee never flips sides
    between two frames.
    """
    axis, off = c - a, b - a
    span = norm(axis)
    axis = axis / np.where(span > 1e-9, span, 1.0)[:, None]
    off = off - axis * dot(off, axis)[:, None] + previous * (STRAIGHT * norm(b - a))[:, None]
    length = norm(off)
    return off * np.where(length > 1e-12, 1.0 / np.where(length > 1e-12, length, 1.0), 0.0)[:, None]


def turn_between(frm, to, lengths):
    """Unit quaternions (n, 4) of the smallest rotations turning each direction `frm` into `to` (as
    Panda3D's `rotateTo`; opposite directions turn half a turn about an axis across `frm`);
    `lengths`: |frm| |to| (the solve knows them)."""
    quat = np.empty((len(frm), 4))
    quat[:, 0], quat[:, 1:] = lengths + dot(frm, to), cross(frm, to)
    size = norm(quat)
    flat = size < 1e-9 * lengths
    if flat.any():   # opposite: half a turn about an axis across `frm`
        across = cross(frm, np.where((np.abs(frm[:, 0]) < 0.9 * np.sqrt(lengths))[:, None], _X, _Y))
        quat[flat, 0], quat[flat, 1:] = 0.0, across[flat]
        size = norm(quat)
    return quat / size[:, None]
