"""The warp math of docs/design.md 4, free of Panda3D tasks: weights, targets, rates, slerp."""
import math

from panda3d.core import LQuaternion, Vec3


def smoothstep(u):
    u = min(max(u, 0.0), 1.0)
    return u * u * (3.0 - 2.0 * u)


def axis_weights(motion, frame, warp, still):
    """w(t) per axis: travel fraction S_a(t)/S_a(t1), blended toward a smooth time weight
    where the clip barely moves on that axis compared to the warp `warp` it must carry."""
    return AxisWeights(motion, axis_trust(motion, warp, still))(frame)


def axis_trust(motion, warp, still):
    """Per axis, how far w(t) follows the clip's travel rather than time: fixed for a phase and its warp
    (the travel from where the weights start, `motion.w0`)."""
    total = motion.warped
    return tuple(min(max((total[axis] - still) / max(0.5 * abs(warp[axis]), still), 0.0), 1.0) for axis in range(3))


class AxisWeights:
    """w(t) per axis for a phase's motion and the trust `axis_trust` gave:
    trust * S_a(t) / S_a(t1) + (1 - trust) * smoothstep(u), its factors fixed for the phase; with
    `warp_from` (motion.w0 after f0), S and u are measured from w0 and are 0 before it."""

    __slots__ = ("motion", "travel_k", "time_k")

    def __init__(self, motion, trust):
        total = motion.warped
        self.motion = motion
        self.travel_k = tuple(trust[axis] / total[axis] if total[axis] > 1e-9 else 0.0 for axis in range(3))
        self.time_k = tuple(1.0 - trust[axis] for axis in range(3))

    def __call__(self, frame):
        motion, k, c = self.motion, self.travel_k, self.time_k
        time_w = smoothstep((frame - motion.w0) / (motion.f1 - motion.w0))
        travel = [max(s - held, 0.0) for s, held in zip(motion.travel(frame), motion.held)]
        return (k[0] * travel[0] + c[0] * time_w, k[1] * travel[1] + c[1] * time_w, k[2] * travel[2] + c[2] * time_w)


def play_rate(anim_distance, actual_distance, min_rate, max_rate, still):
    """clamp(anim / actual, min, max); 1.0 when the clip barely moves in the phase."""
    if anim_distance < still:
        return 1.0
    return min(max(anim_distance / max(actual_distance, 1e-6), min_rate), max_rate)


def rest_share(before, now):
    """How much of what is left moves from weight `before` to `now` (1 once nothing is left)."""
    if before >= 1.0 - 1e-9:
        return 1.0
    return min(max((now - before) / (1.0 - before), 0.0), 1.0)


def slerp(q0, q1, u):
    """Spherical interpolation between unit quaternions, along the shorter arc."""
    return Slerp(q0, q1)(u)


class Slerp:
    """slerp(q0, q1, u) for many u: the arc is measured once (a phase's rotation, every frame)."""

    __slots__ = ("a", "b", "theta", "sin_theta")

    def __init__(self, q0, q1):
        a = (q0.getR(), q0.getI(), q0.getJ(), q0.getK())
        b = (q1.getR(), q1.getI(), q1.getJ(), q1.getK())
        dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
        if dot < 0.0:
            b, dot = (-b[0], -b[1], -b[2], -b[3]), -dot
        self.a, self.b = a, b
        self.theta = None if dot > 0.9995 else math.acos(min(dot, 1.0))
        self.sin_theta = None if self.theta is None else math.sin(self.theta)

    def __call__(self, u):
        return LQuaternion(*self.components(u))

    def components(self, u):
        """slerp(q0, q1, u) as plain floats (r, i, j, k): what a NodePath write takes without a Quat made."""
        if self.theta is None:
            wa, wb = 1.0 - u, u
        else:
            wa, wb = math.sin((1.0 - u) * self.theta) / self.sin_theta, math.sin(u * self.theta) / self.sin_theta
        a, b = self.a, self.b
        out = (wa * a[0] + wb * b[0], wa * a[1] + wb * b[1], wa * a[2] + wb * b[2], wa * a[3] + wb * b[3])
        norm = math.sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3])
        return (out[0] / norm, out[1] / norm, out[2] / norm, out[3] / norm)


def heading_quat(h):
    quat = LQuaternion()
    quat.setHpr(Vec3(h, 0, 0))
    return quat


def angle_between(q0, q1):
    """Angle in degrees of the rotation taking q0 to q1.

    4 atan2(|a - b|, |a + b|) with b on a's side: exact near zero, where 2 acos(a . b) of
    float32 quaternions is off by up to 0.05 degrees.
    """
    if q0.dot(q1) < 0.0:
        q1 = -q1
    return math.degrees(4.0 * math.atan2((q0 - q1).length(), (q0 + q1).length()))
