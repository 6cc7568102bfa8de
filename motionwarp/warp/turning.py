"""How a phase turns the character (docs/design.md 4, Rotation), as plain math on quaternions.

A phase turns toward a goal rotation: the target's (`rotation: "target"`), or the heading that
faces the target point from where the root is now (`"facing"`; `"opposite_facing"` turns its
back on it), re-read every frame because the root moves. `rotation_time` finishes the turn
within that fraction of the phase and `max_turn_rate` caps how fast it turns. A PhaseTurn is
made when its phase starts: the rate cap and the kept facing need what the frame before did.
"""
import math

from panda3d.core import LQuaternion, Vec3

from .warpmath import angle_between, heading_quat, rest_share, slerp


def offset_quat(phase):
    """R(r_offset), or None when the phase has no rotation offset."""
    turn = phase.r_offset
    if not (turn[0] or turn[1] or turn[2]):
        return None
    quat = LQuaternion()
    quat.setHpr(Vec3(*turn))
    return quat


def facing_quat(phase, point, pos):
    """The rotation that faces `point` from `pos` over the ground (a heading, turned by r_offset,
    and by 180 degrees for `opposite_facing`), or None when they are closer than
    `facing_min_distance` over the ground, where the direction means nothing."""
    dx, dy = point[0] - pos[0], point[1] - pos[1]
    if math.hypot(dx, dy) < phase.facing_min_distance:
        return None
    heading = math.degrees(math.atan2(-dx, dy)) + (180.0 if phase.rotation == "opposite_facing" else 0.0)
    quat, offset = heading_quat(heading), offset_quat(phase)
    return quat if offset is None else offset * quat


def planned_goal_quat(phase, point, start, goal, goal_quat):
    """The rotation a phase from `start` to `goal` is foreseen to end with (for the refusals): the
    target's `goal_quat`, or for a facing phase the facing from the goal, else from the start,
    else None (it keeps the rotation it starts with)."""
    if phase.rotation == "target":
        return goal_quat
    return facing_quat(phase, point, goal) or facing_quat(phase, point, start)


class PhaseTurn:
    """The rotation of one phase in progress, frame by frame.

    The turn's progress is `v = min(u / rotation_time, 1)` of the phase's normalised time `u`;
    the wanted rotation is `slerp(R0, G, v)` toward the goal G (the target's, or facing); with
    `max_turn_rate`, each step from the rotation before turns at most the rate times the step's
    seconds. A facing phase closer than `facing_min_distance` to the point keeps its last facing
    (R0 if it never had one)."""

    __slots__ = ("phase", "start", "previous", "facing")

    def __init__(self, phase, start):
        self.phase, self.start = phase, start
        self.previous = start   # the rotation given last
        self.facing = start

    def goal(self, plan, pos):
        """G for the root at `pos`: the plan's goal rotation, or the facing of its target point from
        `pos`, the last one kept when too close."""
        if self.phase.rotation == "target":
            return plan.goal_quat
        facing = facing_quat(self.phase, plan.point, pos)
        if facing is not None:
            self.facing = facing
        return self.facing

    def progress(self, u):
        """v: how far along the turn is at normalised phase time `u`."""
        return min(u / self.phase.rotation_time, 1.0)

    def at(self, plan, pos, u, seconds):
        """The rotation at phase time `u` with the root at `pos`, `seconds` after the rotation before."""
        v = self.progress(u)
        goal = self.goal(plan, pos)
        wanted = plan.turn(v) if goal is plan.goal_quat else slerp(self.start, goal, v)
        return self._limited(wanted, seconds, self.previous)

    def blended(self, plan, pos, turned, u_before, u, seconds):
        """A blended step from phase time `u_before` to `u`: from `turned` (the rotation before,
        turned by the other clips' share) toward the goal, by the share of the rest of the turn
        this step takes."""
        share = rest_share(self.progress(u_before), self.progress(u))
        return self._limited(slerp(turned, self.goal(plan, pos), share), seconds, turned)

    def _limited(self, wanted, seconds, before):
        """`wanted`, turned at most `max_turn_rate * seconds` from `before`."""
        rate = self.phase.max_turn_rate
        if rate is not None:
            turn, most = angle_between(before, wanted), rate * seconds
            if turn > most:
                wanted = slerp(before, wanted, most / turn)
        self.previous = wanted
        return wanted


def is_plain(phase):
    """Whether a phase turns as the contract's slerp(R0, Q, u): to the target's rotation, over the
    whole phase, with no rate cap (what a batch's one numpy pass places)."""
    return phase.rotation == "target" and phase.rotation_time >= 1.0 and phase.max_turn_rate is None
