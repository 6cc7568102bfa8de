"""MotionWarper: plays a warp asset so each phase ends exactly on its target (docs/design.md 4)."""
import dataclasses
import enum
import math
import numbers
import weakref

import numpy as np
from direct.directnotify.DirectNotifyGlobal import directNotify
from direct.showbase.MessengerGlobal import messenger
from panda3d.core import ClockObject, LQuaternion, PartBundle, Vec3

from .config import MotionWarpSettings, from_base
from .driver import RootMotionDriver
from .errors import UsageError, WarpRefused, shown
from .motion import Motion, move_nodepath
from .target import WarpTarget
from .warpmath import Slerp, angle_between, axis_trust, heading_quat, play_rate, slerp, trusted_weights

PHASE_START = "motionwarp-phase-start"
PHASE_END = "motionwarp-phase-end"
FINISHED = "motionwarp-finished"
CANCELLED = "motionwarp-cancelled"
BLEND_OUT = "motionwarp-blend-out"
#: Largest base play rate `play(rate=)` accepts (times the phase's max_rate, still a finite clip time).
MAX_BASE_RATE = 100.0
#: Python tag on the actor's node naming the warper that drives it (a weak reference).
_WARPER_TAG = "motionwarp-warper"
_notify = directNotify.newCategory("motionwarp")


class WarpState(enum.Enum):
    """Where a Warp is in its life; only its MotionWarper acts on the moves (it sends the events)."""

    WAITING = "waiting"        # started, before its first phase
    IN_PHASE = "in_phase"      # placing the actor toward a phase's target
    BETWEEN = "between"        # plain root motion between phases or after the last
    FADING_OUT = "fading_out"  # warping done, the clip fading out as plain root motion
    ENDED = "ended"            # finished or cancelled: its event was sent


class MotionWarper:
    """Root motion plus warping for one Actor, in a task late in the frame.

    Every frame the task calls `actor.update()` (this frame's blended pose), moves the
    Actor by its clips' root motion and, while a warp plays, places it from clip time so
    each phase ends exactly on its target. `taskmgr` and `render` default to `base`'s;
    keyword arguments override the `motionwarp-*` PRC settings.
    """

    def __init__(self, actor, root_joint="root", root_mode="bone", taskmgr=None, render=None,
                 sort=None, clip_speeds=None, **settings):
        if actor.isEmpty():
            raise UsageError("MotionWarper: the actor is empty (removed)")
        other = actor.getPythonTag(_WARPER_TAG)() if actor.hasPythonTag(_WARPER_TAG) else None
        if other is not None and not other.destroyed:
            raise UsageError(f"MotionWarper: {actor.getName()!r} already has a MotionWarper; two would fight over "
                             "its NodePath (destroy() the first one)")
        self.actor = actor
        self.destroyed = False
        self.settings = MotionWarpSettings.from_prc(task_sort=sort, **settings)
        self.render = render if render is not None else from_base("render")
        self.driver = RootMotionDriver(actor, root_joint, root_mode, task=False, clip_speeds=clip_speeds)
        self._warp = None
        self._taskmgr = taskmgr or from_base("taskMgr")
        self._task_name = f"motionwarp-warper-{id(self)}"
        self._taskmgr.add(self._task, self._task_name, sort=self.settings.task_sort)
        self._last_error = None
        self._clock = ClockObject.getGlobalClock()
        actor.setPythonTag(_WARPER_TAG, weakref.ref(self))

    @property
    def is_warping(self):
        return self._warp is not None

    @property
    def current(self):
        """The Warp in progress, or None."""
        return self._warp

    @property
    def play_rate(self):
        """The play rate the warp currently wants for its clip (1.0 when idle), for users who drive playback."""
        return self._warp.rate if self._warp else 1.0

    def play(self, asset, targets, rate=1.0, blend_in=None, blend_out=None):
        """Start `asset`'s clip warped toward `targets` (one per phase); WarpRefused says why not.

        A target is a WarpTarget, a Point3 or three numbers (heading 0). Bad arguments, or a
        destroyed warper, raise UsageError. A warp already playing is cancelled at once, unless
        this one is refused. `blend_in` / `blend_out` (seconds; default: the settings) fade the
        clip's control effect in from the pose playing before and out after the last phase, when
        the Actor blends (`enableBlend()`); see Warp.
        """
        warp = self._checked_warp(asset, targets, rate, blend_in, blend_out)
        if self._warp is not None:
            self.cancel("a new warp replaced it", blend_out=0.0)
        warp._start()
        self._warp = warp
        return warp

    def check(self, asset, targets, rate=1.0):
        """Raise what `play` would raise for these arguments (WarpRefused, UsageError), starting nothing.

        For a prompt that must only offer what `play` accepts: a provider's Interaction says the
        obstacle fits the asset, this says the character can reach the targets from where it is.
        """
        self._checked_warp(asset, targets, rate, None, None)

    def _checked_warp(self, asset, targets, rate, blend_in, blend_out):
        if self.destroyed:
            raise UsageError("MotionWarper.play: this warper was destroyed")
        if isinstance(targets, (str, bytes)) or not hasattr(targets, "__iter__"):
            raise UsageError(f"MotionWarper.play: targets: expected a list of WarpTarget (one per phase), "
                             f"got {shown(targets)}")
        blend_in = self.settings.checked("blend_in", self.settings.blend_in if blend_in is None else blend_in)
        blend_out = self.settings.checked("blend_out", self.settings.blend_out if blend_out is None else blend_out)
        warp = Warp(self, asset, [WarpTarget.of(target) for target in targets], rate, blend_in, blend_out,
                    announce=self._announce)
        warp._check()
        return warp

    def cancel(self, reason="cancel() was called", blend_out=None):
        """Stop warping now and restore the play rate; `motionwarp-cancelled` (with `reason`) follows.

        A warp that fades its clip (Warp.effect) fades it out over `blend_out` seconds (default:
        its own blend-out) as plain root motion, sending `motionwarp-blend-out` now and the
        cancel when the fade ends; otherwise, or with `blend_out=0`, the clip stops at once.
        """
        warp = self._warp
        if warp is None:
            return
        fade = warp.blend_out if blend_out is None else self.settings.checked("blend_out", blend_out)
        if fade > 0.0 and warp.effect is not None:
            warp._fade_out(fade, CANCELLED, reason)
        else:
            warp._end(CANCELLED, stop_clip=True, reason=reason)

    def destroy(self):
        """Cancel any warp (even when the actor was just removed: its event is still due) and remove
        the task; `play()` raises UsageError afterwards."""
        self.cancel("the warper was destroyed", blend_out=0.0)
        self._taskmgr.remove(self._task_name)
        self.destroyed = True
        claim = None if self.actor.isEmpty() else self.actor.getPythonTag(_WARPER_TAG)
        if claim is not None and claim() is self:
            self.actor.clearPythonTag(_WARPER_TAG)

    def _task(self, task):
        if self.actor.isEmpty():
            if self._warp is not None:
                self._warp._end(CANCELLED, reason="the actor was removed")
            return task.done
        try:
            if self._warp is not None:
                self._warp._fade(self._clock.getDt())   # before the pose is computed
            self.actor.update()
            self.step()
        except Exception as exc:  # a game's task loop must never see motionwarp fail
            self._fail(exc)
        return task.cont

    def _fail(self, exc):
        """Cancel the warp that failed (its reason names the error) and log the error once."""
        problem = f"{type(exc).__name__}: {exc}"
        if self._warp is not None:
            self._warp._end(CANCELLED, reason=f"motionwarp failed ({problem})")
        if problem != self._last_error:
            _notify.warning(f"{self.actor.getName()}: {problem}")
            self._last_error = problem

    def step(self):
        """Move the actor for this frame: warp (if playing) plus the root motion of other clips.

        While a warp fades its clip, the frame's move is share * the warp's move + (1 - share) *
        the other clips' move, `share` being the clip's part of the blended pose; once it fades
        out, the driver blends its root motion like any other clip's.
        """
        warp = self._warp
        if warp is None or warp.fading_out:
            if warp is not None:
                warp._update()
            self.driver.update()
        elif warp.effect is None:
            warp._update()
            others = self.driver.frame_motion(skip=warp.asset.clip)
            if others is not None:
                move_nodepath(self.actor, others)
        else:
            others = self.driver.frame_motion(skip=warp.asset.clip)
            share, others_effect = self.clip_share(warp)
            if others is not None and self.driver.part_bundle.getBlendType() == PartBundle.BT_linear:
                others = Motion([v / others_effect for v in others.pos], others.h / others_effect)
            warp._update(others, share)

    def _announce(self, warp, event, args):
        """Send a warp's event; on its end (finished or cancelled) it stops being the current warp first."""
        if event in (FINISHED, CANCELLED) and self._warp is warp:
            self._warp = None
        messenger.send(event, [self] + args)

    def clip_share(self, warp):
        """(the warp clip's part of the pose: its effect over all effects, the other clips' total effect)."""
        bundle = self.driver.part_bundle
        others = sum(max(bundle.getControlEffect(control), 0.0) for control in warp.other_controls)
        total = warp.effect + others
        return (1.0 if total <= 0.0 else warp.effect / total), others


@dataclasses.dataclass
class PhaseResult:
    """How one phase of a warp ended: `origin` (where it started), `target` and `target_quat`
    (where it had to end, offsets included), `arrived` and `arrived_quat` (where it did end),
    all in the actor's parent's space, and `play_rate` (the phase's rate scale).

    `result["name"]` reads a field too, as the dicts that results used to be did."""

    name: str
    origin: np.ndarray
    target: np.ndarray
    target_quat: LQuaternion
    arrived: np.ndarray
    arrived_quat: LQuaternion
    play_rate: float

    def __getitem__(self, field):
        if field not in PhaseResult.__dataclass_fields__:
            raise KeyError(field)
        return getattr(self, field)


class Warp:
    """One warp, as returned by `MotionWarper.play`: its asset, targets and progress.

    `state` (a WarpState) says where it is; `results` gets a PhaseResult per finished phase.

    With `blend_in` or `blend_out` above 0 on a blending Actor, the warp sets its clip's control
    effect itself (`effect`): from 0 up to 1 over `blend_in` seconds, and after its last phase
    (starting `blend_out` seconds before the clip ends) down to 0, when it finishes. Another
    clip lowering that effect takes the Actor over: the warp is cancelled.
    """

    def __init__(self, warper, asset, targets, base_rate, blend_in, blend_out, announce):
        self.warper, self.asset, self.targets = warper, asset, targets
        self._announce = announce   # the owner's: it sends the events and acts on the end
        self.actor = warper.actor
        self.base_rate = base_rate
        self.rate = 1.0
        self.track = asset.track
        self.control = None
        self.phase_index = 0      # the next phase to start, or the one in progress
        self.state = WarpState.WAITING
        self.frame = 0.0          # clip frame already applied to the actor
        self.origin = None        # (P0, R0) of the phase in progress
        self._phase_plan = None   # its _PhasePlan
        self.results = []         # per phase: target and where the actor arrived
        blends = warper.driver.part_bundle.getAnimBlendFlag()
        self.blend_in = blend_in if blends else 0.0
        self.blend_out = blend_out if blends else 0.0
        self.effect = None        # the control effect this warp gave its clip, when it fades it
        self.other_controls = []  # AnimControls of the clips the warp shares the Actor with
        self._blended_phase = False   # the phase in progress has shared a frame with other clips
        self._ending = (FINISHED, None)   # what the fade-out ends as

    @property
    def in_phase(self):
        return self.state is WarpState.IN_PHASE

    @property
    def fading_out(self):
        return self.state is WarpState.FADING_OUT

    # -- refusing what cannot work --------------------------------------------------------
    def _check(self):
        phases, settings = self.asset.phases, self.warper.settings
        driver = self.warper.driver
        problem = self._broken()
        if problem:
            raise WarpRefused(problem)
        if (self.asset.root_joint, self.asset.root_mode) != (driver.root_joint, driver.root_mode):
            raise WarpRefused(f"asset {self.asset.clip!r} is rooted at joint {self.asset.root_joint!r} "
                              f"({self.asset.root_mode} mode); this warper drives {driver.root_joint!r} "
                              f"({driver.root_mode} mode)")
        if self.asset.clip not in self.warper.driver.tracks:
            raise WarpRefused(f"the actor has no clip {self.asset.clip!r}; its driven clips: "
                              f"{', '.join(sorted(self.warper.driver.tracks)) or 'none'}")
        if len(self.targets) != len(phases):
            raise WarpRefused(f"asset {self.asset.clip!r} has {len(phases)} phases "
                              f"({', '.join(p.name for p in phases)}) but {len(self.targets)} targets were given")
        for phase, target in zip(phases, self.targets):
            if not target.is_finite():
                raise WarpRefused(f"target of phase {phase.name!r} is not finite: {target}")
        if not (isinstance(self.base_rate, numbers.Real) and 0 < self.base_rate <= MAX_BASE_RATE):
            raise WarpRefused(f"play rate must be a number above 0 and at most {MAX_BASE_RATE:g}, "
                              f"got {shown(self.base_rate)}")
        pos = tuple(self.actor.getPos())
        quat = self.actor.getQuat()
        scale = self.scale
        frame = 0.0
        for index, phase in enumerate(phases):
            lead = self.track.between(frame, phase.motion.f0)
            step = quat.xform(Vec3(*(v * scale for v in lead.pos)))
            pos = (pos[0] + step[0], pos[1] + step[1], pos[2] + step[2])
            quat = heading_quat(lead.h) * quat
            goal, goal_quat = self.phase_goal(index)
            goal = tuple(goal)
            if not all(math.isfinite(v) for v in goal):
                raise WarpRefused(f"phase {phase.name!r} would end at a non-finite point "
                                  f"(its t_offset is {', '.join(f'{v:g}' for v in phase.t_offset)})")
            self._check_reach(phase, pos, quat, goal, goal_quat, settings)
            pos, quat, frame = goal, goal_quat, phase.motion.f1
        self.blend_out = min(self.blend_out, self._seconds_left(phases[-1].motion.f1))

    def _seconds_left(self, frame):
        """Seconds the clip plays from `frame` to its end at the base rate (no phase scales it there)."""
        return max(self.track.num_frames - 1 - frame, 0.0) / (self.track.fps * self.base_rate)

    def _check_reach(self, phase, pos, quat, goal, goal_quat, settings):
        """Refuse a target behind a forward clip, or a ground distance too far from the clip's.

        Height is not limited here: providers pick the clip whose authored height fits.
        """
        scale = self.scale
        flat_clip = quat.xform(Vec3(*(v * scale for v in phase.motion.end_displacement)))
        flat_need = (goal[0] - pos[0], goal[1] - pos[1])
        clip_len, need_len = math.hypot(flat_clip[0], flat_clip[1]), math.hypot(*flat_need)
        if phase.warp_translation and clip_len > settings.still_axis_m:
            ahead = (flat_clip[0] * flat_need[0] + flat_clip[1] * flat_need[1]) / clip_len
            if ahead < -max(settings.still_axis_m, settings.max_behind_m):
                raise WarpRefused(f"target of phase {phase.name!r} is behind the character "
                                  f"({-ahead:.2f} m back; the clip moves forward)")
            ratio = need_len / clip_len
            if ratio > settings.max_stretch or ratio < settings.min_stretch:
                raise WarpRefused(f"phase {phase.name!r} needs {need_len:.2f} m over the ground where the clip "
                                  f"moves {clip_len:.2f} m (ratio {ratio:.2f}, allowed {settings.min_stretch:g} "
                                  f"to {settings.max_stretch:g})")
        if phase.warp_rotation:
            turn = angle_between(heading_quat(phase.motion.turn) * quat, goal_quat)
            if turn > settings.max_turn_deg:
                raise WarpRefused(f"phase {phase.name!r} needs a {turn:.0f} degree turn "
                                  f"(allowed {settings.max_turn_deg:g})")

    def _broken(self):
        """Why the warp cannot go on (the actor removed or scaled to nothing, a follow node removed), or None."""
        if self.actor.isEmpty():
            return "the actor was removed"
        scale = self.actor.getSx()
        if not (math.isfinite(scale) and scale > 1e-6):
            return f"the actor's scale is {scale:g}; a warp needs a positive scale"
        for phase, target in zip(self.asset.phases, self.targets):
            if target.follow is not None and target.follow.isEmpty():
                return f"the follow node of phase {phase.name!r}'s target was removed"
        return None

    # -- targets --------------------------------------------------------------------------
    @property
    def scale(self):
        return self.actor.getSx()

    def phase_goal(self, index):
        """(Point3, LQuaternion): where the root must be (in the actor's parent's space) and how it
        must be rotated at the end of phase `index`, read now (a following target moves)."""
        phase, target = self.asset.phases[index], self.targets[index]
        pos, quat = target.resolve(self.actor.getParent(), self.warper.render)
        offset_quat = LQuaternion()
        offset_quat.setHpr(Vec3(*phase.r_offset))
        goal_quat = offset_quat * quat
        goal_pos = pos + quat.xform(Vec3(*phase.t_offset))
        if phase.align_offset is not None:
            goal_pos -= goal_quat.xform(Vec3(*phase.align_offset) * self.scale)
        return goal_pos, goal_quat

    # -- lifecycle ------------------------------------------------------------------------
    def _start(self):
        driver = self.warper.driver
        self.control = driver.control(self.asset.clip)
        self.actor.setPlayRate(self.base_rate, self.asset.clip)
        self.warper.driver.play(self.asset.clip)
        self.frame = self.control.getFullFframe()
        if self.blend_in > 0.0 or self.blend_out > 0.0:
            self.effect = 0.0 if self.blend_in > 0.0 else 1.0
            self.actor.setControlEffect(self.asset.clip, self.effect)
            self.other_controls = [driver.control(clip) for clip in driver.tracks if clip != self.asset.clip]

    def _fade(self, dt):
        """Move the clip's effect one frame along its fade; an effect lowered by someone else cancels."""
        if self.effect is None:
            return
        if self.warper.driver.part_bundle.getControlEffect(self.control) < self.effect - 1e-6:
            self._end(CANCELLED, reason="another clip took over")
            return
        if self.fading_out:
            self.effect = self.effect - dt / self.blend_out
            self.effect = 0.0 if self.effect < 1e-9 else self.effect
        elif self.effect < 1.0:
            self.effect = self.effect + dt / self.blend_in
            self.effect = 1.0 if self.effect > 1.0 - 1e-9 else self.effect
        self.actor.setControlEffect(self.asset.clip, self.effect)

    def _fade_out(self, seconds, event=FINISHED, reason=None):
        """Stop warping and fade the clip out over `seconds` as plain root motion; `event` follows at 0."""
        self.blend_out, self._ending = seconds, (event, reason)
        if self.fading_out:
            return
        self.state, self.rate = WarpState.FADING_OUT, 1.0
        self.actor.setPlayRate(self.base_rate, self.asset.clip)
        self._announce(self, BLEND_OUT, [self.asset.clip, seconds])

    def _end(self, event, stop_clip=False, reason=None):
        """Restore the play rate and send `event`; `motionwarp-cancelled` also carries `reason`."""
        self.actor.setPlayRate(self.base_rate, self.asset.clip)
        if stop_clip:
            self.actor.stop(self.asset.clip)
        self.rate = 1.0
        self.state = WarpState.ENDED
        self._announce(self, event, [self.asset.clip] + ([reason] if event == CANCELLED else []))

    def _update(self, others=None, share=1.0):
        """Apply the clip's motion from the last applied frame to now, phase by phase.

        `others` is the other clips' root motion this frame and `share` the clip's part of the
        pose (section 4 of docs/design.md: a blended frame)."""
        problem = self._broken()
        if problem:
            self._end(CANCELLED, reason=problem)
            return
        cur = self.control.getFullFframe()
        if self.fading_out:
            if self.effect <= 0.0:
                self._end(self._ending[0], stop_clip=True, reason=self._ending[1])
            return
        if self.effect is None and self.warper.driver.part_bundle.getControlEffect(self.control) <= 0.0:
            self._end(CANCELLED, reason="another clip took over")
            return
        if cur < self.frame - 1e-6:
            self._end(CANCELLED, reason="the clip was restarted")
            return
        blend = _FrameBlend(others, share, self.frame, cur)
        phases = self.asset.phases
        while True:
            if self.in_phase:
                phase = phases[self.phase_index]
                if cur < phase.motion.f1:
                    self._advance(phase, cur, blend)
                    break
                self._advance(phase, phase.motion.f1, blend)
                self._finish_phase(phase)
                continue
            next_start = phases[self.phase_index].motion.f0 if self.phase_index < len(phases) else math.inf
            stop = min(cur, next_start)
            move_nodepath(self.actor, blend.mix(self.track.between(self.frame, stop), self.frame, stop))
            self.frame = stop
            if cur < next_start:
                break
            self._start_phase(phases[self.phase_index], blend)
        self.frame = cur
        if self.phase_index < len(phases):
            return
        if self.blend_out > 0.0 and self.effect is not None:
            if self._seconds_left(cur) <= self.blend_out + 1e-9:
                self._fade_out(self.blend_out)
        elif not self.control.isPlaying():
            self._end(FINISHED)

    def _start_phase(self, phase, blend):
        self.state = WarpState.IN_PHASE
        self._blended_phase = blend.shared
        p0, r0 = self.actor.getPos(), self.actor.getQuat()
        self.origin = (p0, r0)
        self._phase_plan = None
        goal = self._plan(phase).goal
        anim = Vec3(*phase.motion.end_displacement).length() * self.scale
        self.rate = play_rate(anim, (goal - p0).length(), phase.min_rate, phase.max_rate,
                              self.warper.settings.still_axis_m)
        self.actor.setPlayRate(self.base_rate * self.rate, self.asset.clip)
        self._announce(self, PHASE_START, [phase.name, self.phase_index])

    def _finish_phase(self, phase):
        self.frame = phase.motion.f1
        plan = self._plan(phase)
        goal, goal_quat = plan.goal, plan.goal_quat
        self.results.append(PhaseResult(phase.name, np.array(self.origin[0]), np.array(goal), goal_quat,
                                        np.array(self.actor.getPos()), self.actor.getQuat(), self.rate))
        self.state = WarpState.BETWEEN
        self.phase_index += 1
        self.rate = 1.0
        self.actor.setPlayRate(self.base_rate, self.asset.clip)
        self._announce(self, PHASE_END, [phase.name, self.phase_index - 1])

    def _advance(self, phase, frame, blend):
        """Move through the phase to `frame`: the contract's placement, or a blended step when the
        phase shares frames with other clips."""
        self._blended_phase = self._blended_phase or blend.shared
        if self._blended_phase:
            self._blend_place(phase, frame, blend)
        else:
            self._place(phase, frame)
        self.frame = frame

    def _blend_place(self, phase, frame, blend):
        """One blended step from self.frame to `frame`: the blended clip and other motion, then
        the error still left to the target (from where the actor really is, assuming the clip's
        own motion from here on) spread over the phase's remaining weight, so the phase still
        ends exactly on its target."""
        p0, r0 = self.origin
        plan = self._plan(phase)
        goal, goal_quat = plan.goal, plan.goal_quat
        motion, scale, start = phase.motion, plan.scale, self.frame
        pos, quat = self.actor.getPos(), self.actor.getQuat()
        before, now, end = motion.displacement(start), motion.displacement(frame), motion.end_displacement
        other = blend.take(start, frame)
        moved = pos + r0.xform(Vec3(*(now[i] - before[i] for i in range(3))) * scale) * blend.share
        moved += quat.xform(Vec3(*other.pos) * scale) * (1.0 - blend.share)
        if phase.warp_translation:
            need = r0.conjugate().xform(goal - moved) - Vec3(*(end[i] - now[i] for i in range(3))) * scale
            w0, w1 = trusted_weights(motion, start, plan.trust), trusted_weights(motion, frame, plan.trust)
            step = Vec3(*(need[i] * _rest_share(w0[i], w1[i]) if letter in phase.axes else 0.0
                          for i, letter in enumerate("xyz")))
            moved += r0.xform(step)
        self.actor.setPos(moved)
        if phase.warp_rotation:
            turned = heading_quat((1.0 - blend.share) * other.h) * quat
            span = motion.f1 - motion.f0
            self.actor.setQuat(slerp(turned, goal_quat, _rest_share((start - motion.f0) / span,
                                                                   (frame - motion.f0) / span)))
        else:
            turn = self.track.heading(frame) - self.track.heading(start)
            self.actor.setQuat(heading_quat(blend.share * turn + (1.0 - blend.share) * other.h) * quat)

    def _place(self, phase, frame):
        """Put the actor where the phase puts it at `frame`: P0 + R0 (A + D w), slerp(R0, Q, u)."""
        p0, r0 = self.origin
        plan = self._plan(phase)
        motion, scale, warp = phase.motion, plan.scale, plan.warp
        weights = trusted_weights(motion, frame, plan.trust)
        a = motion.displacement(frame)
        local = Vec3(a[0] * scale + warp[0] * weights[0], a[1] * scale + warp[1] * weights[1],
                     a[2] * scale + warp[2] * weights[2])
        if phase.warp_rotation:
            quat = plan.turn((frame - motion.f0) / (motion.f1 - motion.f0))
        else:
            quat = heading_quat(self.track.heading(frame) - self.track.heading(motion.f0)) * r0
        self.actor.setPosQuat(p0 + r0.xform(local), quat)

    def _plan(self, phase):
        """The phase's _PhasePlan: made at its first frame, remade every frame only for a target
        that follows a node (or when the actor's scale changed)."""
        plan, scale = self._phase_plan, self.scale
        if plan is not None and plan.scale == scale and self.targets[self.phase_index].follow is None:
            return plan
        p0, r0 = self.origin
        goal, goal_quat = self.phase_goal(self.phase_index)
        need = r0.conjugate().xform(goal - p0)
        end = phase.motion.end_displacement
        warp = [0.0, 0.0, 0.0]
        if phase.warp_translation:
            for axis, letter in enumerate("xyz"):
                if letter in phase.axes:
                    warp[axis] = need[axis] - end[axis] * scale
        trust = axis_trust(phase.motion, [w / scale for w in warp], self.warper.settings.still_axis_m)
        self._phase_plan = _PhasePlan(scale, goal, goal_quat, warp, trust, Slerp(r0, goal_quat))
        return self._phase_plan


class _PhasePlan:
    """What placing one phase needs that only changes with its goal: the goal, the warp D that
    the weights carry, the weights' per-axis trust, and the rotation's arc from R0."""

    __slots__ = ("scale", "goal", "goal_quat", "warp", "trust", "turn")

    def __init__(self, scale, goal, goal_quat, warp, trust, turn):
        self.scale, self.goal, self.goal_quat = scale, goal, goal_quat
        self.warp, self.trust, self.turn = warp, trust, turn


def _rest_share(before, now):
    """How much of what is left moves from weight `before` to `now` (1 once nothing is left)."""
    if before >= 1.0 - 1e-9:
        return 1.0
    return min(max((now - before) / (1.0 - before), 0.0), 1.0)


class _FrameBlend:
    """One frame's sharing of the root motion between the warp clip and the other clips.

    `others` (the other clips' motion over the frame, or None) is handed out in proportion to
    the clip frames each step covers, `share` being the warp clip's part of the pose.
    """

    def __init__(self, others, share, first, last):
        self.others = others if share < 1.0 else None
        self.share = share if self.others is not None else 1.0
        self.span = last - first
        self.left = 1.0   # part of `others` not handed out yet

    @property
    def shared(self):
        return self.others is not None

    def take(self, start, end):
        """The other clips' motion for clip frames `start` to `end` of this frame (all of it when the clip stood still)."""
        if self.others is None:
            return Motion()
        part = min(1.0 if self.span <= 1e-9 else (end - start) / self.span, self.left)
        self.left -= part
        return Motion([v * part for v in self.others.pos], self.others.h * part)

    def mix(self, clip_motion, start, end):
        """share * the clip's motion + (1 - share) * the other clips' over the same frames."""
        if self.others is None:
            return clip_motion
        other = self.take(start, end)
        share = self.share
        return Motion([share * c + (1.0 - share) * o for c, o in zip(clip_motion.pos, other.pos)],
                      share * clip_motion.h + (1.0 - share) * other.h)
