"""Whether a warp can play, decided before it starts (docs/design.md 4, refusals), as a pure function.

`refusal` walks the clip's motion from where the character stands through each phase and
says why the plan cannot work, or None; `refusal_cause` says it as a `Cause` (the numbers as
fields, for providers and prompts). It reads no NodePath: the caller resolves the targets into
the actor's parent's space first. What depends only on the clip (each phase's lead-in motion
and turn) is kept per root-motion track, which never changes once loaded.
"""
from typing import NamedTuple, Optional
import math
import numbers
import weakref

from panda3d.core import LQuaternion, Point3, Vec3

from ..base import edits
from ..base.errors import shown
from ..base.records import frozen_record
from .placement import goal_pose, kept_low, lowered, warp_offset
from .turning import planned_goal_quat
from .warpmath import angle_between, heading_quat

#: Largest base play rate `play(rate=)` accepts (times the phase's max_rate, still a finite clip time).
MAX_BASE_RATE = 100.0

#: RootMotionTrack -> {(previous phase end, f0, f1): _Window}; a track dies with its asset.
_WINDOWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _Window:
    """A phase's clip facts for the walk, unscaled: the lead-in move from the previous phase's end
    (or frame 0) to f0 and its turn, and the phase's own move A(f1) and turn."""

    __slots__ = ("lead", "lead_quat", "end", "turn_quat")

    def __init__(self, track, previous_end, motion):
        lead = track.between(previous_end, motion.f0)
        self.lead, self.lead_quat = Vec3(*lead.pos), heading_quat(lead.h)
        self.end, self.turn_quat = Vec3(*motion.end_displacement), heading_quat(motion.turn)


@frozen_record
class Cause:
    """One reason something cannot be done, as data (design 7, "Refusals are data"): `reason` what is
    wrong ("too high", "landing blocked by wall"), `verb` the kind it refuses in words ("vault"; None
    when the sentence names none), the measured `value` against the `limit` it passes, in `unit`
    ("m", "°", "" for a ratio), `name` the value's key in a Refusal's numbers ("height", "stretch"),
    and `detail` what the bracket says when it is not value against limit ("more than 2.00 m").
    `text` is the sentence a player reads, made from these; nothing parses it back."""

    reason: str
    verb: Optional[str] = None
    value: Optional[float] = None
    limit: Optional[float] = None
    unit: str = "m"
    name: Optional[str] = None
    detail: Optional[str] = None
    #: Walking closer may lift it: the thing is farther than the kind reaches, or the clip stretches.
    too_far: bool = False
    #: The kinds, in words, a provider that met nothing looked for ("nothing to vault or mantle in front").
    looked_for: tuple = ()

    @property
    def bracket(self):
        """What the sentence says in brackets: `detail`, else "value > limit" (or <) in the unit."""
        if self.detail is not None:
            return self.detail
        if self.value is None:
            return None
        value = _quantity(self.value, self.unit)
        if self.limit is None:
            return value
        limit = _quantity(self.limit, self.unit)
        if value == limit:   # "0.50 m < 0.50 m" says nothing: the value a digit finer ("0.496 m < 0.50 m")
            value = _quantity(self.value, self.unit, finer=1)
        return f"{value} {'>' if self.value > self.limit else '<'} {limit}"

    @property
    def text(self):
        """"too high to vault (2.40 m > 1.50 m)": the reason, the verb and the bracket."""
        verb = f" to {self.verb}" if self.verb else ""
        bracket = self.bracket
        return f"{self.reason}{verb} ({bracket})" if bracket is not None else f"{self.reason}{verb}"


def _quantity(value, unit, finer=0):
    """A number as refusals say it: metres to the centimetre, degrees whole, ratios to 2 decimals (`finer`
    digits more)."""
    if unit == "m":
        return f"{value:.{2 + finer}f} m"
    if unit == "°":
        return f"{value:.{finer}f}°"
    return f"{value:.{2 + finer}f}{unit}"


def _window(windows, track, previous_end, motion):
    """The _Window of a phase with root motion `motion` (a PhaseMotion of `track`), made once
    and kept in `windows` (the track's entry of _WINDOWS)."""
    key = (previous_end, motion.f0, motion.f1)
    window = windows.get(key)
    if window is None:
        window = windows[key] = _Window(track, previous_end, motion)
    return window


def refusal(asset, driven, targets, anchors, rate, pose, scale, settings, start=None):
    """Why `asset` cannot play toward `targets` at base `rate` (a sentence), or None.

    `driven` is the warper's (root joint, root mode, clip names); `anchors` each target
    resolved to (position, rotation) in the actor's parent's space; `pose` (position,
    rotation) and `scale` the actor's now; `settings` a MotionWarpSettings; `start` a
    pose-matched start's (frame, phases as played), None: frame 0 and the asset's phases.
    """
    cause = refusal_cause(asset, driven, targets, anchors, rate, pose, scale, settings, start)
    return None if cause is None else cause.text


def refusal_cause(asset, driven, targets, anchors, rate, pose, scale, settings, start=None):
    """`refusal` as a Cause (its numbers as fields: `stretch`, `behind_m`, `turn_deg`), or None."""
    return Check(asset, driven, targets, anchors, rate, start).cause(pose, scale, settings)


class Check:
    """`refusal_cause` of one plan (an asset toward targets resolved to `anchors`, at a base rate) from
    any pose, for a provider asking every frame about the same targets (design 7, "Kept
    measurements"): what does not depend on the pose (the driven joint and clip, the targets' count
    and finiteness, the rate) is decided once; each phase's window and goal (`phase_legs`) are kept
    while the scale and the edit count are the same; what walking the first phase reads of the pose's
    rotation alone (`_FirstLeg`) is kept while that rotation, the legs and the settings object are the
    same (a character walking along one heading); and when the first phase ends on its goal whatever
    the pose (all three axes warped, the target's rotation), the later phases start from there, so
    their verdict is kept while the scale, the settings' values, that goal and the phases' fields are
    the same."""

    __slots__ = ("asset", "anchors", "start", "fixed", "_legs", "_first", "_later")

    def __init__(self, asset, driven, targets, anchors, rate, start=None):
        self.asset, self.anchors, self.start = asset, anchors, start
        fixed = _fixed(asset, driven, targets, rate)
        #: The Cause no pose lifts, or None.
        self.fixed = Cause(fixed) if isinstance(fixed, str) else fixed
        self._legs = None    # _Kept: the phase_legs at a scale and edit count
        self._first = None   # _FirstLeg: the first leg's walk from the rotation asked last
        self._later = None   # _Kept: the later phases' verdict, with the settings and what they read

    def cause(self, pose, scale, settings):
        """Why the plan cannot play from `pose` (position, rotation) at `scale` under `settings` (a
        MotionWarpSettings), as a Cause; or None."""
        if self.fixed is not None:
            return self.fixed
        read, legs = (scale, edits.count), self._legs
        if legs is None or legs.read != read:
            legs = self._legs = _Kept(None, read, phase_legs(self.asset, self.anchors, scale, self.start))
        if not legs.value:
            return None
        pos, quat = pose
        first = self._first
        if first is None or first.legs is not legs or first.settings is not settings or first.quat != quat:
            first = self._first = _FirstLeg(legs, quat, scale, settings)
        step = first.step(pos, scale)
        cause = first.refusal(step)
        if cause is None:
            cause = (self._later_verdict(legs, step, scale, settings) if first.ends_on_its_goal
                     else _walked(_walk_legs(legs.value[1:], _ended(step, scale), scale), scale, settings))
        return Cause(cause) if isinstance(cause, str) else cause

    def _later_verdict(self, legs, step, scale, settings):
        """The verdict of the phases after the first (walked on from `step`, the first's), kept while what they
        read holds: the scale, the settings object, the first phase's goal, and the edit count (base/edits.py:
        the settings' and every phase's fields, the asset's phase list; a phase edited in place is seen at
        once). The goal is compared by value (Panda3D's == is exact) against a copy kept with the verdict."""
        goal, goal_quat = step[4], step[5]
        later = self._later
        if (later is None or later.settings is not settings
                or later.read != (scale, edits.count, goal, goal_quat)):
            verdict = _walked(_walk_legs(legs.value[1:], _ended(step, scale), scale), scale, settings)
            later = self._later = _Kept(settings, (scale, edits.count, Point3(goal), LQuaternion(goal_quat)), verdict)
        return later.value


class _FirstLeg:
    """The first of a Check's legs (`legs`, a _Kept of phase_legs) walked from any position with the rotation
    `quat` at `scale` under `settings`: what no position changes (the lead-in turned by `quat`, the rotation
    the phase starts with, the clip's own ground move turned by it, whether the phase ends on its goal, the
    turn's verdict for the last goal rotation asked) worked out once by the very operations `_walk_legs`
    and `_reach` make, so each step and verdict is theirs to the bit."""

    __slots__ = ("legs", "quat", "settings", "leg", "lead", "start_quat", "ground", "ends_on_its_goal",
                 "inverse", "clip_rise", "_turned_to", "_turn")

    def __init__(self, legs, quat, scale, settings):
        leg = self.leg = legs.value[0]
        phase = leg.phase
        self.legs, self.quat, self.settings = legs, LQuaternion(quat), settings   # a copy: the caller's may change
        self.lead, self.start_quat = _lead_in(leg.window, quat, scale)
        self.ground = _ground_move(leg.window, self.start_quat, scale)
        self.ends_on_its_goal = _ends_on_its_goal(phase)
        # what kept_low reads of a phase that defers its rise (None: its goal is the leg's)
        self.inverse, self.clip_rise = ((self.start_quat.conjugate(), phase.motion.end_displacement[2] * scale)
                                        if phase.defer_rise else (None, None))
        self._turned_to, self._turn = None, None

    def step(self, pos, scale):
        """`_walk_legs`'s first step from `pos` (with this rotation): `_leg_step`'s, its goal kept low from
        what is kept here."""
        leg, quat = self.leg, self.start_quat
        pos = pos + self.lead
        return _leg_step(leg, pos, quat, leg.goal if self.inverse is None
                         else lowered(leg.goal, pos, quat, self.inverse, self.clip_rise))

    def refusal(self, step):
        """`_walked` of the first step alone: a sentence or a Cause, else None."""
        phase, _, pos, _, goal, goal_quat = step
        return _endless(phase, goal) or _ground_reach(phase, self.ground, pos, goal, self.settings) or self._turned(goal_quat)

    def _turned(self, goal_quat):
        """`_turn_reach` toward `goal_quat`, kept for the same object (the target's rotation: every step's)."""
        if goal_quat is not self._turned_to:
            self._turned_to = goal_quat
            self._turn = _turn_reach(self.leg.phase, self.leg.window, self.start_quat, goal_quat, self.settings)
        return self._turn


@frozen_record(eq=False)
class _Kept:
    """A value a Check keeps, with what it was made from: the `settings` object (None when it reads none)
    and the values it `read` (compared by equality)."""

    settings: object
    read: tuple
    value: object


def _ends_on_its_goal(phase):
    """Whether a phase ends on its goal position and rotation whatever the pose it starts from (`_phase_end`)."""
    return phase.warp_translation and len(phase.axes) == 3 and phase.warp_rotation and phase.rotation == "target"


def _fixed(asset, driven, targets, rate):
    """What refuses the warp whatever the pose: a sentence, or None."""
    root_joint, root_mode, clips = driven
    phases = asset.phases
    if (asset.root_joint, asset.root_mode) != (root_joint, root_mode):
        return (f"asset {asset.clip!r} is rooted at joint {asset.root_joint!r} ({asset.root_mode} mode); "
                f"this warper drives {root_joint!r} ({root_mode} mode)")
    if asset.clip not in clips:
        return f"the actor has no clip {asset.clip!r}; its driven clips: {', '.join(sorted(clips)) or 'none'}"
    if len(targets) != len(phases):
        return (f"asset {asset.clip!r} has {len(phases)} phases ({', '.join(p.name for p in phases)}) "
                f"but {len(targets)} targets were given")
    for phase, target in zip(phases, targets):
        if not target.is_finite():
            return f"target of phase {phase.name!r} is not finite (or beyond float32, about 3.4e38): {target}"
    if not ((type(rate) is float or isinstance(rate, numbers.Real)) and 0 < rate <= MAX_BASE_RATE):
        return f"play rate must be a number above 0 and at most {MAX_BASE_RATE:g}, got {shown(rate)}"
    return None


def _walked(steps, scale, settings):
    """What refuses the warp along `steps` (phase_walk's): a sentence where no number needs to be data,
    a Cause where one does; else None."""
    for phase, window, pos, quat, goal, goal_quat in steps:
        problem = _endless(phase, goal) or _reach(phase, window, pos, quat, goal, goal_quat, scale, settings)
        if problem:
            return problem
    return None


def _endless(phase, goal):
    """The sentence of a phase that would end at a non-finite point, else None."""
    if math.isfinite(goal[0] + goal[1] + goal[2]):   # a sum of float32 values cannot overflow
        return None
    return (f"phase {phase.name!r} would end at a non-finite point "
            f"(its t_offset is {', '.join(f'{v:g}' for v in phase.t_offset)})")


@frozen_record(eq=False)
class _Leg:
    """What walking one phase reads that no pose changes: the phase, its _Window, its target's point
    (what a facing phase faces), and the goal and goal rotation for that target (`goal_pose`, before
    a deferred rise keeps the goal low)."""

    phase: object
    window: _Window
    point: object
    goal: object
    goal_quat: object


def phase_legs(asset, anchors, scale, start=None):
    """[_Leg] of each phase toward its target resolved in `anchors`, at `scale`; `start` as for `phase_walk`."""
    frame, phases = (0.0, asset.phases) if start is None else start
    windows = _WINDOWS.get(asset.track)
    if windows is None:
        windows = _WINDOWS[asset.track] = {}
    legs = []
    for phase, anchor in zip(phases, anchors):
        goal, goal_quat = goal_pose(phase, anchor, scale)
        legs.append(_Leg(phase, _window(windows, asset.track, frame, phase.motion), anchor[0], goal, goal_quat))
        frame = phase.motion.f1
    return legs


def phase_walk(asset, anchors, pose, scale, start=None):
    """Per phase, where the character starts and must end it if the warp played now from `pose`:
    (phase, its _Window, start pos, start quat, goal, goal quat). A phase starts where the previous
    one ended (or at `pose`) moved by the clip's own motion up to its first frame; it ends on its
    goal (kept low by a deferred rise) on the axes it warps and where the clip takes it on the others. `start` is a pose-matched
    start's (first clip frame, phases as played: the first one from that frame when it is inside)."""
    return _walk_legs(phase_legs(asset, anchors, scale, start), pose, scale)


def _walk_legs(legs, pose, scale):
    """`phase_walk` along `legs` (`phase_legs`, which a Check keeps: their goals are shared, read only)."""
    pos, quat = pose
    for leg in legs:
        lead, quat = _lead_in(leg.window, quat, scale)
        pos = pos + lead
        step = _leg_step(leg, pos, quat, kept_low(leg.phase, (pos, quat), leg.goal, scale))
        yield step
        pos, quat = _ended(step, scale)


def _lead_in(window, quat, scale):
    """(the clip's move up to the phase's first frame turned by `quat`, the rotation the phase starts with)
    for a phase whose lead-in starts with the rotation `quat`."""
    return quat.xform(window.lead * scale if scale != 1.0 else window.lead), window.lead_quat * quat


def _leg_step(leg, pos, quat, goal):
    """`phase_walk`'s step of a leg started at (pos, quat) toward `goal` (the leg's, kept low by a deferred
    rise), with the goal rotation it is foreseen to end with (the start's when it keeps its rotation)."""
    phase = leg.phase
    return phase, leg.window, pos, quat, goal, planned_goal_quat(phase, leg.point, pos, goal, leg.goal_quat) or quat


def _ended(step, scale):
    """The pose a phase walked as `step` ends in: the next phase's lead-in starts there."""
    phase, window, pos, quat, goal, goal_quat = step
    return _phase_end(phase, window, pos, quat, goal, scale), goal_quat if phase.warp_rotation else window.turn_quat * quat


def _phase_end(phase, window, pos, quat, goal, scale):
    """Where a phase started at (pos, quat) ends: on `goal` along the axes it warps (in its start
    frame), moved by the clip's own A(f1) along the others."""
    if phase.warp_translation and len(phase.axes) == 3:
        return goal
    offset = warp_offset(phase, quat.conjugate().xform(goal - pos), scale)
    return pos + quat.xform(window.end * scale + Vec3(*offset))


class _GroundMove(NamedTuple):
    """The clip's own move over a phase turned by the rotation it starts with, scaled: over the ground (x,
    y) and its `length`."""

    x: float
    y: float
    length: float


def _ground_move(window, quat, scale):
    """The _GroundMove of a phase (its _Window) started with the rotation `quat`, at `scale`."""
    flat_clip = quat.xform(window.end)
    clip_x, clip_y = flat_clip[0] * scale, flat_clip[1] * scale
    return _GroundMove(clip_x, clip_y, math.hypot(clip_x, clip_y))


def _reach(phase, window, pos, quat, goal, goal_quat, scale, settings):
    """Why the phase cannot reach its goal from (pos, quat): a target behind a forward clip, a
    ground distance too far from the clip's, or too big a turn; else None.

    Height is not limited here: providers pick the clip whose authored height fits.
    """
    return (_ground_reach(phase, _ground_move(window, quat, scale), pos, goal, settings)
            or _turn_reach(phase, window, quat, goal_quat, settings))


def _ground_reach(phase, clip, pos, goal, settings):
    """`_reach`'s verdict over the ground: the goal behind the clip's move `clip` (a _GroundMove) or a
    stretch of it out of range, from `pos`; else None."""
    need_x, need_y = goal[0] - pos[0], goal[1] - pos[1]
    clip_len, need_len = clip.length, math.hypot(need_x, need_y)
    if phase.warp_translation and clip_len > settings.still_axis_m:
        ahead = (clip.x * need_x + clip.y * need_y) / clip_len
        behind = max(settings.still_axis_m, settings.max_behind_m)
        if ahead < -behind:
            return Cause(f"target of phase {phase.name!r} is behind the character", value=-ahead, limit=behind,
                         name="behind_m", detail=f"{-ahead:.2f} m back; the clip moves forward")
        ratio = need_len / clip_len
        if ratio > settings.max_stretch or ratio < settings.min_stretch:
            limit = settings.max_stretch if ratio > settings.max_stretch else settings.min_stretch
            return Cause(f"phase {phase.name!r} needs {need_len:.2f} m over the ground where the clip moves "
                         f"{clip_len:.2f} m", value=ratio, limit=limit, unit="", name="stretch",
                         detail=f"ratio {ratio:.2f}, allowed {settings.min_stretch:g} to {settings.max_stretch:g}",
                         too_far=ratio > settings.max_stretch)
    return None


def _turn_reach(phase, window, quat, goal_quat, settings):
    """`_reach`'s verdict on the turn of a phase started with the rotation `quat` toward `goal_quat`: too big
    a turn from where the clip's own turn ends it; else None."""
    if phase.warp_rotation:
        clip_end = window.turn_quat * quat
        # |q0 . q1| = cos(angle / 2): cheaper than the angle, which only a refusal needs to say.
        if abs(clip_end.dot(goal_quat)) < math.cos(math.radians(settings.max_turn_deg) / 2.0):
            turn = angle_between(clip_end, goal_quat)
            if turn > settings.max_turn_deg:
                return Cause(f"phase {phase.name!r} needs a {turn:.0f} degree turn", value=turn,
                             limit=settings.max_turn_deg, unit="°", name="turn_deg",
                             detail=f"allowed {settings.max_turn_deg:g}")
    return None
