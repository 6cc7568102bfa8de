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
from .phasemotion import FRAME_TIE
from .turning import is_plain


def _plain_stretch(warper, clip, fades, follows):
    """Whether a stretch of the warp can have plain frames at all: no fade, no following target, and
    no other driven clip playing (without effect) beside the warp's: its clip time would need following."""
    return not fades and not follows and not warper.driver.others_playing(clip)


class _PlainFrames:
    """The checks of a stretch's plain frames, fixed while it lasts: the warp's `state` and `plan` while
    they hold, the clip frame it ends before (`end`), the actor's scale (None: any usable one) and
    whether a clip stalled at rate 0 would be refused (`rated`: before a phase still to come)."""

    __slots__ = ("state", "plan", "actor", "bundle", "control", "driver", "clip", "end", "scale", "rated",
                 "update_pose")

    def __init__(self, warper, state, plan, control, clip, end, scale, rated):
        self.state, self.plan, self.end, self.scale, self.rated = state, plan, end, scale, rated
        self.actor, self.driver, self.control, self.clip = warper.actor, warper.driver, control, clip
        self.bundle = self.driver.part_bundle
        self.update_pose = bundle_update(warper.actor, self.bundle) or warper._update_pose

    def frame(self, warp):
        """The clip frame to move the actor to when this frame of `warp` is plain, else None: the warp
        as when the stretch started, the actor there and unblended, its clip in effect and playing on
        from the last frame, not yet at the stretch's end (nor within FRAME_TIE below it: the full pass
        takes that frame as the end)."""
        if warp.state is not self.state or warp._phase_plan is not self.plan:
            return None
        actor, bundle, control = self.actor, self.bundle, self.control
        if actor.isEmpty() or bundle.getAnimBlendFlag() or bundle.getControlEffect(control) <= 0.0:
            return None
        scale, cur = actor.getSx(), control.getFullFframe()
        if not (warp.frame < cur < self.end - FRAME_TIE and control.isPlaying()):
            return None
        if (scale != self.scale if self.scale is not None else not 1e-6 < scale < math.inf):
            return None
        return cur if not self.rated or control.getPlayRate() != 0.0 else None


class PlainPhase(_PlainFrames):
    """A phase's plain frames: made when it starts, when it can have them at all (`of`)."""

    __slots__ = ("placement", "turn")

    def __init__(self, warper, state, plan, phase, control, clip):
        super().__init__(warper, state, plan, control, clip, phase.motion.f1, plan.scale, True)
        self.placement, self.turn = plan.placement, plan.turn

    @classmethod
    def of(cls, warper, state, plan, phase, control, clip, fades, follows):
        """The PlainPhase of a phase just started, or None when none of its frames can be plain: the
        warp fades its clip (`fades`) or has a following target (`follows`), the phase turns otherwise
        than slerp(R0, Q, u) (no rotation warp, facing, a rotation time or a turn-rate cap), or another
        driven clip plays beside it."""
        if not phase.warp_rotation or not is_plain(phase) or not _plain_stretch(warper, clip, fades, follows):
            return None
        return cls(warper, state, plan, phase, control, clip)

    def write(self, warp, cur):
        """Place the actor at clip frame `cur` (its pose updated): docs/design.md 4's placement, one write
        of tuples (no Point3 or Quat made); the driver told that only the warp's clip moved."""
        placement = self.placement
        self.actor.setPosQuat(placement.at(cur), self.turn.components((cur - placement.f0) / placement.span))
        warp.frame = cur
        self.driver.moved_alone(self.clip, cur)


class PlainStretch(_PlainFrames):
    """The plain frames between two phases, or after the last: made when a phase ends (`plan` is its)."""

    __slots__ = ("track",)

    def __init__(self, warper, state, plan, track, control, clip, next_f0):
        super().__init__(warper, state, plan, control, clip, math.inf if next_f0 is None else next_f0, None,
                         next_f0 is not None)
        self.track = track

    @classmethod
    def of(cls, warper, state, plan, track, control, clip, next_f0, fades, follows):
        """The PlainStretch up to the phase starting at clip frame `next_f0` (None after the last phase),
        or None when none of its frames can be plain."""
        if not _plain_stretch(warper, clip, fades, follows):
            return None
        return cls(warper, state, plan, track, control, clip, next_f0)

    def write(self, warp, cur):
        """Move the actor by the clip's own root motion since the last frame (in its own frame, its scale
        included, as the driver moves it), one write; the driver told only the warp's clip moved."""
        move_by(self.actor, *self.track.relative(warp.frame, cur))
        warp.frame = cur
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
