"""Analytic two-bone IK on joint matrices (upper, mid, end: shoulder-elbow-hand, hip-knee-foot).

Works on the joints' net matrices in Character space (Panda3D row-vector convention:
`net = local * parent_net`). The bend direction (where the elbow or knee points) is taken from
the animated pose, so the solve only changes how far the limb bends and where it points, never
which way it folds; the end joint keeps its animated orientation (a foot stays flat, a hand
keeps its grip).
"""
import math

from panda3d.core import LMatrix4f, LQuaternionf, LVecBase3f, Point3, Vec3

#: Fraction of full reach the limb is allowed to straighten to (a locked knee or elbow pops).
MAX_REACH = 0.9995


def solve(upper, mid, end, target, bend):
    """New net matrices (upper, mid, end) putting `end`'s origin on `target` (Character space).

    `bend` is the direction the mid joint bends toward (`bend_direction` of the animated pose).
    Out-of-reach targets get the limb pointed at them, nearly straight.
    """
    a, b, c = upper.getRow3(3), mid.getRow3(3), end.getRow3(3)
    len1, len2 = (b - a).length(), (c - b).length()
    to = Vec3(target - a)
    dist = to.length()
    if dist < 1e-9 or len1 < 1e-9 or len2 < 1e-9:
        return upper, mid, end
    u = to / dist
    d = min(max(dist, abs(len1 - len2) + 1e-4), (len1 + len2) * MAX_REACH)
    side = bend - u * bend.dot(u)
    if side.length() < 1e-6:  # the bend direction lies along the new limb: any perpendicular works
        side = u.cross(Vec3(1, 0, 0)) if abs(u[0]) < 0.9 else u.cross(Vec3(0, 1, 0))
    side.normalize()
    cos_a = max(-1.0, min(1.0, (len1 * len1 + d * d - len2 * len2) / (2 * len1 * d)))
    new_b = Point3(a + (u * cos_a + side * math.sqrt(1.0 - cos_a * cos_a)) * len1)
    new_c = Point3(a + u * d)
    turn1 = rotation_about(a, Vec3(b - a), Vec3(new_b - a))
    new_upper, mid1 = upper * turn1, mid * turn1
    turn2 = rotation_about(new_b, Vec3(turn1.xformPoint(Point3(c)) - new_b), Vec3(new_c - new_b))
    new_mid = mid1 * turn2
    new_end = LMatrix4f(end)
    new_end.setRow(3, LVecBase3f(new_c))
    return new_upper, new_mid, new_end


def bend_direction(a, b, c, hint=None):
    """Where the mid joint sits off the line from `a` to `c`; `hint` (or any) when the limb is straight."""
    axis = Vec3(c - a)
    if axis.length() > 1e-9:
        axis.normalize()
    off = Vec3(b - a)
    off -= axis * off.dot(axis)
    if off.length() > 1e-4 * max((b - a).length(), 1e-9):
        return off.normalized()
    return Vec3(hint) if hint is not None else Vec3(0, 0, 0)


def rotation_about(pivot, frm, to):
    """The smallest rotation turning direction `frm` into `to`, about the point `pivot` (a 4x4 matrix)."""
    f, t = frm.normalized(), to.normalized()
    axis = f.cross(t)
    sin, cos = axis.length(), max(-1.0, min(1.0, f.dot(t)))
    quat = LQuaternionf()
    if sin < 1e-9:
        if cos > 0:
            return LMatrix4f.identMat()
        axis = f.cross(Vec3(1, 0, 0)) if abs(f[0]) < 0.9 else f.cross(Vec3(0, 1, 0))
    axis.normalize()
    quat.setFromAxisAngleRad(math.atan2(sin, cos), axis)
    turn = LMatrix4f()
    quat.extractToMatrix(turn)
    return LMatrix4f.translateMat(-Vec3(pivot)) * turn * LMatrix4f.translateMat(Vec3(pivot))
