"""MotionWarper: plays a warp asset so each phase ends exactly on its target (docs/design.md 4).

The pieces, split as Unreal's Motion Warping splits them: `placement` (where a phase puts the
character at a clip frame) and `refusal` (whether a warp can play at all) are pure functions;
a `Warp` is one warp's lifecycle (its WarpState) and calls them; the `MotionWarper` owns the
warp, alone sends its events, and writes the actor's NodePath once a frame.
"""
import contextlib
import dataclasses
import enum
import math
import weakref

from direct.actor.Actor import Actor
from direct.directnotify.DirectNotifyGlobal import directNotify
from direct.showbase.MessengerGlobal import messenger
from direct.task.Task import cont as _CONT
from panda3d.core import ClockObject, PartBundle, Point3, Quat

from ..base.config import MotionWarpSettings, from_base
from ..animation.driver import RootMotionDriver
from ..base.errors import UsageError, WarpRefused, shown
from ..animation.motion import Motion
from .placement import PhasePlan, goal_pose, kept_low, moved_by, phase_rate, place, place_blended, rate_scale
from .path import planned_path
from .phasemotion import at_boundary
from .plainframe import PlainPhase, PlainStretch
from .posematch import candidates, feature_joints, live_pose, started_phases
from .refusal import phase_walk, refusal
from .speedlimit import speed_capped
from .switchoff import switch_offs
from .target import WarpTarget
from .turning import PhaseTurn, planned_goal_quat

PHASE_START = "motionwarp-phase-start"
PHASE_END = "motionwarp-phase-end"
FINISHED = "motionwarp-finished"
CANCELLED = "motionwarp-cancelled"
BLEND_OUT = "motionwarp-blend-out"
#: Python tag on the actor's node naming the warper that drives it (a weak reference).
_WARPER_TAG = "motionwarp-warper"
_notify = directNotify.newCategory("motionwarp")
#: Events sent so far, by every MotionWarper, that a game's handler listened to (see heard_events).
_heard = 0


def heard_events():
    """How many motionwarp events a game's handler has heard so far. A handler may do anything to any
    character, so what a WarpBatch decided for its frame before one ran is decided again after it."""
    return _heard


class WarpState(enum.Enum):
    """Where a Warp is in its life; only its MotionWarper acts on the moves (it sends the events)."""

    WAITING = "waiting"        # started, before its first phase
    IN_PHASE = "in_phase"      # placing the actor toward a phase's target
    BETWEEN = "between"        # plain root motion between phases or after the last
    FADING_OUT = "fading_out"  # warping done, the clip fading out as plain root motion
    ENDED = "ended"            # finished or cancelled: its event was sent


# The states the per-frame pass compares with, as plain names: an Enum member lookup costs 70 ns.
_IN_PHASE, _BETWEEN, _FADING_OUT, _ENDED = WarpState.IN_PHASE, WarpState.BETWEEN, WarpState.FADING_OUT, WarpState.ENDED


class MotionWarper:
    """Root motion plus warping for one Actor, in a task late in the frame.

    Every frame the task calls `actor.update()` (this frame's blended pose), moves the
    Actor by its clips' root motion and, while a warp plays, places it from clip time so
    each phase ends exactly on its target, with one write of the Actor's transform.
    `taskmgr` and `render` default to `base`'s; keyword arguments override the
    `motionwarp-*` PRC settings.
    """

    def __init__(self, actor, root_joint="root", root_mode="bone", taskmgr=None, render=None,
                 sort=None, clip_speeds=None, **settings):
        if not isinstance(actor, Actor):
            raise UsageError(f"MotionWarper: expected an Actor, got {type(actor).__name__} {shown(actor)}")
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
        self._handler_error = None   # the first exception a game's handler raised in this operation
        self._depth = 0              # operations (play, cancel, destroy, a frame) in progress
        self._clock = ClockObject.getGlobalClock()
        self._update_pose = pose_updater(actor)
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
        """The rate the warp's clip plays at now, read from its AnimControl: the base rate times
        the phase's `Warp.rate_scale`. For users who drive playback; 1.0 when no warp plays."""
        return self._warp.control.getPlayRate() if self._warp else 1.0

    def play(self, asset, targets, rate=1.0, blend_in=None, blend_out=None, path_check=None, pose_match=None):
        """Start `asset`'s clip warped toward `targets` (one per phase); WarpRefused says why not.

        A target is a WarpTarget, a Point3 or three numbers (heading 0). Bad arguments, or a
        destroyed warper, raise UsageError. A warp already playing is cancelled at once, unless
        this one is refused. `blend_in` / `blend_out` (seconds; default: the settings) fade the
        clip's control effect in from the pose playing before and out after the last phase, when
        the Actor blends (`enableBlend()`); see Warp. With `path_check` (a `scene.pathcheck.PathCheck`),
        a warp whose planned path (Warp.planned_path) runs the character's body into the scene is refused.
        `pose_match` (None: as the asset's `pose_match` says; False: from frame 0) starts the clip at the
        frame of the asset's window whose feet and hips best match the pose now (Warp.start_frame).
        """
        warp = self._checked_warp(asset, targets, rate, blend_in, blend_out, path_check, pose_match)
        with self._game_errors("play()"):
            if self._warp is not None:
                self.cancel("a new warp replaced it", blend_out=0.0)
                if self._warp is not None:   # a motionwarp-cancelled handler started its own warp: it stays
                    raise WarpRefused("a motionwarp-cancelled handler started another warp in its place")
            if self.destroyed:
                raise WarpRefused("a motionwarp-cancelled handler destroyed the warper")
            warp._start()
            self._warp = warp
        return warp

    def check(self, asset, targets, rate=1.0, path_check=None, pose_match=None):
        """Raise what `play` would raise for these arguments (WarpRefused, UsageError), starting
        nothing; else return the rate scale each phase would get if it played now.

        For a prompt that must only offer what `play` accepts: a provider's Interaction says the
        obstacle fits the asset, this says the character can reach the targets from where it is.
        The rates are foreseen from the clip's own motion up to each phase; a blend-in during the
        lead-up mixes in the pose it fades from, so the played rate can differ slightly.
        """
        return self._checked_warp(asset, targets, rate, None, None, path_check, pose_match).planned_rates()

    def _checked_warp(self, asset, targets, rate, blend_in, blend_out, path_check, pose_match=None):
        if self.destroyed:
            raise UsageError("MotionWarper.play: this warper was destroyed")
        if isinstance(targets, (str, bytes)) or not hasattr(targets, "__iter__"):
            raise UsageError(f"MotionWarper.play: targets: expected a list of WarpTarget (one per phase), "
                             f"got {shown(targets)}")
        if isinstance(rate, bool):
            raise UsageError(f"MotionWarper.play: rate: expected a number above 0 and at most 100, got {rate!r}")
        if path_check is not None and not callable(getattr(path_check, "refusal", None)):
            raise UsageError(f"MotionWarper.play: path_check: expected a PathCheck or None, got "
                             f"{type(path_check).__name__} {shown(path_check)}")
        blend_in = self.settings.blend_in if blend_in is None else self.settings.checked("blend_in", blend_in)
        blend_out = self.settings.blend_out if blend_out is None else self.settings.checked("blend_out", blend_out)
        if pose_match not in (None, True, False):
            raise UsageError(f"MotionWarper.play: pose_match: expected True, False or None, got {shown(pose_match)}")
        warp = Warp(self, asset, [WarpTarget.of(target) for target in targets], rate, blend_in, blend_out,
                    announce=self._announce)
        if pose_match is not False and getattr(asset, "pose_match", None) is not None:
            warp._match_start()
        elif pose_match:
            raise UsageError(f"MotionWarper.play: pose_match=True, but asset {asset.clip!r} names no pose_match "
                             "window (docs/design.md 5.1)")
        problem = warp._refusal()
        if not problem and path_check is not None:
            problem = path_check.refusal(asset, warp.planned_path())
        if problem:
            raise WarpRefused(problem)
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
        with self._game_errors("cancel()"):
            if fade > 0.0 and warp.effect is not None:
                warp._fade_out(fade, CANCELLED, reason)
            else:
                warp._end(CANCELLED, stop_clip=True, reason=reason)

    def destroy(self):
        """Cancel any warp (even when the actor was just removed: its event is still due) and remove
        the task; `play()` raises UsageError afterwards."""
        with self._game_errors("destroy()"):
            self.cancel("the warper was destroyed", blend_out=0.0)
            self._taskmgr.remove(self._task_name)
            self.destroyed = True
            claim = None if self.actor.isEmpty() else self.actor.getPythonTag(_WARPER_TAG)
            if claim is not None and claim() is self:
                self.actor.clearPythonTag(_WARPER_TAG)

    def _task(self, task):
        warp = self._warp
        plain = None if warp is None else warp._plain
        try:
            cur = None if plain is None else plain.frame(warp)
            if cur is not None:   # most frames of a warp: the pose, the placement, one write, and no event
                plain.update_pose()
                plain.write(warp, cur)
                return _CONT
        except Exception:   # the full frame below meets it again and cancels the warp with it
            pass
        # The frame is an operation like play() (see _game_errors), without a context manager's cost.
        self._depth += 1
        try:
            done = self._frame()
        finally:
            self._depth -= 1
            error = self._handler_error_due()
        if error is not None:
            _raise_game_error(error, "frame task")
        return task.done if done else task.cont

    def _frame(self):
        """This frame's work; True once the actor is gone (the task ends)."""
        if self.actor.isEmpty():
            if self._warp is not None:
                self._warp._end(CANCELLED, reason="the actor was removed")
            return True
        try:
            if self._warp is not None:
                self._warp._fade(self._clock.getDt())   # before the pose is computed
            self._update_pose()
            self.step()
        except Exception as exc:  # a game's task loop must never see motionwarp fail
            self._fail(exc)
        return False

    @contextlib.contextmanager
    def _game_errors(self, operation):
        """Finish `operation` whatever the game's event handlers raise, then raise the first of their
        exceptions, unchanged, to its caller (taskMgr.step() for the frame), as Panda3D's messenger
        and task manager pass a handler's or a task's exception on (docs/design.md 10, Events).
        An operation inside another (play's cancel) leaves it to the outer one; one a handler calls
        (a handler's play()) is outermost and raises its own handlers' exceptions to that handler."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            error = self._handler_error_due()
        if error is not None:
            _raise_game_error(error, operation)

    def _handler_error_due(self):
        """The handler exception to raise now: the kept one, once the outermost operation ends."""
        if self._depth:
            return None
        error, self._handler_error = self._handler_error, None
        return error

    def _fail(self, exc):
        """Cancel the warp that failed (its reason names the error) and log the error once."""
        problem = f"{type(exc).__name__}: {exc}"
        if self._warp is not None:
            self._warp._end(CANCELLED, reason=f"motionwarp failed ({problem})")
        if problem != self._last_error:
            name = "(a removed actor)" if self.actor.isEmpty() else self.actor.getName()
            _notify.warning(f"{name}: {problem}")
            self._last_error = problem

    def step(self):
        """Move the actor for this frame, writing its transform once: the warp's placement (if one
        plays) and the root motion of the other clips, which the driver reports without applying.

        Without a fade the other clips' motion is added after the warp's. While a warp fades its
        clip, the frame's move is share * the warp's move + (1 - share) * the other clips' move,
        `share` being the clip's part of the blended pose; once it fades out, the driver blends its
        root motion like any other clip's (and writes it).
        """
        warp = self._warp
        if warp is None or warp.state is _FADING_OUT:
            if warp is not None:
                warp._update()   # a fading-out warp only ends here
            self.driver.update()
            return
        actor, clip = self.actor, warp.asset.clip
        if warp.effect is None:
            pose = warp._update()
            others = self.driver.frame_motion(skip=clip)
            if others is not None and not actor.isEmpty():
                pose = moved_by(pose or (actor.getPos(), actor.getQuat()), others, actor.getScale())
        else:
            others = self.driver.frame_motion(skip=clip)
            share, others_effect = self.clip_share(warp)
            if others is not None and self.driver.part_bundle.getBlendType() == PartBundle.BT_linear:
                others = Motion([v / others_effect for v in others.pos], others.h / others_effect)
            pose = warp._update(others, share)
        if pose is not None and not actor.isEmpty():
            actor.setPosQuat(*pose)

    def _announce(self, warp, event, args, pose=None):
        """Send a warp's event; on its end (finished or cancelled) it stops being the current warp first.

        An event sent in the middle of a frame's move (`pose`: where the warp has the actor then, a
        phase's start or end) finds the actor there, and what a listener does to the actor stays:
        the returned pose is the actor's after the listeners, which the warp goes on from.
        """
        if event in (FINISHED, CANCELLED) and self._warp is warp:
            self._warp = None
        if pose is None or self.actor.isEmpty():
            self._send_to_game(event, args)
            return pose
        self.actor.setPosQuat(*pose)
        self._send_to_game(event, args)
        return (self.actor.getPos(), self.actor.getQuat()) if not self.actor.isEmpty() else pose

    def _send_to_game(self, event, args):
        """messenger.send, keeping a handler's exception for the operation's end (see _game_errors);
        a second one in the same operation is only logged."""
        global _heard
        if messenger.whoAccepts(event):
            _heard += 1
        depth, pending = self._depth, self._handler_error
        self._depth, self._handler_error = 0, None   # the handler's own calls are outermost
        try:
            messenger.send(event, [self] + args)
        except Exception as exc:
            pending = self._keep_first(pending, exc, event)
        finally:
            self._depth, self._handler_error = depth, pending

    @staticmethod
    def _keep_first(pending, exc, event):
        """The exception to re-raise: the first; a later one is only logged."""
        if pending is None:
            return exc
        _notify.warning(f"{event} handler raised {type(exc).__name__}: {shown(str(exc))} "
                        f"(after {type(pending).__name__}, which is re-raised)")
        return pending

    def clip_share(self, warp):
        """(the warp clip's part of the pose: its effect over all effects, the other clips' total effect)."""
        bundle = self.driver.part_bundle
        others = sum(max(bundle.getControlEffect(control), 0.0) for control in warp.other_controls)
        total = warp.effect + others
        return (1.0 if total <= 0.0 else warp.effect / total), others


def _raise_game_error(error, operation):
    """Raise a game handler's exception as it was, with a note saying when it was raised."""
    note = f"(a game's motionwarp event handler raised this during MotionWarper {operation}, which finished first)"
    if note not in getattr(error, "__notes__", ()):
        error.add_note(note)
    raise error


def _invertible(mat):
    """True when a node's transform (an LMatrix4) keeps its space: finite, and no axis scaled to nothing."""
    det = mat.getUpper3().determinant()
    return math.isfinite(det) and abs(det) > 1e-12


def pose_updater(actor):
    """A function that does `actor.update()`: this frame's blended pose of every part of the Actor's
    first LOD. For a plain Actor it updates the PartBundles itself, read anew each call (parts and
    LODs may change), without `Actor.update`'s per-part lookups (about 1 us a frame); an Actor whose
    class overrides `update` keeps its own."""
    if type(actor).update is not Actor.update:
        return actor.update

    def update():
        lods = actor.getLODNames()
        if not lods:
            return actor.update()   # it warns that there is no LOD
        for part in actor.getPartBundleDict()[lods[0]].values():
            part.partBundleHandle.getBundle().update()
    return update


@dataclasses.dataclass
class PhaseResult:
    """How one phase of a warp ended: `origin` (where it started), `target` and `target_quat`
    (where it had to end, offsets included), `arrived` and `arrived_quat` (where it did end),
    all in the actor's parent's space, and `play_rate` (the phase's rate scale). Points are
    Panda3D `Point3`s and rotations `Quat`s, so `(r.arrived - r.target).length()` works."""

    name: str
    origin: Point3
    target: Point3
    target_quat: Quat
    arrived: Point3
    arrived_quat: Quat
    play_rate: float
    #: The clip frame the warp started at (a pose-matched start's; 0 otherwise).
    start_frame: int = 0


class Warp:
    """One warp, as returned by `MotionWarper.play`: its asset, targets and progress.

    `state` (a WarpState) says where it is; `results` gets a PhaseResult per finished phase;
    `rate_scale` is the factor the phase in progress scales the clip's play rate by (1 outside
    phases). Its MotionWarper drives it (the underscored methods) and sends its events.

    With `blend_in` or `blend_out` above 0 on a blending Actor, the warp sets its clip's control
    effect itself (`effect`): from 0 up to 1 over `blend_in` seconds, and after its last phase
    (starting `blend_out` seconds before the clip ends) down to 0, when it finishes. Another
    clip lowering that effect takes the Actor over: the warp is cancelled.
    """

    def __init__(self, warper, asset, targets, base_rate, blend_in, blend_out, announce):
        self.warper, self.asset, self.targets = warper, asset, targets
        self._follows = [(phase.name, target.follow) for phase, target in zip(asset.phases, targets)
                         if target.follow is not None]
        self._announce = announce   # the owner's: it sends the events and acts on the end
        self.actor = warper.actor
        self._driver, self._settings, self._render = warper.driver, warper.settings, warper.render
        self._bundle = self._driver.part_bundle
        self.base_rate = base_rate
        self.rate_scale = 1.0
        self.track = asset.track
        self.control = None
        self.phase_index = 0      # the next phase to start, or the one in progress
        self.state = WarpState.WAITING
        self.frame = 0.0          # clip frame already applied to the actor
        self.origin = None        # (P0, R0) of the phase in progress
        self._origins = {}        # phase index -> its (P0, R0), once started
        self._phase_plan = None   # its PhasePlan
        self._turn = None         # its PhaseTurn
        self._plain = None        # the PlainPhase or PlainStretch in progress, when its frames can be plain (plainframe.py)
        self._switch_offs = []    # the phases' SwitchOffs, from where their targets were at the start
        #: Why a switch-off rule ended the warp (the CANCELLED event's reason), None while it has not.
        self.switched_off = None
        self._pose = None         # within a frame's move: where the warp has the actor so far
        self.results = []         # per phase: target and where the actor arrived
        #: The clip frame the warp starts at (a pose-matched start's choice; 0 otherwise) and that
        #: frame's pose distance (None without a match); `phases` are the phases as it plays them.
        self.start_frame, self.start_cost = 0, None
        #: The matrix taking the asset's model frame into the actor's skeleton frame (a character file's
        #: turn: rootmotion.skeleton_change), or None when they sit alike.
        self.into_skeleton = (self._driver.skeleton_change(asset.model_path, asset.clips.base)
                              if asset.clips is not None else None)
        self.phases = self._in_skeleton(asset.phases)
        blends = self._bundle.getAnimBlendFlag()
        self.blend_in = blend_in if blends else 0.0
        self.blend_out = blend_out if blends else 0.0
        self.effect = None        # the control effect this warp gave its clip, when it fades it
        self.other_controls = []  # AnimControls of the clips the warp shares the Actor with
        self._blended_phase = False   # the phase in progress has shared a frame with other clips
        self._ending = (FINISHED, None)   # what the fade-out ends as

    @property
    def in_phase(self):
        return self.state is _IN_PHASE

    @property
    def fading_out(self):
        return self.state is _FADING_OUT

    @property
    def scale(self):
        return self.actor.getSx()

    @property
    def _start_plan(self):
        """(first frame, phases as played) for the walks and the path; None for a start at 0 with the
        asset's own phases."""
        return (float(self.start_frame), self.phases) if self.start_frame or self.into_skeleton is not None else None

    def _match_start(self):
        """Choose the start frame in the asset's pose_match window nearest the pose now (warp/posematch.py):
        the first phase, if the frame is inside it, then warps its remaining motion from here."""
        driver = self._driver
        if self.asset.clip not in driver.tracks:
            return   # the refusal says so
        joints = feature_joints(self.actor)
        if not joints:
            raise WarpRefused(f"asset {self.asset.clip!r} asks for a pose-matched start, but the skeleton of "
                              f"{self.actor.getName()!r} has no two legs and hips to match")
        found = candidates(self.actor, driver.control(self.asset.clip).getAnim(), self.track,
                           self.asset.pose_match.window, joints)
        frame, self.start_cost = found.best(live_pose(self.actor, joints))
        self.start_frame = int(frame)
        self.phases = self._in_skeleton(started_phases(self.asset, float(self.start_frame)))

    def _in_skeleton(self, phases):
        """`phases` with their alignment offsets turned into the actor's skeleton frame: an actor whose
        skeleton a character file turned aligns the joint it shows, not the file's."""
        turn = self.into_skeleton
        if turn is None:
            return list(phases)
        return [phase if phase.align_offset is None else
                dataclasses.replace(phase, align_offset=tuple(turn.xformPoint(Point3(*phase.align_offset))))
                for phase in phases]

    # -- refusing what cannot work --------------------------------------------------------
    def _refusal(self):
        """Why this warp cannot play (section 4's refusals, docs/design.md 4), or None; a shorter
        fade-out when the clip has less left after its last phase."""
        problem = self._broken()
        if problem:
            return problem
        actor, driver = self.actor, self._driver
        problem = refusal(self.asset, (driver.root_joint, driver.root_mode, driver.tracks), self.targets, self._anchors(),
                          self.base_rate, (actor.getPos(), actor.getQuat()), self.scale, self._settings, self._start_plan)
        if problem:
            return problem
        self.blend_out = min(self.blend_out, self._seconds_left(self.phases[-1].motion.f1))
        return None

    def planned_rates(self):
        """The rate scale each phase would get if the warp started now (see MotionWarper.check)."""
        actor, still = self.actor, self._settings.still_axis_m
        walk = phase_walk(self.asset, self._anchors(), (actor.getPos(), actor.getQuat()), self.scale, self._start_plan)
        return [speed_capped(phase_rate(phase, pos, goal, self.scale, still), phase,
                             PhasePlan(phase, (pos, quat), (goal, goal_quat), self.scale, still), self.track.fps,
                             self.base_rate)
                for phase, _, pos, quat, goal, goal_quat in walk]

    def planned_path(self):
        """[(seconds since the start, root position)] the warp would take if it started now, in the
        actor's parent's space (warp/path.py)."""
        actor = self.actor
        return planned_path(self.asset, self._anchors(), (actor.getPos(), actor.getQuat()), self.scale,
                            self.base_rate, self._settings.still_axis_m, self._start_plan)

    def _anchors(self):
        """Each target resolved to (position, rotation) in the actor's parent's space."""
        parent, render = self.actor.getParent(), self._render
        return [target.resolve(parent, render) for target in self.targets]

    def _seconds_left(self, frame):
        """Seconds the clip plays from `frame` to its end at the base rate (no phase scales it there)."""
        return max(self.track.num_frames - 1 - frame, 0.0) / (self.track.fps * self.base_rate)

    def _broken(self):
        """Why the warp cannot go on (the actor removed or scaled to nothing, a follow node removed), or None."""
        if self.actor.isEmpty():
            return "the actor was removed"
        scale = self.actor.getSx()
        if not (math.isfinite(scale) and scale > 1e-6):
            return f"the actor's scale is {scale:g}; a warp needs a positive scale"
        for name, follow in self._follows:
            if follow.isEmpty():
                return f"the follow node of phase {name!r}'s target was removed"
            if not _invertible(follow.getMat(self._render)):
                return f"the follow node of phase {name!r}'s target is scaled to nothing (its transform cannot be inverted)"
        return None

    def _stalled(self):
        """Why the clip will not reach the phases still to come (the game stopped it or set its
        play rate to 0), or None."""
        if self.phase_index >= len(self.phases):
            return None
        if not self.control.isPlaying():
            return "the warp's clip was stopped before its last phase ended"
        if self.control.getPlayRate() == 0.0:
            return "the warp's clip was set to play at rate 0 before its last phase ended"
        return None

    # -- targets --------------------------------------------------------------------------
    def phase_goal(self, index):
        """(Point3, LQuaternion): where the root must be (in the actor's parent's space) and how it
        must be rotated at the end of phase `index`, read now (a following target moves). A facing
        phase's rotation is foreseen as the refusals foresee it (turning.planned_goal_quat, from
        where the actor is now). A phase that defers its rise ends kept low from its origin once it
        has started (placement.kept_low); before, its goal is the target's."""
        phase, anchor = self.phases[index], self._anchor(index)
        goal, goal_quat = goal_pose(phase, anchor, self.scale)
        if index in self._origins:
            goal = kept_low(phase, self._origins[index], goal, self.scale)
        return goal, planned_goal_quat(phase, anchor[0], self.actor.getPos(), goal, goal_quat) or self.actor.getQuat()

    def _anchor(self, index):
        """Target `index` resolved now to (position, rotation) in the actor's parent's space."""
        return self.targets[index].resolve(self.actor.getParent(), self._render)

    def _plan(self, phase):
        """The phase's PhasePlan: made at its first frame, remade every frame only for a target
        that follows a node (or when the actor's scale changed)."""
        plan, scale = self._phase_plan, self.scale
        if plan is None or plan.scale != scale or self.targets[self.phase_index].follow is not None:
            anchor = self._anchor(self.phase_index)
            plan = self._phase_plan = PhasePlan(phase, self.origin, goal_pose(phase, anchor, scale), scale,
                                                self._settings.still_axis_m, anchor[0])
        return plan

    # -- lifecycle ------------------------------------------------------------------------
    def _set_rate(self, scale):
        self.rate_scale = scale
        self.control.setPlayRate(self.base_rate * scale)

    def _start(self):
        driver = self._driver
        self.control = driver.control(self.asset.clip)
        self.control.setPlayRate(self.base_rate)
        driver.play(self.asset.clip, self.start_frame)
        self.frame = self.control.getFullFframe()
        self._switch_offs = switch_offs(self.phases, self.targets, self._anchors())
        if self.blend_in > 0.0 or self.blend_out > 0.0:
            self.effect = 0.0 if self.blend_in > 0.0 else 1.0
            self._bundle.setControlEffect(self.control, self.effect)
            self.other_controls = [driver.control(clip) for clip in driver.tracks if clip != self.asset.clip]

    def _fade(self, dt):
        """Move the clip's effect one frame along its fade; an effect lowered by someone else cancels."""
        if self.effect is None:
            return
        if self._bundle.getControlEffect(self.control) < self.effect - 1e-6:
            self._end(CANCELLED, reason="another clip took over")
            return
        if self.fading_out:
            self.effect = self.effect - dt / self.blend_out
            self.effect = 0.0 if self.effect < 1e-9 else self.effect
        elif self.effect < 1.0:
            self.effect = self.effect + dt / self.blend_in
            self.effect = 1.0 if self.effect > 1.0 - 1e-9 else self.effect
        self._bundle.setControlEffect(self.control, self.effect)

    def _fade_out(self, seconds, event=FINISHED, reason=None):
        """Stop warping and fade the clip out over `seconds` as plain root motion; `event` follows at 0."""
        self.blend_out, self._ending = seconds, (event, reason)
        if self.fading_out:
            return
        self.state = WarpState.FADING_OUT
        self._set_rate(1.0)
        self._send(BLEND_OUT, [self.asset.clip, seconds])

    def _end(self, event, stop_clip=False, reason=None, keep_rate=False):
        """Restore the play rate (unless `keep_rate`: the game set it) and send `event`;
        `motionwarp-cancelled` also carries `reason`."""
        if keep_rate:
            self.rate_scale = 1.0
        else:
            self._set_rate(1.0)
        if stop_clip:
            self.control.stop()
        self.state = WarpState.ENDED
        self._send(event, [self.asset.clip] + ([reason] if event == CANCELLED else []))

    def _send(self, event, args):
        """Have the owner send `event`, with the actor where this frame's move has it so far."""
        pose = self._announce(self, event, args, self._pose)
        if self._pose is not None:
            self._pose = pose

    def _update(self, others=None, share=1.0):
        """Move on from the actor's pose by the clip's motion since the last frame, phase by phase:
        the pose to write, or None when the warp does not move the actor this frame (it ended, or
        fades out as plain root motion). A listener that ends the warp mid-frame stops the move there.

        `others` is the other clips' root motion this frame and `share` the clip's part of the
        pose (section 4 of docs/design.md: a blended frame)."""
        problem = self._broken()
        if problem:
            self._end(CANCELLED, reason=problem)
            return None
        if self.state is _FADING_OUT:
            if self.effect <= 0.0:
                self._end(self._ending[0], stop_clip=True, reason=self._ending[1])
            return None
        if self.effect is None and self._bundle.getControlEffect(self.control) <= 0.0:
            self._end(CANCELLED, reason="another clip took over")
            return None
        switched_off = self._switched_off()
        if switched_off:
            self._switch_off(switched_off)
            return None
        cur = self.control.getFullFframe()
        if cur < self.frame - 1e-6:
            if self._clock_went_back():   # the clip replays from its start on its own: stop it where it is
                self._end(CANCELLED, stop_clip=True, reason="the clock went back (ClockObject.reset()) mid-warp")
            else:
                self._end(CANCELLED, reason="the clip was restarted")
            return None
        cur = at_boundary(cur, self._next_boundary())
        self._pose = (self.actor.getPos(), self.actor.getQuat())
        blend = _UNSHARED if others is None or share >= 1.0 else _FrameBlend(others, share, self.frame, cur)
        phases = self.phases
        while self.state is not _ENDED:
            if self.state is _IN_PHASE:
                phase = phases[self.phase_index]
                if cur < phase.motion.f1:
                    self._advance(phase, cur, blend)
                    break
                self._advance(phase, phase.motion.f1, blend)
                self._finish_phase(phase)
                continue
            next_start = self._next_boundary()
            stop = min(cur, next_start)
            motion = blend.mix(self.track.between(self.frame, stop), self.frame, stop)
            self._pose = moved_by(self._pose, motion, self.actor.getScale())
            self.frame = stop
            if cur < next_start:
                break
            self._start_phase(phases[self.phase_index], blend)
        self.frame = cur
        stalled = self._stalled() if self.state is not _ENDED else None
        if stalled:
            self._end(CANCELLED, reason=stalled, keep_rate=True)
        elif self.phase_index >= len(phases) and self.state is not _ENDED:
            if self.blend_out > 0.0 and self.effect is not None:
                if self._seconds_left(cur) <= self.blend_out + 1e-9:
                    self._fade_out(self.blend_out)
            elif not self.control.isPlaying():
                self._end(FINISHED)
        pose, self._pose = self._pose, None
        return pose

    def _next_boundary(self):
        """The clip frame where the warp's state changes next: the phase's end, the next phase's start
        (inf after the last)."""
        phases, index = self.phases, self.phase_index
        if self.state is _IN_PHASE:
            return phases[index].motion.f1
        return phases[index].motion.f0 if index < len(phases) else math.inf

    def _clock_went_back(self):
        """The frame time is before the last frame's (a ClockObject.reset()): every clip's time went
        back with it, not because the game restarted one."""
        last = self._driver._prev_time
        return last is not None and self.warper._clock.getFrameTime() < last

    def _switched_off(self):
        """Why a phase not yet finished switches the warp off (its followed target moved or turned
        past its limit since the start), or None."""
        for rule in self._switch_offs:
            if rule.index >= self.phase_index:
                reason = rule.reason(self._anchor(rule.index))
                if reason:
                    return reason
        return None

    def _switch_off(self, reason):
        """End the warp as cancel() does: a fading warp fades out, otherwise the clip stops now."""
        self.switched_off = reason
        if self.effect is not None and self.blend_out > 0.0:
            self._fade_out(self.blend_out, CANCELLED, reason)
        else:
            self._end(CANCELLED, stop_clip=True, reason=reason)

    def _start_phase(self, phase, blend):
        self.state = WarpState.IN_PHASE
        self._blended_phase = blend.shared
        self.origin = self._origins[self.phase_index] = self._pose
        self._phase_plan = None
        self._turn = PhaseTurn(phase, self.origin[1])
        plan, still = self._plan(phase), self._settings.still_axis_m
        self._set_rate(speed_capped(rate_scale(phase, plan, still), phase, plan, self.track.fps, self.base_rate))
        self._plain = PlainPhase.of(self.warper, _IN_PHASE, plan, phase, self.control, self.asset.clip,
                                    self.effect is not None, self._follows)
        self._send(PHASE_START, [phase.name, self.phase_index])

    def _finish_phase(self, phase):
        self.frame = phase.motion.f1
        plan = self._plan(phase)
        pos, quat = self._pose
        goal_quat = self._turn.goal(plan, pos)
        self.results.append(PhaseResult(phase.name, Point3(self.origin[0]), Point3(plan.goal), Quat(goal_quat),
                                        Point3(pos), Quat(quat), self.rate_scale, self.start_frame))
        self.state = WarpState.BETWEEN
        self.phase_index += 1
        following = self.phases[self.phase_index].motion.f0 if self.phase_index < len(self.phases) else None
        self._plain = PlainStretch.of(self.warper, _BETWEEN, plan, self.track, self.control, self.asset.clip,
                                      following, self.effect is not None, self._follows)
        self._set_rate(1.0)
        self._send(PHASE_END, [phase.name, self.phase_index - 1])

    def _advance(self, phase, frame, blend):
        """Move through the phase to `frame`: the contract's placement, or a blended step when the
        phase shares frames with other clips."""
        self._blended_phase = self._blended_phase or blend.shared
        plan = self._plan(phase)
        seconds = (frame - self.frame) / (self.track.fps * self.base_rate * self.rate_scale)
        if self._blended_phase:
            self._pose = place_blended(plan, phase, self.track, self._pose, self.frame, frame,
                                       blend.take(self.frame, frame), blend.share, self._turn, seconds)
        else:
            self._pose = place(plan, phase, self.track, frame, self._turn, seconds)
        self.frame = frame


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


#: The frame blend of a frame no other clip shares (the common case: made once).
_UNSHARED = _FrameBlend(None, 1.0, 0.0, 0.0)
