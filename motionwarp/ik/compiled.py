"""The contact IK's optional compiled bends: every limb a ContactIK bends in a frame, in one numba call.

The same arithmetic as `limbs.LimbBender` (the two-bone solve with `bend_direction`,
`reach_limit` and `slide_within_reach`, and the turn limiter's `limit`, `let_go` and
`beyond_a_frame`), in float64 over numpy arrays, compiled with numba (`njit(cache=True)`) when it
imports (the optional extra `motionwarp[fast]`). Bending limbs one Panda3D call at a time was
most of a frame's cost (two limbs: 4.9 of 9.4x update); here Python only copies each limb's
matrices in and out through numpy views of `PTA_LMatrix4f` arrays (one call a matrix, none a
number) and the limiter's rotations stay in the arrays between frames. The pure-Python path stays
the reference: tests/test_contact_ik_compiled.py runs the same vaults both ways and compares
every joint frame by frame. A limb whose matrices have shear or a mirroring scale makes the
ContactIK bend in Python from then on.

Conventions are Panda3D's: matrices are row-vector (`net = local * parent_net`, translation in
row 3), quaternions (r, i, j, k) compose as Panda3D's `q1 * q2` (q1, then q2).
"""
import importlib
import math
from typing import Any
import numpy as np
from panda3d.core import PTA_LMatrix4f, LMatrix4f, TransformState

from .limbs import BentLimb
from .turn_limit import LET_GO_DEG
from .twobone import MAX_REACH, STRAIGHT, STRETCH

numba: Any
try:   # imported by name so that type checking reads the same with and without the optional extra
    numba = importlib.import_module("numba")
except ImportError:   # the optional extra is not installed: ContactIK bends in Python
    numba = None

#: Does the compiled path exist here (numba imported)?
AVAILABLE = numba is not None

#: Matrices in per limb: the net of its parent (identity: none), the animated locals of upper,
#: mid and end (their nets follow), one of numbers (see CompiledLimbs.bend), and the pelvis's
#: motion of the parent (its net times it; identity: none).
_IN = 6
#: Matrices out per limb: the locals of upper, mid and end to freeze, and one of results.
_OUT = 4
#: Per limb and joint in `state`: bent? (1/0), its local rotation, its animated local rotation,
#: its limb's parent's net rotation (the upper joint's; identity for the others).
_STATE = 13


def _compiled(function):
    return numba.njit(cache=True, nogil=True)(function) if numba is not None else function


# Vectors are 3-tuples and quaternions 4-tuples here: no array to allocate for each step of the
# arithmetic (allocating them was most of a first version's time).
@_compiled
def _v(row):
    """The 3-tuple (float64) of an array row's first three numbers."""
    return (float(row[0]), float(row[1]), float(row[2]))


@_compiled
def _add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@_compiled
def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@_compiled
def _times(a, k):
    return (a[0] * k, a[1] * k, a[2] * k)


@_compiled
def _norm(v):
    return math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])


@_compiled
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@_compiled
def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


# Quaternions are 4-tuples here (no array to allocate: most of the arithmetic is on them).
@_compiled
def _qmul(a, b):
    """Panda3D's a * b (a, then b): the Hamilton product b a."""
    return (b[0] * a[0] - b[1] * a[1] - b[2] * a[2] - b[3] * a[3],
            b[0] * a[1] + b[1] * a[0] + b[2] * a[3] - b[3] * a[2],
            b[0] * a[2] - b[1] * a[3] + b[2] * a[0] + b[3] * a[1],
            b[0] * a[3] + b[1] * a[2] - b[2] * a[1] + b[3] * a[0])


@_compiled
def _conj(q):
    return (q[0], -q[1], -q[2], -q[3])


@_compiled
def _quat4(row):
    """The 4-tuple of an array row."""
    return (row[0], row[1], row[2], row[3])


@_compiled
def _turn(a, b):
    """turn_limit._turn without parents: degrees from rotation `a` to `b` (turn_angle)."""
    q = _qmul(_conj(a), b)
    return 2.0 * math.degrees(math.atan2(math.sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), abs(q[0])))


@_compiled
def _within(a, b, most):
    """turn_limit._within without parents."""
    return abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]) >= math.cos(math.radians(min(most, 180.0)) / 2.0)


@_compiled
def _slerp(q0, q1, u):
    """warpmath.slerp."""
    dot = q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3]
    sign = 1.0
    if dot < 0.0:
        sign, dot = -1.0, -dot
    if dot > 0.9995:
        wa, wb = 1.0 - u, u
    else:
        theta = math.acos(min(dot, 1.0))
        wa, wb = math.sin((1.0 - u) * theta) / math.sin(theta), math.sin(u * theta) / math.sin(theta)
    wb *= sign
    r, i, j, k = (wa * q0[0] + wb * q1[0], wa * q0[1] + wb * q1[1], wa * q0[2] + wb * q1[2], wa * q0[3] + wb * q1[3])
    n = math.sqrt(r * r + i * i + j * j + k * k)
    return (r / n, i / n, j / n, k / n)


@_compiled
def _scales(mat):
    """(row lengths of the upper 3x3, usable?): usable when it is a rotation times a positive
    scale along its rows (no shear, no mirroring), as TransformState decomposes it."""
    s0, s1, s2 = _norm(mat[0, :3]), _norm(mat[1, :3]), _norm(mat[2, :3])
    if min(s0, s1, s2) < 1e-12:
        return (s0, s1, s2), False
    m = mat
    d01 = (m[0, 0] * m[1, 0] + m[0, 1] * m[1, 1] + m[0, 2] * m[1, 2]) / (s0 * s1)
    d02 = (m[0, 0] * m[2, 0] + m[0, 1] * m[2, 1] + m[0, 2] * m[2, 2]) / (s0 * s2)
    d12 = (m[1, 0] * m[2, 0] + m[1, 1] * m[2, 1] + m[1, 2] * m[2, 2]) / (s1 * s2)
    if abs(d01) > 1e-4 or abs(d02) > 1e-4 or abs(d12) > 1e-4:
        return (s0, s1, s2), False
    det = (m[0, 0] * (m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1]) - m[0, 1] * (m[1, 0] * m[2, 2] - m[1, 2] * m[2, 0])
           + m[0, 2] * (m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0]))
    return (s0, s1, s2), det > 0.0


@_compiled
def _quat(mat, s):
    """The rotation (r, i, j, k) of a row-vector matrix whose rows have lengths `s`."""
    m00, m01, m02 = mat[0, 0] / s[0], mat[0, 1] / s[0], mat[0, 2] / s[0]
    m10, m11, m12 = mat[1, 0] / s[1], mat[1, 1] / s[1], mat[1, 2] / s[1]
    m20, m21, m22 = mat[2, 0] / s[2], mat[2, 1] / s[2], mat[2, 2] / s[2]
    # Panda3D's quaternion is the Hamilton one of the column-vector rotation, the transpose of m
    trace = m00 + m11 + m22
    if trace > 0.0:
        t = math.sqrt(trace + 1.0) * 2.0
        r, i, j, k = 0.25 * t, (m12 - m21) / t, (m20 - m02) / t, (m01 - m10) / t
    elif m00 > m11 and m00 > m22:
        t = math.sqrt(1.0 + m00 - m11 - m22) * 2.0
        r, i, j, k = (m12 - m21) / t, 0.25 * t, (m10 + m01) / t, (m20 + m02) / t
    elif m11 > m22:
        t = math.sqrt(1.0 + m11 - m00 - m22) * 2.0
        r, i, j, k = (m20 - m02) / t, (m10 + m01) / t, 0.25 * t, (m21 + m12) / t
    else:
        t = math.sqrt(1.0 + m22 - m00 - m11) * 2.0
        r, i, j, k = (m01 - m10) / t, (m20 + m02) / t, (m21 + m12) / t, 0.25 * t
    n = math.sqrt(r * r + i * i + j * j + k * k)
    if r < 0.0:
        n = -n
    return (r / n, i / n, j / n, k / n)


@_compiled
def _set_rotation(local, q, s):
    """Rows 0-2 of `local`: the row-vector rotation of quaternion `q`, scaled by `s` along the rows."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    local[0, 0], local[0, 1], local[0, 2] = (1.0 - 2.0 * (y * y + z * z)) * s[0], 2.0 * (x * y + w * z) * s[0], \
        2.0 * (x * z - w * y) * s[0]
    local[1, 0], local[1, 1], local[1, 2] = 2.0 * (x * y - w * z) * s[1], (1.0 - 2.0 * (x * x + z * z)) * s[1], \
        2.0 * (y * z + w * x) * s[1]
    local[2, 0], local[2, 1], local[2, 2] = 2.0 * (x * z + w * y) * s[2], 2.0 * (y * z - w * x) * s[2], \
        (1.0 - 2.0 * (x * x + y * y)) * s[2]


@_compiled
def _mul(a, b):
    """a times b (4x4; numba's `@` needs SciPy's BLAS)."""
    out = np.empty((4, 4))
    for i in range(4):
        for j in range(4):
            out[i, j] = a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j] + a[i, 3] * b[3, j]
    return out


@_compiled
def _inverse(mat):
    """The inverse of an affine row-vector 4x4 matrix."""
    a = mat[:3, :3]
    c00 = a[1, 1] * a[2, 2] - a[1, 2] * a[2, 1]
    c01 = a[1, 2] * a[2, 0] - a[1, 0] * a[2, 2]
    c02 = a[1, 0] * a[2, 1] - a[1, 1] * a[2, 0]
    det = a[0, 0] * c00 + a[0, 1] * c01 + a[0, 2] * c02
    inv = np.zeros((4, 4))
    inv[0, 0], inv[1, 0], inv[2, 0] = c00 / det, c01 / det, c02 / det
    inv[0, 1] = (a[0, 2] * a[2, 1] - a[0, 1] * a[2, 2]) / det
    inv[1, 1] = (a[0, 0] * a[2, 2] - a[0, 2] * a[2, 0]) / det
    inv[2, 1] = (a[0, 1] * a[2, 0] - a[0, 0] * a[2, 1]) / det
    inv[0, 2] = (a[0, 1] * a[1, 2] - a[0, 2] * a[1, 1]) / det
    inv[1, 2] = (a[0, 2] * a[1, 0] - a[0, 0] * a[1, 2]) / det
    inv[2, 2] = (a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0]) / det
    t = mat[3, :3]
    for j in range(3):
        inv[3, j] = -(t[0] * inv[0, j] + t[1] * inv[1, j] + t[2] * inv[2, j])
    inv[3, 3] = 1.0
    return inv


@_compiled
def _rotation(frm, to):
    """twobone.rotation_about's rotation, the smallest turning direction `frm` into `to`: a
    row-vector 3x3 as a 9-tuple, row by row."""
    a, b = _times(frm, 1.0 / _norm(frm)), _times(to, 1.0 / _norm(to))
    axis = _cross(a, b)
    sin, cos = _norm(axis), _dot(a, b)
    if sin < 1e-7:
        if cos >= 0.0:
            return (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
        # opposite: half a turn about any perpendicular axis
        axis = _cross(a, (1.0, 0.0, 0.0) if abs(a[0]) < 0.9 else (0.0, 1.0, 0.0))
        x, y, z = _times(axis, 1.0 / _norm(axis))
        return (2.0 * x * x - 1.0, 2.0 * x * y, 2.0 * x * z, 2.0 * x * y, 2.0 * y * y - 1.0, 2.0 * y * z,
                2.0 * x * z, 2.0 * y * z, 2.0 * z * z - 1.0)
    x, y, z = _times(axis, 1.0 / sin)
    c1 = 1.0 - cos
    # row-vector: v * turn turns v about axis by the angle from a to b
    return (cos + x * x * c1, x * y * c1 + z * sin, x * z * c1 - y * sin,
            x * y * c1 - z * sin, cos + y * y * c1, y * z * c1 + x * sin,
            x * z * c1 + y * sin, y * z * c1 - x * sin, cos + z * z * c1)


@_compiled
def _xform(p, r):
    """Row vector `p` times the 3x3 `r` (a 9-tuple)."""
    return (p[0] * r[0] + p[1] * r[3] + p[2] * r[6], p[0] * r[1] + p[1] * r[4] + p[2] * r[7],
            p[0] * r[2] + p[1] * r[5] + p[2] * r[8])


@_compiled
def _turned(mat, r, pivot):
    """Affine `mat` times the rotation `r` about `pivot` (rotation_about's matrix): a new array."""
    out = np.empty((4, 4))
    for i in range(3):
        x = _xform(_v(mat[i]), r)
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = x[0], x[1], x[2], mat[i, 3]
    p = _add(_xform(_sub(_v(mat[3]), pivot), r), pivot)
    out[3, 0], out[3, 1], out[3, 2], out[3, 3] = p[0], p[1], p[2], mat[3, 3]
    return out


@_compiled
def _reach_limit(animated, reach):
    return min(max(reach * STRETCH, animated), reach * MAX_REACH)


@_compiled
def _slide_within_reach(upper, target, reach, up):
    to = _sub(target, upper)
    if _norm(to) <= reach:
        return target
    under = _add(upper, _times(up, _dot(to, up)))
    across = _norm(_sub(under, upper))
    along = _sub(target, under)
    if across >= reach or _norm(along) < 1e-9:
        return under
    return _add(under, _times(along, math.sqrt(reach * reach - across * across) / _norm(along)))


@_compiled
def _bend_direction(a, b, c, previous, has_previous):
    axis = _sub(c, a)
    if _norm(axis) > 1e-9:
        axis = _times(axis, 1.0 / _norm(axis))
    off = _sub(b, a)
    off = _sub(off, _times(axis, _dot(off, axis)))
    if has_previous:
        off = _add(off, _times(previous, STRAIGHT * _norm(_sub(b, a))))
    n = _norm(off)
    return _times(off, 1.0 / n) if n > 1e-12 else (0.0, 0.0, 0.0)


@_compiled
def _solve(upper, mid, end, target, bend):
    """twobone.solve on float64 4x4 matrices: (new upper, new mid, new end)."""
    a, b, c = _v(upper[3]), _v(mid[3]), _v(end[3])
    len1, len2 = _norm(_sub(b, a)), _norm(_sub(c, b))
    to = _sub(target, a)
    dist = _norm(to)
    if dist < 1e-9 or len1 < 1e-9 or len2 < 1e-9:
        return upper.copy(), mid.copy(), end.copy()
    u = _times(to, 1.0 / dist)
    d = max(min(dist, _reach_limit(_norm(_sub(c, a)), len1 + len2)), abs(len1 - len2) + 1e-4)
    side = _sub(bend, _times(u, _dot(bend, u)))
    if _norm(side) < 1e-6:   # the bend direction lies along the new limb: any perpendicular works
        side = _cross(u, (1.0, 0.0, 0.0)) if abs(u[0]) < 0.9 else _cross(u, (0.0, 1.0, 0.0))
    side = _times(side, 1.0 / _norm(side))
    cos_a = max(-1.0, min(1.0, (len1 * len1 + d * d - len2 * len2) / (2 * len1 * d)))
    new_b = _add(a, _times(_add(_times(u, cos_a), _times(side, math.sqrt(1.0 - cos_a * cos_a))), len1))
    new_c = _add(a, _times(u, d))
    turn1 = _rotation(_sub(b, a), _sub(new_b, a))
    new_upper, mid1 = _turned(upper, turn1, a), _turned(mid, turn1, a)
    c1 = _add(_xform(_sub(c, a), turn1), a)
    new_mid = _turned(mid1, _rotation(_sub(c1, new_b), _sub(new_c, new_b)), new_b)
    new_end = end.copy()
    new_end[3, 0], new_end[3, 1], new_end[3, 2] = new_c
    return new_upper, new_mid, new_end


@_compiled
def _bend_limb(m, last, now, bend_memory, out):
    """One limb: LimbBender.bend's arithmetic with the turn limit; 1 done, -1 when a matrix has
    shear or mirroring (nothing written). `m` (_IN, 4, 4): its matrices in; `last`, `now` (3,
    _STATE): its joints' rotations last frame and this frame (written); `bend_memory` (4): last
    frame's bend direction (has, x, y, z), updated; `out` (_OUT, 4, 4) its matrices out."""
    move, up, most = _v(m[4, 0]), _v(m[4, 1]), _v(m[4, 2])
    weight, letting_go, most_net = float(m[4, 0, 3]), m[4, 1, 3] > 0.5, float(m[4, 2, 3])
    matrices = m[:4].astype(np.float64)
    animated_locals = matrices[1:4]
    for k in range(4):
        if not _scales(matrices[k])[1]:
            return -1
    moved = m[5].astype(np.float64)
    parent_net = _mul(matrices[0], moved)   # as the pelvis moved it
    upper = _mul(animated_locals[0], parent_net)
    mid = _mul(animated_locals[1], upper)
    end = _mul(animated_locals[2], mid)
    a, b, c = _v(upper[3]), _v(mid[3]), _v(end[3])
    kept = _mul(end, _inverse(moved))   # the end keeps its animated turn (a rolled pelvis never tilts a foot)
    animated = _v(kept[3])
    kept[3, 0], kept[3, 1], kept[3, 2] = c
    end = kept
    bend = _bend_direction(a, b, c, _v(bend_memory[1:4]), bend_memory[0] > 0.5)
    reach = _reach_limit(_norm(_sub(c, a)), _norm(_sub(b, a)) + _norm(_sub(c, b)))
    goal = _slide_within_reach(a, _add(animated, move), reach, up)
    new_upper, new_mid, new_end = _solve(upper, mid, end, goal, bend)
    parent_quat = _quat(parent_net, _scales(parent_net)[0])
    identity = (1.0, 0.0, 0.0, 0.0)
    held, above, let_go, beyond = False, parent_net, True, False
    for j in range(3):
        net = new_upper if j == 0 else (new_mid if j == 1 else new_end)
        local = _mul(net, _inverse(above))
        local_scales, usable = _scales(local)
        if not usable:
            return -1
        wanted = _quat(local, local_scales)
        anim_scales = _scales(animated_locals[j])[0]
        anim_quat = _quat(animated_locals[j], anim_scales)
        first, has_last = j == 0, last[j, 0] > 0.5
        last_quat, last_anim, last_parent = _quat4(last[j, 1:5]), _quat4(last[j, 5:9]), _quat4(last[j, 9:13])
        within = has_last and _within(last_quat, wanted, most[j])
        if within and first:
            within = _within(_qmul(last_quat, last_parent), _qmul(wanted, parent_quat), most_net)
        turned = False
        if not within:
            if not has_last:   # not bent last frame: from the animation
                previous = identity
                room = min(most[j], most_net) if first else most[j]
            else:
                previous = _qmul(last_quat, _conj(last_anim))
                room = most[j] - _turn(last_anim, anim_quat)
                if first:
                    room = min(room, most_net - _turn(_qmul(last_anim, last_parent), _qmul(anim_quat, parent_quat)))
            ik = _qmul(wanted, _conj(anim_quat))
            change = _turn(previous, ik)
            if change > room:   # limit_turn: as far toward it as the room lets
                turned = True
                turn = previous if room <= 0.0 else _slerp(previous, ik, room / change)
                wanted = _qmul(turn, anim_quat)
                local = animated_locals[j].copy()   # the animated local with this rotation
                _set_rotation(local, wanted, anim_scales)
        held = held or turned
        now[j, 0] = 1.0
        kept = parent_quat if first else identity
        for i in range(4):
            now[j, 1 + i], now[j, 5 + i], now[j, 9 + i] = wanted[i], anim_quat[i], kept[i]
        # TurnLimiter.let_go and beyond_a_frame, for this joint as bent now
        ik_turn = _turn(wanted, anim_quat)
        let_go = let_go and ik_turn <= LET_GO_DEG
        room = most[j] - (_turn(last_anim, anim_quat) if has_last else 0.0)
        if first:
            room = min(room, most_net - (_turn(_qmul(last_anim, last_parent), _qmul(anim_quat, parent_quat))
                                         if has_last else 0.0))
        beyond = beyond or ik_turn > room
        out[j] = local
        above = _mul(local, above) if held else net
    reached, slid = _sub(_v(above[3]), animated), _sub(goal, _add(animated, move))
    bend_memory[0] = 1.0
    for i in range(3):
        bend_memory[1 + i], out[3, 0, i], out[3, 1, i] = bend[i], reached[i], slid[i]
    out[3, 0, 3] = 1.0 if held or (letting_go and not let_go) or (weight < 1.0 and beyond) else 0.0
    return 1


@_compiled
def _bend_limbs(mats, slots, count, state, bends, now, continuing, out):
    """Every limb in `slots[:count]`; returns 1, or -1 when one could not be bent (see
    _bend_limb). `state` (2, limbs, 3, _STATE): buffer `now` is this frame's, the other last
    frame's (forgotten unless `continuing`: some limb was bent last frame)."""
    last = 1 - now
    if not continuing:
        state[last, :, :, 0] = 0.0
    state[now, :, :, 0] = 0.0
    for n in range(count):
        slot = slots[n]
        if _bend_limb(mats[slot], state[last, slot], state[now, slot], bends[slot], out[slot]) < 0:
            return -1
    return 1


class CompiledLimbs:
    """`limbs.LimbBender` compiled: the arrays one ContactIK's bends read and write, a slot per
    limb it has bent (the turn limits come from `limiter`, a TurnLimiter, through each Limb)."""

    def __init__(self, limiter, slots=4):
        _compile()
        self.limiter = limiter
        self._slot = {}            # end joint -> its slot
        self._now = 0              # which of state's two buffers is this frame's
        self._continuing = False   # was a limb bent last frame?
        self._allocate(slots)

    def rest(self):
        """No limb was bent this frame: the next starts from the animation."""
        self.limiter.rest()
        self._continuing = False

    def bend(self, limbs):
        """[BentLimb] for `limbs` ([limbs.Limb]), in order, or None when one has shear or
        mirroring (then nothing changed: bend them in Python)."""
        for limb in limbs:
            if limb.names[2] not in self._slot:
                self._slot[limb.names[2]] = len(self._slot)
                if len(self._slot) > len(self._slots):
                    self._allocate(2 * len(self._slots))
        mats, slots = self._mats, self._slots
        for n, limb in enumerate(limbs):
            slot = self._slot[limb.names[2]]
            slots[n] = slot
            first = slot * _IN
            mats.setElement(first, limb.parent_net)
            for k, anim in enumerate(limb.anims):
                mats.setElement(first + 1 + k, anim)
            move, up, most = limb.move, limb.up, limb.most
            mats.setElement(first + 4, LMatrix4f(move[0], move[1], move[2], limb.weight,
                                                 up[0], up[1], up[2], 1.0 if limb.letting_go else 0.0,
                                                 most[0], most[1], most[2], limb.most_net,
                                                 0.0, 0.0, 0.0, 0.0))
            mats.setElement(first + 5, limb.moved if limb.moved is not None else _IDENTITY)
        now = 1 - self._now
        if _bend_limbs(self._mats_view, slots, len(limbs), self._state, self._bends, now, self._continuing,
                       self._out_view) < 0:
            return None
        self._now, self._continuing = now, True
        out, bent = self._out, []
        for limb in limbs:
            first = self._slot[limb.names[2]] * _OUT
            result = LMatrix4f(out.getElement(first + 3))
            transforms = [(name, TransformState.makeMat(out.getElement(first + k))) for k, name in enumerate(limb.names)]
            bent.append(BentLimb(transforms, result.getRow3(0), result.getRow3(1), result.getCell(0, 3) > 0.5))
        return bent

    def _allocate(self, slots):
        """Room for `slots` limbs, keeping the rotations and bend directions of those there are."""
        state, bends = np.zeros((2, slots, 3, _STATE)), np.zeros((slots, 4))
        if hasattr(self, "_state"):
            state[:, :self._state.shape[1]], bends[:self._bends.shape[0]] = self._state, self._bends
        self._state, self._bends = state, bends
        self._slots = np.zeros(slots, dtype=np.int64)
        self._mats, self._out = PTA_LMatrix4f.emptyArray(slots * _IN), PTA_LMatrix4f.emptyArray(slots * _OUT)
        self._mats_view = np.asarray(self._mats).reshape(slots, _IN, 4, 4)
        self._out_view = np.asarray(self._out).reshape(slots, _OUT, 4, 4)


_IDENTITY = LMatrix4f.identMat()
_ready: list = []


def _compile():
    """Compile the bends (numba: some seconds the first time, then from its disk cache) before the
    first frame that bends a limb, once per process."""
    if not _ready:
        mats, out = np.zeros((1, _IN, 4, 4), np.float32), np.zeros((1, _OUT, 4, 4), np.float32)
        _bend_limbs(mats, np.zeros(1, np.int64), 0, np.zeros((2, 1, 3, _STATE)), np.zeros((1, 4)), 1, False, out)
        _ready.append(True)
