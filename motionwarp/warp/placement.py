"""Where a phase puts the character at a clip frame (docs/design.md 4), as pure functions.

Everything here is a function of the phase's origin (P0, R0), its goal (T, Q), the phase's
root motion and the clip frame: no NodePath, no warper. Poses are (Point3, LQuaternion) in
the actor's parent's space; `scale` is the actor's (uniform) scale. The Warp calls these
and its MotionWarper writes the result to the actor.
"""
from panda3d.core import Point3, Vec3

from .turning import PhaseTurn, offset_quat
from .warpmath import AxisWeights, Slerp, axis_trust, heading_quat, play_rate, rest_share


def goal_pose(phase, anchor, scale):
    """(T, Q): where the root must end phase `phase` for a target resolved to `anchor` = (T0, RT).

    T = T0 + RT t_offset, Q = RT R(r_offset); with an aligned joint T moves back by
    Q align_offset * scale, so the joint, not the root, lands on T0 + RT t_offset."""
    pos, quat = anchor
    offset = offset_quat(phase)
    goal_quat = quat if offset is None else offset * quat
    goal = pos + quat.xform(Vec3(*phase.t_offset))
    if phase.align_offset is not None:
        goal -= goal_quat.xform(Vec3(*phase.align_offset) * scale)
    return goal, goal_quat


def kept_low(phase, origin, goal, scale):
    """Where a phase that defers its rise (`defer_rise`) ends from `origin` = (P0, R0): `goal` lowered
    along R0's up axis to the height the clip's own A(f1) takes the root to, when it lies above that
    (D_z > 0 becomes 0; a drop is warped as usual); `goal` itself for any other phase."""
    if not phase.defer_rise:
        return goal
    p0, r0 = origin
    return lowered(goal, p0, r0, r0.conjugate(), phase.motion.end_displacement[2] * scale)


def lowered(goal, p0, r0, r0_inverse, clip_rise):
    """`kept_low`'s goal of a phase that defers its rise, from P0 = `p0`, R0 = `r0` (and its inverse), when
    the clip's own A(f1) rises `clip_rise` (scaled): for a caller that walks from one rotation many times."""
    rise = r0_inverse.xform(goal - p0)[2] - clip_rise
    return goal - r0.xform(Vec3(0.0, 0.0, rise)) if rise > 0.0 else goal


class PhasePlan:
    """What placing one phase needs that only changes with its goal: the origin, the goal, the
    scale, the warp D that the weights carry (origin frame, metres), the weights (their per-axis
    trust in the clip's travel fixed by D), the rotation's arc from R0 to Q, and the target point
    T0 (what a facing phase faces)."""

    __slots__ = ("origin", "scale", "goal", "goal_quat", "point", "warp", "weights", "turn", "placement")

    def __init__(self, phase, origin, goal, scale, still, point=None):
        """D = R0^-1 (T - P0) - A(f1) on the warped axes, 0 on the others; T kept low (kept_low)."""
        p0, r0 = origin
        self.origin, self.scale, self.point = origin, scale, point
        self.goal, self.goal_quat = kept_low(phase, origin, goal[0], scale), goal[1]
        self.warp = warp_offset(phase, r0.conjugate().xform(self.goal - p0), scale)
        self.weights = AxisWeights(phase.motion, axis_trust(phase.motion, [w / scale for w in self.warp], still))
        self.turn = Slerp(r0, self.goal_quat)
        self.placement = Placement(self, phase.motion)


class Placement:
    """P(f) = P0 + R0 (A(f) scale + D w(f)) of one plan, as plain floats: R0 as a matrix, and D
    multiplied into the weights' factors (D w = (D travel_k) (S - S(w0))+ + (D time_k) smoothstep(u),
    u from the weights' start w0: the phase's start unless it has `warp_from`), all fixed while the
    plan is, so a frame costs one search of the phase's knots and some arithmetic."""

    __slots__ = ("motion", "p0", "rotation", "scale", "by_travel", "by_time", "held", "w0", "weighted", "f0", "span")

    def __init__(self, plan, motion):
        (p0, r0), weights = plan.origin, plan.weights
        self.motion, self.scale = motion, plan.scale
        self.p0, self.rotation = (p0[0], p0[1], p0[2]), rotation_matrix(r0)
        self.by_travel = tuple(d * k for d, k in zip(plan.warp, weights.travel_k))
        self.by_time = tuple(d * k for d, k in zip(plan.warp, weights.time_k))
        self.held, self.w0, self.weighted = motion.held, motion.w0, motion.f1 - motion.w0   # the weights' frames
        self.f0, self.span = motion.f0, motion.f1 - motion.f0   # the phase's (its rotation's u)

    def at(self, frame):
        """(x, y, z) of the root at `frame`."""
        f, (ax, ay, az, sx, sy, sz, dax, day, daz, dsx, dsy, dsz) = self.motion.span(frame)
        u = (frame - self.w0) / self.weighted
        t = 0.0 if u <= 0.0 else (1.0 if u >= 1.0 else u * u * (3.0 - 2.0 * u))   # smoothstep
        scale, (kx, ky, kz), (cx, cy, cz), (hx, hy, hz) = self.scale, self.by_travel, self.by_time, self.held
        sx, sy, sz = sx + dsx * f - hx, sy + dsy * f - hy, sz + dsz * f - hz   # travel since w0 (0 before)
        lx = (ax + dax * f) * scale + kx * (sx if sx > 0.0 else 0.0) + cx * t
        ly = (ay + day * f) * scale + ky * (sy if sy > 0.0 else 0.0) + cy * t
        lz = (az + daz * f) * scale + kz * (sz if sz > 0.0 else 0.0) + cz * t
        (r00, r01, r02, r10, r11, r12, r20, r21, r22), (px, py, pz) = self.rotation, self.p0
        return (px + r00 * lx + r01 * ly + r02 * lz, py + r10 * lx + r11 * ly + r12 * lz,
                pz + r20 * lx + r21 * ly + r22 * lz)


def rotation_matrix(quat):
    """The 3x3 matrix (row-major, 9 floats) of `quat`'s xform of a vector."""
    w, x, y, z = quat.getR(), quat.getI(), quat.getJ(), quat.getK()
    return (1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y),
            2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x),
            2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y))


def warp_offset(phase, need, scale):
    """D, in the phase's start frame: `need` (the move to the goal) minus the clip's own A(f1) on
    the axes the phase warps, 0 on the others."""
    end = phase.motion.end_displacement
    return [need[axis] - end[axis] * scale if phase.warp_translation and letter in phase.axes else 0.0
            for axis, letter in enumerate("xyz")]


def rate_scale(phase, plan, still):
    """The factor the phase scales the clip's play rate by, for its plan."""
    return phase_rate(phase, plan.origin[0], plan.goal, plan.scale, still)


def phase_rate(phase, start, goal, scale, still):
    """The phase's rate factor from `start` to `goal`: clip distance over real distance, clamped
    to the phase's rates (1 when the clip barely moves)."""
    anim = Vec3(*phase.motion.end_displacement).length() * scale
    return play_rate(anim, (goal - start).length(), phase.min_rate, phase.max_rate, still)


def place(plan, phase, track, frame, turn=None, seconds=0.0):
    """The pose the phase puts the root in at `frame`: P0 + R0 (A + D w), and the PhaseTurn `turn`'s
    rotation `seconds` after the frame before (slerp(R0, Q, u) for a plain phase), or R0 turned by
    the clip's own heading change without warp_rotation. A plain phase's turn keeps nothing from
    frame to frame: without `turn`, a new one."""
    motion = phase.motion
    pos = position(plan, phase, frame)
    if phase.warp_rotation:
        turn = turn or PhaseTurn(phase, plan.origin[1])
        return pos, turn.at(plan, pos, (frame - motion.f0) / (motion.f1 - motion.f0), seconds)
    return pos, heading_quat(track.heading(frame) - track.heading(motion.f0)) * plan.origin[1]


def position(plan, phase, frame):
    """Where the phase puts the root at `frame`: P0 + R0 (A + D w)."""
    return Point3(*plan.placement.at(frame))


def place_blended(plan, phase, track, pose, start, frame, other, share, turn=None, seconds=0.0):
    """One blended step from `pose` at `start` to `frame`: `share` of the clip's motion plus the
    rest of `other` (the other clips' Motion over these frames), then the error still left to
    the goal (from `pose`, assuming the clip's own motion from here on) spread over the phase's
    remaining weight, so the phase still ends exactly on its goal; the rotation likewise, by the
    PhaseTurn `turn` (as in `place`)."""
    p0, r0 = plan.origin
    goal, motion, scale = plan.goal, phase.motion, plan.scale
    pos, quat = pose
    before, now, end = motion.displacement(start), motion.displacement(frame), motion.end_displacement
    moved = pos + r0.xform(Vec3(*(now[i] - before[i] for i in range(3))) * scale) * share
    moved += quat.xform(Vec3(*other.pos) * scale) * (1.0 - share)
    if phase.warp_translation:
        need = r0.conjugate().xform(goal - moved) - Vec3(*(end[i] - now[i] for i in range(3))) * scale
        w0, w1 = plan.weights(start), plan.weights(frame)
        step = Vec3(*(need[i] * rest_share(w0[i], w1[i]) if letter in phase.axes else 0.0
                      for i, letter in enumerate("xyz")))
        moved += r0.xform(step)
    if phase.warp_rotation:
        turned = heading_quat((1.0 - share) * other.h) * quat
        span, turn = motion.f1 - motion.f0, turn or PhaseTurn(phase, plan.origin[1])
        return moved, turn.blended(plan, moved, turned, (start - motion.f0) / span, (frame - motion.f0) / span, seconds)
    clip_turn = track.heading(frame) - track.heading(start)
    return moved, heading_quat(share * clip_turn + (1.0 - share) * other.h) * quat


def moved_by(pose, motion, scale):
    """`pose` moved by a Motion in its own frame, the translation scaled per axis by `scale`
    (the NodePath's scale: what its transform does to a local move); shear is not applied."""
    pos, quat = pose
    step = motion.pos
    pos = pos + quat.xform(Vec3(step[0] * scale[0], step[1] * scale[1], step[2] * scale[2]))
    return pos, (heading_quat(motion.h) * quat if motion.h else quat)
