"""A warp's plain frames: placed straight from clip time, without the lifecycle's checks (docs/design.md 9).

Most frames of a warp have nothing to do but move the actor: the warp plays unblended (no fade, an
Actor that does not blend: every other clip is then without effect, so none moves the actor or lifts
it; none plays either, checked when the stretch starts, so no other clip time needs following), no
target follows a node, and the clip played on without restarting or stopping. Inside a phase
(`PlainPhase`: its plan fixed, the same scale, a turn as the contract's slerp, the phase's end not
reached) such a frame's whole work is the pose update, the clip time, docs/design.md 4's placement
(`Placement`, plain floats) and one write; between phases and after the last (`PlainStretch`: the
next phase not reached, the clip not finished) the clip's own root motion since the last frame.
MotionWarper's task and WarpBatch both take them; every other frame is the warp's full pass.
"""
import math

from direct.actor.Actor import Actor

from ..animation.motion import move_by
from .turning import is_plain


def _plain_stretch(warper, clip, fades, follows):
    """Whether a stretch of the warp can have plain frames at all: no fade, no following target, and
    no other driven clip playing (without effect) beside the warp's: its clip time would need following."""
    return not fades and not follows and not warper.driver.others_playing(clip)


def _clip_on(actor, bundle, control):
    """The actor there and unblended, the warp's clip in effect and playing."""
    return (not actor.isEmpty() and not bundle.getAnimBlendFlag() and bundle.getControlEffect(control) > 0.0
            and control.isPlaying())


class PlainPhase:
    """What a phase's plain frames read, fixed while the phase plays: made when it starts, when it can
    have plain frames at all (`of`). `state` and `plan` are the warp's while they hold."""

    __slots__ = ("state", "plan", "placement", "turn", "clip", "control", "bundle", "driver", "actor", "f1",
                 "scale", "update_pose")

    def __init__(self, warper, state, plan, phase, control, clip):
        self.state, self.plan, self.placement, self.turn = state, plan, plan.placement, plan.turn
        self.actor, self.driver, self.control, self.clip = warper.actor, warper.driver, control, clip
        self.bundle = self.driver.part_bundle
        self.f1, self.scale = phase.motion.f1, plan.scale
        self.update_pose = bundle_update(warper.actor, self.bundle) or warper._update_pose

    @classmethod
    def of(cls, warper, state, plan, phase, control, clip, fades, follows):
        """The PlainPhase of a phase just started, or None when none of its frames can be plain: the
        warp fades its clip (`fades`) or has a following target (`follows`), the phase turns otherwise
        than slerp(R0, Q, u) (no rotation warp, facing, a rotation time or a turn-rate cap), or another
        driven clip plays beside it."""
        if not phase.warp_rotation or not is_plain(phase) or not _plain_stretch(warper, clip, fades, follows):
            return None
        return cls(warper, state, plan, phase, control, clip)

    def frame(self, last):
        """The clip frame to place the actor at when this frame is plain (the clip played on from `last`,
        stays inside the phase, the actor as when the phase started), else None."""
        control = self.control
        if not _clip_on(self.actor, self.bundle, control) or self.actor.getSx() != self.scale:
            return None
        cur = control.getFullFframe()
        return cur if last < cur < self.f1 and control.getPlayRate() != 0.0 else None

    def write(self, last, cur):
        """Place the actor at clip frame `cur` (its pose updated): docs/design.md 4's placement, one write
        of tuples (no Point3 or Quat made); the driver told that only the warp's clip moved."""
        placement = self.placement
        self.actor.setPosQuat(placement.at(cur), self.turn.components((cur - placement.f0) / placement.span))
        self.driver.moved_alone(self.clip, cur)


class PlainStretch:
    """What the plain frames between two phases, or after the last, read: made when a phase ends.
    `state` and `plan` (the ended phase's) are the warp's while they hold."""

    __slots__ = ("state", "plan", "track", "clip", "control", "bundle", "driver", "actor", "next_f0", "update_pose")

    def __init__(self, warper, state, plan, track, control, clip, next_f0):
        self.state, self.plan, self.track = state, plan, track
        self.actor, self.driver, self.control, self.clip = warper.actor, warper.driver, control, clip
        self.bundle, self.next_f0 = self.driver.part_bundle, next_f0
        self.update_pose = bundle_update(warper.actor, self.bundle) or warper._update_pose

    @classmethod
    def of(cls, warper, state, plan, track, control, clip, next_f0, fades, follows):
        """The PlainStretch up to the phase starting at clip frame `next_f0` (None after the last phase),
        or None when none of its frames can be plain."""
        if not _plain_stretch(warper, clip, fades, follows):
            return None
        return cls(warper, state, plan, track, control, clip, next_f0)

    def frame(self, last):
        """The clip frame now when this frame is plain (the clip played on from `last`, the next phase
        not reached, the clip not stalled before it), else None."""
        control, actor = self.control, self.actor
        if not _clip_on(actor, self.bundle, control) or not 1e-6 < actor.getSx() < math.inf:
            return None
        cur = control.getFullFframe()
        if self.next_f0 is None:
            return cur if last <= cur else None
        return cur if last <= cur < self.next_f0 and control.getPlayRate() != 0.0 else None

    def write(self, last, cur):
        """Move the actor by the clip's own root motion from clip frame `last` to `cur` (in its own frame,
        its scale included, as the driver moves it), one write; the driver told only the warp's clip moved."""
        move_by(self.actor, *self.track.relative(last, cur))
        self.driver.moved_alone(self.clip, cur)


def bundle_update(actor, bundle):
    """`bundle.update` when that is all `actor.update()` does (a plain Actor of one part in one LOD: the
    warper's own pose update reads them anew each frame to the same end), else None."""
    if type(actor).update is not Actor.update:
        return None
    lods = actor.getLODNames()
    parts = actor.getPartBundleDict()[lods[0]] if len(lods) == 1 else {}
    if len(parts) == 1 and next(iter(parts.values())).partBundleHandle.getBundle() == bundle:
        return bundle.update
    return None
