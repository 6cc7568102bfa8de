"""The play rate each phase of an asset would get for an interaction on offer, before it plays:
what the curve panel shows while its windows are edited.

docs/design.md 4: on entering a phase the rate is clamp(|A(f1)| / |T - P0|, min_rate, max_rate).
P0, where the phase starts, is foreseen as `MotionWarper.check` foresees it: the character now,
or the previous phase's target, moved by the clip's own root motion up to the phase's start.
A warp that blends in while the clip leads up to its first phase moves the character less than
that (the pose it fades from has its own motion), so such a phase is foreseen a little fast.
"""
from panda3d.core import Vec3

from motionwarp import Warp, WarpTarget
from motionwarp.warpmath import heading_quat, play_rate


def planned_rates(warper, asset, targets):
    """One play rate per phase of `asset` warped to `targets` (one per phase) from where `warper`'s actor stands."""
    warp = Warp(warper, asset, [WarpTarget.of(target) for target in targets], 1.0, 0.0, 0.0, announce=None)
    actor, track = warper.actor, asset.track
    scale = actor.getSx()
    pos, quat, frame = actor.getPos(), actor.getQuat(), 0.0
    rates = []
    for index, phase in enumerate(asset.phases):
        lead = track.between(frame, phase.motion.f0)
        pos = pos + quat.xform(Vec3(*lead.pos) * scale)
        quat = heading_quat(lead.h) * quat
        goal, goal_quat = warp.phase_goal(index)
        anim = Vec3(*phase.motion.end_displacement).length() * scale
        rates.append(play_rate(anim, (goal - pos).length(), phase.min_rate, phase.max_rate,
                               warper.settings.still_axis_m))
        pos, quat, frame = goal, goal_quat, phase.motion.f1
    return rates
