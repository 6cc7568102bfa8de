"""The path a warp will take, foreseen before it plays (docs/design.md 4, Collision-checked warps).

From where the character stands, the clip's own root motion up to each phase, each phase placed
as the warp will place it (its plan from the phase's foreseen start, its rate scale) and the
clip's motion after the last phase: the root's position at clip frames, with the seconds since
the warp started at the rates it will play at. A pure function of the asset, the resolved targets
and the character's pose: a scene check (scene/pathcheck.py) sweeps a body along it.
"""
from panda3d.core import Point3, Vec3

from .placement import PhasePlan, phase_rate, position
from .refusal import phase_walk
from .speedlimit import speed_capped
from .warpmath import heading_quat

#: Samples per clip frame along the path.
SAMPLES_PER_FRAME = 2


def _frames(first, last):
    """Clip frames from `first` to `last`, SAMPLES_PER_FRAME to a frame, both ends included."""
    count = max(int((last - first) * SAMPLES_PER_FRAME + 0.999), 1)
    return [first + (last - first) * i / count for i in range(count + 1)]


def planned_path(asset, anchors, pose, scale, base_rate, still, start=None):
    """[(seconds since the warp starts, root position)] along the whole clip, in the actor's parent's
    space, for targets resolved to `anchors` and the character at `pose` = (position, rotation);
    `start` as for refusal.phase_walk (a pose-matched start)."""
    track, fps = asset.track, asset.track.fps
    pos, quat = Point3(pose[0]), pose[1]
    path, seconds, frame = [(0.0, Point3(pos))], 0.0, 0.0 if start is None else start[0]

    def plain(until):
        """The clip's own motion from `frame` to `until`, from the pose (pos, quat) at `frame`."""
        nonlocal seconds
        for f in _frames(frame, until)[1:]:
            step = track.between(frame, f)
            path.append((seconds + (f - frame) / (fps * base_rate), pos + quat.xform(Vec3(*step.pos) * scale)))
        seconds += (until - frame) / (fps * base_rate)
    for phase, _, start, start_quat, goal, goal_quat in phase_walk(asset, anchors, pose, scale, start):
        motion = phase.motion
        plain(motion.f0)
        plan = PhasePlan(phase, (start, start_quat), (goal, goal_quat), scale, still)
        rate = base_rate * speed_capped(phase_rate(phase, start, goal, scale, still), phase, plan, fps, base_rate)
        for f in _frames(motion.f0, motion.f1)[1:]:
            path.append((seconds + (f - motion.f0) / (fps * rate), position(plan, phase, f)))
        seconds += (motion.f1 - motion.f0) / (fps * rate)
        pos = position(plan, phase, motion.f1)
        quat = goal_quat if phase.warp_rotation else heading_quat(motion.turn) * start_quat
        frame = motion.f1
    plain(track.num_frames - 1)
    return path
