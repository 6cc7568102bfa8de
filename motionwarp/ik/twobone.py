"""Analytic two-bone IK on joint matrices (upper, mid, end: shoulder-elbow-hand, hip-knee-foot).

Works on the joints' net matrices in Character space (Panda3D row-vector convention:
`net = local * parent_net`). The bend direction (where the elbow or knee points) is taken from
the animated pose, so the solve only changes how far the limb bends and where it points, never
which way it folds; the end joint keeps its animated orientation (a foot stays flat, a hand
keeps its grip).
"""
import math

from panda3d.core import LMatrix3f, LMatrix4f, LVecBase3f, Point3, Vec3, rotateTo

#: Fraction of full reach no limb goes beyond (a fully locked knee or elbow has no bend plane).
MAX_REACH = 0.9995
#: Fraction of full reach the IK stretches a limb to at most (unless the animation is straighter).
STRETCH = 0.95
#: How far (fraction of the upper bone) the mid joint must sit off the limb's line before the
#: animated bend direction outweighs last frame's.
STRAIGHT = 0.01


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
    d = max(min(dist, reach_limit((c - a).length(), len1 + len2)), abs(len1 - len2) + 1e-4)
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


def slide_within_reach(upper, target, reach, up):
    """`target`, moved along the level plane through it (normal `up`, a unit vector) toward the
    point of that plane under `upper` just far enough to be `reach` from `upper`: a planted foot
    whose hip has travelled further than the leg reaches slides along what it stands on instead
    of lifting off it. Unchanged when already within reach; the point under `upper` when even
    that is out of reach (then nothing on the plane is)."""
    to = Vec3(target - upper)
    if to.length() <= reach:
        return Point3(target)
    under = Point3(upper + up * to.dot(up))        # the plane's point closest to `upper`
    across = Vec3(under - upper).length()
    along = Vec3(target - under)
    if across >= reach or along.length() < 1e-9:
        return under
    return Point3(under + along * (math.sqrt(reach * reach - across * across) / along.length()))


def reach_limit(animated, reach):
    """The longest span the IK stretches a limb to: STRETCH of its full reach, or the animated span
    when the animation has it straighter. A limb never locks straight, so it never snaps out of it."""
    return min(max(reach * STRETCH, animated), reach * MAX_REACH)


def bend_direction(a, b, c, previous=None):
    """Where the mid joint sits off the line from `a` to `c` (unit vector).

    `previous` (last frame's direction) is added with a small weight: it only decides when the
    animated limb is (nearly) straight, so the knee never flips sides between two frames.
    """
    axis = Vec3(c - a)
    if axis.length() > 1e-9:
        axis.normalize()
    off = Vec3(b - a)
    off -= axis * off.dot(axis)
    if previous is not None:
        off += previous * (STRAIGHT * (b - a).length())
    return off.normalized() if off.length() > 1e-12 else Vec3(0, 0, 0)


def rotation_about(pivot, frm, to):
    """The smallest rotation turning direction `frm` into `to`, about the point `pivot` (a 4x4
    matrix). Panda3D's `rotateTo` builds it in one call (half a two-bone solve's cost was here)."""
    turn = LMatrix3f()
    rotateTo(turn, frm.normalized(), to.normalized())
    pivot = Vec3(pivot)
    return LMatrix4f(turn, pivot - turn.xform(pivot))
