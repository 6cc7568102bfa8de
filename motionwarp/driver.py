"""Drive an Actor's NodePath by the root motion of the clips it plays (docs/design.md 3)."""
from panda3d.core import ClockObject, PartBundle

from . import rootmotion
from .config import MotionWarpSettings, from_base
from .errors import LoadError
from .actor_clips import clip_control, require_joint
from .motion import Motion, move_nodepath


#: A clip whose root ends within this height (model units) of where it started is grounded.
GROUNDED_TOLERANCE = 1e-3


class RootMotionDriver:
    """Moves `actor` every frame by the blended root motion of its playing clips.

    The motion is integrated from clip times (`AnimControl.getFullFframe`), not from frame
    time guesses, so it does not depend on the frame rate, play rate or hitches. Clips are
    stripped of their root motion on construction (once per shared bundle).

    Start clips with `loop()` / `play()` here (they also know a closed loop's real range);
    clips started with `actor.loop()` / `actor.play()` are followed too.

    `clip_speeds` ({clip: metres per second}) is for cycles authored in place: such a clip
    moves the character straight forward at that speed (at play rate 1) instead of by its
    own root motion, with everything else (loops, blending, play rates) as for any clip.
    """

    def __init__(self, actor, root_joint="root", root_mode="bone", projected_yaw=False,
                 taskmgr=None, sort=None, clips=None, task=True, clip_speeds=None):
        require_joint(actor, root_joint)
        self.actor = actor
        self.root_joint, self.root_mode = root_joint, root_mode
        self.tracks = {}
        self._closed = {}
        base = rootmotion.character_base(actor)
        for clip in (clips if clips is not None else actor.getAnimNames()):
            bundle = clip_control(actor, clip).getAnim()
            self.tracks[clip] = rootmotion.extract_and_strip(bundle, root_joint, root_mode, projected_yaw, clip, base)
            self._closed[clip] = rootmotion.stripped_is_closed_loop(bundle, root_joint)
        for clip, speed in (clip_speeds or {}).items():
            track = self.track(clip)
            self.tracks[clip] = rootmotion.straight_track(clip, track.fps, track.num_frames, speed)
        # Clips that end at the height they start at: their vertical root motion is an offset, not travel.
        self._grounded = {clip for clip, track in self.tracks.items()
                          if abs(track.positions[-1][2]) < GROUNDED_TOLERANCE}
        self._lift = 0.0
        self.part_bundle = actor.getPartBundle("modelRoot")
        self._controls = [(clip, clip_control(actor, clip)) for clip in self.tracks]
        self._control_of = dict(self._controls)
        self._ranges = {}
        self._prev_frames = {}
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
    def track(self, clip):
        """The root motion of a driven clip, or a LoadError that lists the clips this driver drives."""
        track = self.tracks.get(clip)
        if track is None:
            known = ", ".join(sorted(self.tracks)) or "none"
            raise LoadError(f"clip {clip!r} is not driven by this {self.actor.getName()!r} driver; it drives: {known}")
        return track

    def control(self, clip):
        """The AnimControl of a driven clip (a LoadError naming the driven clips otherwise)."""
        if clip not in self._control_of:
            self.track(clip)
        return self._control_of[clip]

    def loop_range(self, clip):
        """(first, last) frame that loops seamlessly: a closed loop leaves out its repeated last frame."""
        last = self.track(clip).num_frames - 1
        return (0, last - 1) if self._closed[clip] else (0, last)

    def loop(self, clip, restart=True):
        """`actor.loop(clip)` without the duplicated frame of a closed loop."""
        first, last = self.loop_range(clip)
        self.actor.loop(clip, restart=restart, fromFrame=first, toFrame=last)
        self._started(clip, (first, last))

    def play(self, clip):
        """`actor.play(clip)`, tracked from its first frame."""
        last = self.track(clip).num_frames - 1
        self.actor.play(clip)
        self._started(clip, (0, last))

    def _started(self, clip, frame_range):
        self._ranges[clip] = frame_range
        self._prev_frames[clip] = self.control(clip).getFullFframe()

    # -- per-frame update -----------------------------------------------------------------
    def _task(self, task):
        if self.actor.isEmpty():
            return task.done
        self.update()
        return task.cont

    def update(self, skip=None):
        """Apply this frame's root motion; `skip` names a clip whose motion someone else applies."""
        motion = self.frame_motion(skip)
        if motion is not None:
            move_nodepath(self.actor, motion)

    def frame_motion(self, skip=None):
        """This frame's blended root motion (None: nothing moved), without applying it: a warp blends it."""
        now = self._clock.getFrameTime()
        dt = 0.0 if self._prev_time is None else now - self._prev_time
        self._prev_time = now
        return self.blended_motion(dt, skip)

    def blended_motion(self, dt, skip=None):
        """The effect-weighted root motion of all clips since the last update, or None.

        A grounded clip's height is not integrated: the NodePath's lift is the effect-weighted
        height of the grounded clips playing now above their own frame 0 (docs/design.md 3), so it
        comes back to 0 whenever they are at frame 0 or stop, however often clips switch.
        """
        total_weight, pos, heading = 0.0, [0.0, 0.0, 0.0], 0.0
        lift_weight, lift = 0.0, 0.0
        for clip, control in self._controls:
            effect = self.part_bundle.getControlEffect(control)
            if effect <= 0.0 or clip == skip:
                self._prev_frames[clip] = control.getFullFframe()
                continue
            step = self.clip_motion(clip, control, dt)
            if clip in self._grounded:
                lift_weight += effect
                lift += effect * self.tracks[clip].sample(control.getFullFframe() % self._cycle(clip))[2]
            if step is None:
                continue
            total_weight += effect
            for axis in range(2 if clip in self._grounded else 3):
                pos[axis] += effect * step.pos[axis]
            heading += effect * step.h
        normalised = self.part_bundle.getBlendType() != PartBundle.BT_linear
        if normalised and lift_weight > 0.0:
            lift /= lift_weight
        rise, self._lift = lift - self._lift, lift
        if total_weight <= 0.0 and rise == 0.0:
            return None
        if normalised and total_weight > 0.0:
            pos, heading = [v / total_weight for v in pos], heading / total_weight  # Panda3D normalises the pose too
        return Motion((pos[0], pos[1], pos[2] + rise), heading)

    def _cycle(self, clip):
        first, last = self._ranges.get(clip, (0, self.tracks[clip].num_frames - 1))
        return last + 1 - first


    def clip_motion(self, clip, control, dt):
        """Root motion of one clip from its previous to its current clip time (loops unwrapped)."""
        cur = control.getFullFframe()
        prev = self._prev_frames.get(clip)
        self._prev_frames[clip] = cur
        if prev is None:
            return None
        track = self.tracks[clip]
        first, last = self._ranges.get(clip, (0, track.num_frames - 1))
        rate = control.getPlayRate()
        wraps = round((prev + dt * control.getFrameRate() * rate - cur) / (last + 1 - first))
        # Only a seam crossing or a jump back tells a loop from a replay; Panda3D tells the play
        # mode only through output(), so it is formatted then, not every frame.
        if (wraps != 0 or (cur < prev and rate > 0)) and ": loop," not in str(control):
            if cur < prev and rate > 0:
                return None  # restarted from the top: nothing travelled
            wraps = 0
        return track.between(prev, cur, wraps, first, last + 1)

