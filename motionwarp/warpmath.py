"""The warp math of DESIGN.md 4, free of Panda3D tasks: weights, targets, rates, slerp."""
import math

import numpy as np
from panda3d.core import LQuaternion, Vec3


def smoothstep(u):
    u = min(max(u, 0.0), 1.0)
    return u * u * (3.0 - 2.0 * u)


def axis_weights(motion, frame, warp, still):
    """w(t) per axis: travel fraction S_a(t)/S_a(t1), blended toward a smooth time weight
    where the clip barely moves on that axis compared to the warp `warp` it must carry."""
    time_w = smoothstep((frame - motion.f0) / (motion.f1 - motion.f0))
    travel, total = motion.travel(frame), motion.total
    weights = []
    for axis in range(3):
        motion_w = travel[axis] / total[axis] if total[axis] > 1e-9 else 0.0
        trust = min(max((total[axis] - still) / max(0.5 * abs(warp[axis]), still), 0.0), 1.0)
        weights.append(trust * motion_w + (1.0 - trust) * time_w)
    return weights


def play_rate(anim_distance, actual_distance, min_rate, max_rate, still):
    """clamp(anim / actual, min, max); 1.0 when the clip barely moves in the phase."""
    if anim_distance < still:
        return 1.0
    return min(max(anim_distance / max(actual_distance, 1e-6), min_rate), max_rate)


def slerp(q0, q1, u):
    """Spherical interpolation between unit quaternions, along the shorter arc."""
    a = (q0.getR(), q0.getI(), q0.getJ(), q0.getK())
    b = (q1.getR(), q1.getI(), q1.getJ(), q1.getK())
    dot = sum(x * y for x, y in zip(a, b))
    if dot < 0.0:
        b, dot = tuple(-x for x in b), -dot
    if dot > 0.9995:
        wa, wb = 1.0 - u, u
    else:
        theta = math.acos(min(dot, 1.0))
        wa, wb = math.sin((1.0 - u) * theta) / math.sin(theta), math.sin(u * theta) / math.sin(theta)
    out = [wa * x + wb * y for x, y in zip(a, b)]
    norm = math.sqrt(sum(x * x for x in out))
    return LQuaternion(*(x / norm for x in out))


def heading_quat(h):
    quat = LQuaternion()
    quat.setHpr(Vec3(h, 0, 0))
    return quat


def rotate(quat, vector):
    """Rotate a numpy 3-vector by a quaternion."""
    return np.array(quat.xform(Vec3(*vector)))


def angle_between(q0, q1):
    """Angle in degrees of the rotation taking q0 to q1.

    4 atan2(|a - b|, |a + b|) with b on a's side: exact near zero, where 2 acos(a . b) of
    float32 quaternions is off by up to 0.05 degrees.
    """
    a = (q0.getR(), q0.getI(), q0.getJ(), q0.getK())
    b = (q1.getR(), q1.getI(), q1.getJ(), q1.getK())
    if sum(x * y for x, y in zip(a, b)) < 0.0:
        b = tuple(-y for y in b)
    apart = math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))
    together = math.sqrt(sum((x + y) ** 2 for x, y in zip(a, b)))
    return math.degrees(4.0 * math.atan2(apart, together))
