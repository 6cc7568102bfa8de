"""Drive an Actor's NodePath by the root motion of the clips it plays (docs/design.md 3)."""
from panda3d.core import ClockObject, PartBundle

from . import rootmotion
from ..base.config import MotionWarpSettings, from_base
from ..base.errors import LoadError
from .actor_clips import clip_control, require_joint
from .motion import Motion, move_by


#: A clip whose root ends within this height (model units) of where it started is grounded.
GROUNDED_TOLERANCE = 1e-3


class _DrivenClip:
    """One driven clip as the per-frame pass reads it: plain attributes, no dict lookups."""

    __slots__ = ("name", "control", "controls", "track", "fps", "grounded", "cycle", "prev", "seen", "in_world")

    def __init__(self, name, control, controls, track, grounded, in_world=False):
        self.name, self.control, self.track, self.grounded = name, control, track, grounded
        self.in_world = in_world            # the track is in world metres (a clip speed), not model units
        self.controls = controls            # the clip's AnimControls on every part and LOD: what actor.play() starts
        self.fps = control.getFrameRate()   # the anim's own rate: play rates do not change it
        self.cycle = track.num_frames       # it loops over frames [0, cycle)
        self.prev = None                    # its clip time at the last update (None: not seen yet)
        self.seen = (None, None)            # (clip time, track row there) last sampled: reused next frame

    def started(self, last):
        """Follow the clip from its clip time now, playing frames 0 to `last`."""
        self.cycle = last + 1
        self.prev = self.control.getFullFframe()


class RootMotionDriver:
    """Moves `actor` every frame by the blended root motion of its playing clips.

    The motion is integrated from clip times (`AnimControl.getFullFframe`), not from frame
    time guesses, so it does not depend on the frame rate, play rate or hitches. Clips are
    stripped of their root motion on construction (once per shared bundle).

    Start clips with `loop()` / `play()` here (they also know a closed loop's real range);
    clips started with `actor.loop()` / `actor.play()` are followed too.

    `clip_speeds` ({clip: metres per second}) is for cycles authored in place: such a clip
    moves the character straight forward at that speed in the world (at play rate 1, whatever
    the actor's scale) instead of by its own root motion, with everything else (loops,
    blending, play rates) as for any clip.
    """

    def __init__(self, actor, root_joint="root", root_mode="bone", projected_yaw=False,
                 taskmgr=None, sort=None, clips=None, task=True, clip_speeds=None):
        require_joint(actor, root_joint)
        self.actor = actor
        self.root_joint, self.root_mode = root_joint, root_mode
        self.tracks = {}
        self._closed = {}
        #: Where the skeleton's top sits (rootmotion.character_base): the frame its tracks are in.
        self.base = base = rootmotion.character_base(actor)
        self._changes = {}   # model file -> rootmotion.skeleton_change from it into this skeleton
        for clip in (clips if clips is not None else actor.getAnimNames()):
            bundle = clip_control(actor, clip).getAnim()
            self.tracks[clip] = rootmotion.extract_and_strip(bundle, root_joint, root_mode, projected_yaw, clip, base)
            self._closed[clip] = rootmotion.stripped_is_closed_loop(bundle, root_joint)
        for clip, speed in (clip_speeds or {}).items():
            track = self.track(clip)
            self.tracks[clip] = rootmotion.straight_track(clip, track.fps, track.num_frames, speed)
        # Clips that end at the height they start at: their vertical root motion is an offset, not travel.
        self._clips = [_DrivenClip(clip, clip_control(actor, clip), tuple(actor.getAnimControls(clip)), track,
                                   abs(track.positions[-1][2]) < GROUNDED_TOLERANCE, clip in (clip_speeds or {}))
                       for clip, track in self.tracks.items()]
        self._in_world = any(driven.in_world for driven in self._clips)
        self._clip_named = {clip.name: clip for clip in self._clips}
        self._lift = 0.0
        self.part_bundle = actor.getPartBundle("modelRoot")
        self._prev_time = None
        self._clock = ClockObject.getGlobalClock()
        self._taskmgr = None
        self._task_name = f"motionwarp-rootmotion-{id(self)}"
        if task:
            self._taskmgr = taskmgr or from_base("taskMgr")
            self._taskmgr.add(self._task, self._task_name, sort=MotionWarpSettings.from_prc(task_sort=sort).task_sort)

    def destroy(self):
        """Stop driving the actor (the clips stay stripped: other Actors may share them)."""
        if self._taskmgr is not None:
            self._taskmgr.remove(self._task_name)
            self._taskmgr = None

    # -- starting clips -------------------------------------------------------------------
    def skeleton_change(self, model_path, model_base):
        """`rootmotion.skeleton_change` from the skeleton frame of the model file `model_path` (whose
        `character_base` is `model_base`) into this actor's, found once per file."""
        if model_path not in self._changes:
            self._changes[model_path] = rootmotion.skeleton_change(model_base, self.base)
        return self._changes[model_path]

    def track(self, clip):
        """The root motion of a driven clip, or a LoadError that lists the clips this driver drives."""
        track = self.tracks.get(clip)
        if track is None:
            known = ", ".join(sorted(self.tracks)) or "none"
            raise LoadError(f"clip {clip!r} is not driven by this {self.actor.getName()!r} driver; it drives: {known}")
        return track

    def control(self, clip):
        """The AnimControl of a driven clip (a LoadError naming the driven clips otherwise)."""
        self.track(clip)
        return self._clip_named[clip].control

    def loop_range(self, clip):
        """(first, last) frame that loops seamlessly: a closed loop leaves out its repeated last frame."""
        last = self.track(clip).num_frames - 1
        return (0, last - 1) if self._closed[clip] else (0, last)

    def loop(self, clip, restart=True):
        """`actor.loop(clip)` without the duplicated frame of a closed loop."""
        first, last = self.loop_range(clip)
        driven = self._clip_named[clip]
        for control in driven.controls:   # what actor.loop(clip, ...) does, without looking the controls up
            control.loop(restart, first, last)
        driven.started(last)

    def play(self, clip, first=0):
        """`actor.play(clip, fromFrame=first)`, tracked from that frame (a pose-matched start)."""
        last = self.track(clip).num_frames - 1
        driven = self._clip_named[clip]
        for control in driven.controls:   # what actor.play(clip) does, without looking the controls up
            if first:
                control.play(first, last)
            else:
                control.play()
        driven.started(last)

    # -- per-frame update -----------------------------------------------------------------
    def _task(self, task):
        if self.actor.isEmpty():
            return task.done
        self.update()
        return task.cont

    def update(self):
        """Apply this frame's root motion to the actor, with one NodePath write."""
        motion = self._blended(self._frame_dt(), None)
        if motion is not None:
            move_by(self.actor, *motion)

    def frame_motion(self, skip=None):
        """This frame's blended root motion as a Motion (None: nothing moved), without applying it:
        a warp blends it. `skip` names a clip whose motion the caller applies itself."""
        motion = self._blended(self._frame_dt(), skip)
        return None if motion is None else Motion(motion[:3], motion[3])

    def moved_alone(self, clip, cur):
        """What `frame_motion(skip=clip)` leaves when no other clip has an effect (a warp's plain frame,
        warp/plainframe.py), without reading the others: `clip` is at `cur` and this frame is done."""
        self._prev_time = self._clock.getFrameTime()
        self._clip_named[clip].prev = cur

    def others_playing(self, clip):
        """Whether a driven clip other than `clip` plays: its clip time moves, even without effect."""
        return any(driven.control.isPlaying() for driven in self._clips if driven.name != clip)

    def _frame_dt(self):
        """Seconds since the last update (0 on the first)."""
        now = self._clock.getFrameTime()
        dt = 0.0 if self._prev_time is None else now - self._prev_time
        self._prev_time = now
        return dt

    def _blended(self, dt, skip):
        """The effect-weighted root motion (x, y, z, heading) of all clips since the last update, or None.

        A grounded clip's height is not integrated: the NodePath's lift is the effect-weighted
        height of the grounded clips playing now above their own frame 0 (docs/design.md 3), so it
        comes back to 0 whenever they are at frame 0 or stop, however often clips switch.
        """
        effect_of = self.part_bundle.getControlEffect
        # A move is applied in the actor's own frame, scale included: world speeds are divided by it.
        unscale = 1.0 / self.actor.getSx() if self._in_world else 1.0
        total_weight = x = y = z = heading = lift_weight = lift = 0.0
        for driven in self._clips:
            control = driven.control
            prev, cur = driven.prev, control.getFullFframe()
            driven.prev = cur
            effect = effect_of(control)
            if effect <= 0.0 or driven.name == skip:
                continue
            track = driven.track
            now = track.sample(cur)
            seen, driven.seen = driven.seen, (cur, now)
            if driven.grounded:
                lift_weight += effect
                cycle = driven.cycle
                lift += effect * (now if 0.0 <= cur < cycle else track.sample(cur % cycle))[2]
            step = None if prev is None else self._clip_step(driven, prev, cur, now, seen, dt)
            if step is None:
                continue
            if driven.in_world:
                step = (step[0] * unscale, step[1] * unscale, step[2] * unscale, step[3])
            total_weight += effect
            x += effect * step[0]
            y += effect * step[1]
            if not driven.grounded:
                z += effect * step[2]
            heading += effect * step[3]
        normalised = (total_weight > 0.0 or lift_weight > 0.0) and self.part_bundle.getBlendType() != PartBundle.BT_linear
        if normalised and lift_weight > 0.0:
            lift /= lift_weight
        rise, self._lift = lift - self._lift, lift
        if total_weight <= 0.0 and rise == 0.0:
            return None
        if normalised and total_weight > 0.0:  # Panda3D normalises the pose too
            x, y, z, heading = x / total_weight, y / total_weight, z / total_weight, heading / total_weight
        return (x, y, z + rise, heading)

    @staticmethod
    def _clip_step(driven, prev, cur, now, seen, dt):
        """(x, y, z, heading) of one clip from its previous to its current clip time (loops unwrapped),
        or None when it restarted; `now` is its track's row at `cur`, `seen` its last (clip time, row)."""
        control = driven.control
        rate = control.getPlayRate()
        wraps = round((prev + dt * driven.fps * rate - cur) / driven.cycle)
        # Only a seam crossing or a jump back tells a loop from a replay; Panda3D tells the play
        # mode only through output(), so it is formatted then, not every frame.
        if (wraps != 0 or (cur < prev and rate > 0)) and ": loop," not in str(control):
            if cur < prev and rate > 0:
                return None  # restarted from the top: nothing travelled
            wraps = 0
        if wraps == 0:
            return rootmotion.row_step(seen[1] if seen[0] == prev else driven.track.sample(prev), now)
        motion = driven.track.between(prev, cur, wraps, driven.cycle)
        return (*motion.pos, motion.h)
