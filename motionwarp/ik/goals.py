"""Where each hand and foot must be this frame, and how far the pelvis moves: the contact IK's goal step.

Root-only warping moves the whole body: on a crate lower than authored the feet sink into the
ground, on a deeper one a planted hand slides. From the clip time and the warp asset's contacts
(motionwarp.warp.contacts), the goal step finds where each touching joint must be (the phase's
target, or the surface a ray finds under it) and returns {end joint: (correction, weight)}: move
the joint `correction * weight` (world) from its animated place. It reads the scene only through
a `world` (ik.SceneView: animated joints, surface hits, phase target points) and writes nothing
but its own memory of planted feet and corrections easing out.
"""
import bisect
import math
from typing import NamedTuple

from panda3d.core import LMatrix4f, Vec3

from ..warp.phasemotion import FRAME_TIE
from .twobone import reach_limit

#: Feet whose ground correction is below this (metres) are left as animated (flat ground costs nothing).
_GROUND_EPSILON = 1e-3
#: Metres per second of clip time: the most a contact's correction moves a joint while letting go
#: (smoothstep's steepest slope is 1.5 per blend time).
EASE_SPEED = 3.0
#: Metres per second: the fastest the pelvis moves away from its animated place.
PELVIS_SPEED = 2.0
#: Degrees: the most the pelvis rolls (about the level axis across its hips) so that, standing on
#: two heights (a ridge and a furrow), the lower foot's hip goes down and the hips drop less.
PELVIS_ROLL = 15.0
#: Degrees per second: the fastest the pelvis rolls away from its animated tilt.
ROLL_SPEED = 90.0
#: Metres: the character stands (its feet are kept on the ground) when there is ground this close
#: above or below its origin; otherwise it is in the air and its feet keep the clip's pose.
_STANDING = 0.1
#: The name the ground under the character's origin is kept by (world.drop), apart from every foot's.
_ORIGIN = ("the character's origin",)


class CycleTime(NamedTuple):
    """Outside warps, the locomotion cycle that makes most of the pose this frame: its `steps`
    ([(foot, sole, start s, end s)]: when each foot is planted) and the time into the cycle."""
    steps: tuple
    seconds: float


class ClipTime(NamedTuple):
    """The warp whose contacts apply, this frame: its asset's `contacts`, the clip time in
    `seconds` (a window's edge when a frame lands on it: `on_edge`), and its `share` of the pose
    (what its contacts count as)."""
    contacts: tuple
    seconds: float
    share: float


def window_edges(contacts):
    """The sorted clip seconds at which `contacts`' windows start or end (for `on_edge`)."""
    return tuple(sorted({edge for contact in contacts for edge in (contact.start, contact.end)}))


def on_edge(seconds, edges, fps):
    """`seconds`, or the window edge of `edges` (window_edges) within FRAME_TIE clip frames of it on either
    side: a frame landing exactly on a contact's start or end is inside the window (it is inclusive),
    whatever a hair the clock's absolute time rounded the clip time to (design 4, `FRAME_TIE`)."""
    tie = FRAME_TIE / fps
    index = bisect.bisect_left(edges, seconds - tie)
    return edges[index] if index < len(edges) and edges[index] <= seconds + tie else seconds


class ContactGoals:
    """The goal step, with what it remembers between frames. `settings`: ContactIKSettings (read
    every frame); `feet`: the foot joints kept on the ground outside warps when that is on."""

    def __init__(self, settings, feet):
        self.settings, self.feet = settings, feet
        self._held = {}           # joint -> [correction, weight]: what eases out when a contact ends early
        self._locks = {}          # contact index -> world point where a planted foot stays (None: no surface)
        self._lifts = {}          # contact index -> its last correction inside the window (eases out after)
        self._inside = {}         # joint -> index of its contact whose window holds this frame
        self._ground = {}         # foot -> smoothed height correction (metres) outside warps
        self._steps = {}          # foot -> [world point its sole stays at, or None, horizontal correction]

    def restart(self):
        """A new warp's contacts apply: forget the last one's planted feet and corrections."""
        self._locks, self._lifts = {}, {}

    def resting(self, clip):
        """Would `step` return nothing and change nothing this frame? No contact of `clip` (a
        ClipTime or None) weighs anything, none has a planted point or correction remembered,
        nothing eases out, and no foot is kept on the ground: the caller reads no joint."""
        if self._held or (self.settings.ik_feet_on_ground and clip is None):
            return False
        if clip is None:   # planted points and corrections remembered apply only with a clip
            return True
        if self._locks or self._lifts:
            return False
        blend = self.settings.ik_blend_time
        return not any(contact.start - blend < clip.seconds and contact.weight(clip.seconds, blend) * clip.share > 0.0
                       for contact in clip.contacts)

    def step(self, dt, clip, world, cycle=None):
        """{end joint: (correction, weight)} this frame; `clip`: a ClipTime, or None outside warps;
        `cycle`: outside warps, the CycleTime of the locomotion cycle playing (None: none).
        Empty when nothing is in contact."""
        if clip is None and not self._held:   # outside warps with nothing easing out: only the ground
            self._inside, goals = {}, {}
        else:
            goals = self._contact_goals(clip, world)
            self._ease_out(goals, dt)
        if self.settings.ik_feet_on_ground and clip is None:
            self._ground_goals(goals, dt, world, cycle)
        return goals

    def _ease_out(self, goals, dt):
        """Add to `goals` the corrections easing out of contacts that ended early (held over the
        blend time), and hold this frame's goals for when theirs end."""
        blend = self.settings.ik_blend_time
        for joint, held in list(self._held.items()):
            if joint in goals:
                continue
            held[1] = held[1] - dt / blend if blend > 0 else 0.0
            if held[1] <= 0.0:
                del self._held[joint]
            else:
                goals[joint] = tuple(held)
        for joint, goal in goals.items():
            self._held[joint] = list(goal)

    def reached(self, joint, correction):
        """Remember the correction the limb really achieved (an out-of-reach target is not), so
        easing out starts from where the joint is and spreads over the whole blend time."""
        if joint in self._held:
            self._held[joint][0] = correction
        index = self._inside.get(joint)
        if index is not None:
            self._lifts[index] = correction

    def replant(self, joint, shift):
        """`joint`'s goal slid `shift` (world) to stay within reach: the planted foot stays where
        it slid to (re-planted there) instead of being pulled back to where it touched down."""
        index = self._inside.get(joint)
        if self._locks.get(index) is not None:
            self._locks[index] = self._locks[index] + shift

    def _contact_goals(self, clip, world):
        self._inside = {}
        if clip is None:
            return {}
        seconds, blend = clip.seconds, self.settings.ik_blend_time
        sums = {}  # joint -> [sum of weight * correction, sum of weights]: overlapping eases add up
        for index, contact in enumerate(clip.contacts):
            if seconds <= contact.start - blend:   # not easing in yet
                continue
            lift = self._lifts.get(index) if seconds > contact.end else None
            # a large correction lets go over longer, so the joint moves at most EASE_SPEED faster than animated
            ease_out = blend if lift is None else max(blend, 1.5 * lift.length() / EASE_SPEED)
            weight = contact.weight(seconds, blend, ease_out) * clip.share
            if weight <= 0.0:
                self._locks.pop(index, None)
                self._lifts.pop(index, None)
                continue
            correction = lift if lift is not None else self._correction(index, contact, seconds, world)
            if correction is None:
                continue
            total = sums.setdefault(contact.joint, [Vec3(0, 0, 0), 0.0])
            total[0] += correction * weight
            total[1] += weight
            if contact.start <= seconds <= contact.end:
                self._inside[contact.joint] = index
        return {joint: (total / weight, min(1.0, weight)) for joint, (total, weight) in sums.items()}

    def _correction(self, index, contact, seconds, world):
        """How far `contact`'s joint is from where it must be (world), or None when no surface is under it.

        Inside the window the correction is remembered: after the window the joint leaves with
        its animation (a foot lifting off) while that last correction eases out.
        """
        animated = world.animated(contact.joint)
        if contact.touches == "target":
            point, touchdown = world.target_points(index, contact)
            if seconds < contact.start:  # easing in: shift the joint's path by the error it would land with
                return point - touchdown
        else:
            if not world.has_surfaces:
                return None
            if seconds >= contact.start:  # planted: the foot stays on what it touched down on
                if index not in self._locks:
                    self._locks[index] = world.surface_point(contact, animated)
                point = self._locks[index]
                if point is None:
                    return None
            else:  # easing in: look under where the clip will put it down; shift the joint's path by
                where = world.ahead(contact, seconds)    # the error it would land with
                point = world.surface_point(contact, where)
                return None if point is None else point - where
        correction = point - animated
        if seconds >= contact.start:
            self._lifts[index] = correction
        return correction

    def _ground_goals(self, goals, dt, world, cycle=None):
        """Outside warps, while standing: each foot at its animated height above what is under
        it, not above the character's own ground (slopes, steps); corrections ease in over the
        blend time, and out while the character is in the air. While a locomotion `cycle` plants a
        foot, its sole stays where it touched down (`_step_shift`)."""
        if not world.has_surfaces:
            return
        settings, kept, drop = self.settings, self._ground, world.drop
        origin = world.origin()
        ground = origin.z
        blend = settings.ik_blend_time
        ease = min(1.0, dt / blend) if blend > 0 else 1.0
        under = drop(_ORIGIN, origin.x, origin.y, ground + _STANDING, ground - _STANDING)
        top, bottom, flat = ground + settings.ik_ray_above, ground - settings.ik_ray_below, True
        # airborne (nothing under the origin): no foot read, each as animated
        points = world.animated_points(self.feet) if under is not None else [None] * len(self.feet)
        for foot, animated in zip(self.feet, points):
            wanted = 0.0  # airborne or nothing under the foot: as animated
            if animated is not None:
                hit = drop(foot, animated.x, animated.y, top, bottom)
                if hit is not None:
                    wanted = hit - ground
            was = kept.get(foot, 0.0)
            height = kept[foot] = was + (wanted - was) * ease
            flat = flat and -_GROUND_EPSILON < height < _GROUND_EPSILON and foot not in goals
        shifts = self._step_shifts(dt, world, cycle if under is not None else None) if cycle or self._steps else {}
        if flat and not shifts:
            return
        for foot in self.feet:
            correction = Vec3(0, 0, self._ground[foot]) + shifts.get(foot, Vec3(0, 0, 0))
            if foot in goals:  # a contact still easing out: from its correction toward the ground's
                held, weight = goals[foot]
                correction = correction + (held * weight - correction) * weight
            goals[foot] = (correction, 1.0)


    def stepping(self, foot):
        """Is `foot` held (or being let go) where a locomotion cycle planted it?"""
        return foot in self._steps

    def _step_shifts(self, dt, world, cycle):
        """{foot: horizontal correction (world)} keeping each planted sole of `cycle` where it
        touched down: the sole's world point at the first frame of its window, the correction the
        way back to it from where the animation puts the sole. After the window (or without a
        cycle: in the air, a warp) the correction eases out linearly over the blend time."""
        planted = {foot: sole for foot, sole, start, end in (cycle.steps if cycle is not None else ())
                   if start <= cycle.seconds <= end}
        blend = self.settings.ik_blend_time
        shifts = {}
        for foot in self.feet:
            step = self._steps.get(foot)
            if foot in planted:
                sole = world.animated(planted[foot])
                if step is None or step.lock is None:
                    step = self._steps[foot] = _Step(Vec3(sole.x, sole.y, 0.0))
                step.shift = Vec3(step.lock.x - sole.x, step.lock.y - sole.y, 0.0)
            elif step is not None:
                if step.lock is not None:   # lifted: the correction it had eases out from here
                    step.lock, step.lifted, step.left = None, Vec3(step.shift), 1.0
                step.left -= dt / blend if blend > 0 else 1.0
                if step.left <= 0.0:
                    del self._steps[foot]
                    continue
                step.shift = step.lifted * step.left
            else:
                continue
            shifts[foot] = Vec3(step.shift)
        return shifts


class _Step:
    """A locomotion cycle's planted foot: where its sole stays (`lock`, None once lifted), its
    horizontal correction now, and once lifted the correction it lifted with and the share left."""

    def __init__(self, lock):
        self.lock, self.shift, self.lifted, self.left = lock, Vec3(0, 0, 0), None, 1.0


class PelvisRise:
    """How far (world metres, up) the pelvis is moved, eased toward what the feet and hands want,
    and how far it rolls (`roll` degrees about the world `axis` through the pelvis, a level axis
    across the hips, `turn` the world matrix of it; 0, None and None when it does not). `feet`:
    the foot joints whose legs hang from the pelvis (empty when it has none)."""

    def __init__(self, feet):
        self.feet = feet
        self.rise, self.roll, self.axis, self.turn = 0.0, 0.0, None, None

    def step(self, goals, arms, dt, blend, legs=None, pivot=None):
        """This frame's rise (0 when negligible; the roll is `self.roll`), for `goals`
        (ContactGoals.step); `arms`: {hand joint with a goal, hanging from the pelvis: (shoulder,
        elbow, hand) animated world points};
        `legs`: the same for feet with a goal (hip, knee, ankle), so a foot that must go down
        reaches by extending its leg before the pelvis drops (without them, it drops all the way);
        `pivot`: the pelvis's animated world point, about which it may roll when two legs want it
        at different heights (without it, it never rolls)."""
        legs = legs or {}
        wants = self._wants(goals, legs)
        roll, axis, turn = self._roll(wants, legs, pivot, dt, blend)
        if turn is not None:   # what the feet want of the rolled pelvis: their legs as it carries them
            goals, legs = _rolled(goals, legs, turn)
            wants = self._wants(goals, legs)
        wanted = _planted_bound(goals, legs, min(wants.values(), default=0.0))
        if turn is not None:
            wanted = min(0.0, wanted)   # a roll never lifts the pelvis
        # the pelvis follows what the feet want (their goals already ease in), at most PELVIS_SPEED
        # away from its animated place while contacts blend (`blend` > 0), so a planted foot's goal
        # that jumps never jerks the body; back at once as the feet let go
        if blend > 0 and abs(wanted) >= abs(self.rise):
            wanted = self.rise + max(-PELVIS_SPEED * dt, min(PELVIS_SPEED * dt, wanted - self.rise))
        bound = _hands_bound(goals, arms, wanted)
        reach = bound != wanted   # a limb needs it to reach: even a small rise counts
        self.rise, self.roll, self.axis, self.turn = bound, roll, axis, turn
        return self.rise if abs(self.rise) >= _GROUND_EPSILON or reach else 0.0

    def rest(self):
        """Nothing is in contact this frame: the pelvis is where it is animated."""
        self.rise, self.roll, self.axis, self.turn = 0.0, 0.0, None, None

    def _wants(self, goals, legs):
        """{foot: the rise it wants of the pelvis}: as far as it must go down, so no leg stretches
        past its reach toward the ground (a high crate, the downhill foot on a slope, a furrow); a
        foot whose leg (`legs`) reaches its goal by extending asks only for what it cannot reach,
        so the knee straightens before the hips drop. The pelvis rises only as far as every foot
        wants (a low crate: the body rises instead of crouching), so a free foot (no goal, counted
        as 0) never rises with it and never makes the pelvis jump."""
        return {foot: _foot_rise(goals[foot], legs.get(foot)) if foot in goals else 0.0 for foot in self.feet}

    def _roll(self, wants, legs, pivot, dt, blend):
        """(degrees, world axis, the world matrix turning about `pivot`; or 0, None, None): when two legs
        with goals want the pelvis at different heights and one wants it down, the roll that
        lowers that foot's hip and raises the other's until both want the same, or until the
        lower one's hip is as low as it wants (the pelvis then stays at its height: a roll never
        lifts it), at most PELVIS_ROLL, at most ROLL_SPEED away from level while contacts blend,
        back at once."""
        if pivot is None or len(legs) != 2 or min(wants.values()) >= 0.0:
            return 0.0, None, None
        (one, first), (other, second) = legs.items()
        across = second[0] - first[0]
        axis = Vec3(-across.y, across.x, 0.0)
        if axis.length() < 1e-6:
            return 0.0, None, None
        axis.normalize()
        quarter = LMatrix4f.rotateMat(90.0, axis)   # a hip's height per unit of sin(roll)
        levers = {foot: quarter.xformVec(leg[0] - pivot).z for foot, leg in legs.items()}
        low = min(legs, key=wants.get)
        if abs(levers[low]) < 1e-6:   # the lower foot's hip on the axis: a roll does not lower it
            return 0.0, None, None
        # sin(roll) at which both want the same (the levers differ by the hips' distance apart across)
        level = (wants[one] - wants[other]) / (levers[one] - levers[other])
        enough = wants[low] / levers[low]   # at which the lower foot's hip alone lowers as it wants
        most = math.sin(math.radians(PELVIS_ROLL))
        roll = math.degrees(math.asin(max(-most, min(most, level if abs(level) < abs(enough) else enough))))
        if blend > 0 and abs(roll) >= abs(self.roll):
            roll = self.roll + max(-ROLL_SPEED * dt, min(ROLL_SPEED * dt, roll - self.roll))
        if not roll:
            return 0.0, None, None
        return roll, axis, LMatrix4f.translateMat(-pivot) * LMatrix4f.rotateMat(roll, axis) * LMatrix4f.translateMat(pivot)


def _rolled(goals, legs, turn):
    """(`goals`, `legs`) as a pelvis turned by `turn` (world) carries the legs: each leg's animated points
    turned with it, and each goal the same world point from its turned end (a goal's point: the animated
    end moved by correction * weight)."""
    rolled, moved = {}, dict(goals)
    for foot, leg in legs.items():
        rolled[foot] = tuple(turn.xformPoint(point) for point in leg)
        correction, weight = goals[foot]
        moved[foot] = ((leg[2] + correction * weight - rolled[foot][2]) / weight, weight)
    return moved, rolled


def _foot_rise(goal, leg):
    """What one foot wants of the pelvis: its goal's height, or when it goes down and `leg` (hip,
    knee, ankle) is given, only the part of it beyond the leg's reach (never more than its goal)."""
    correction, weight = goal
    down = correction.z * weight
    if down >= 0.0 or leg is None:
        return down
    below, room = _within_reach(leg, correction * weight)
    return max(down, min(0.0, below + room))


def _within_reach(limb, move):
    """(how far up its end's goal lies from its root, how far up or down from there the root may
    move and keep the goal within twobone.reach_limit): `limb` its (root, mid, end) animated world
    points, `move` (world) the end's move from its animated place."""
    root, mid, end = limb
    reach = reach_limit((end - root).length(), (mid - root).length() + (end - mid).length())
    to = end + move - root
    return to.z, math.sqrt(max(0.0, reach * reach - to.x * to.x - to.y * to.y))


def _planted_bound(goals, legs, rise):
    """`rise`, when up, kept so every foot with a goal (`legs`: {foot: (hip, knee, ankle) animated
    world points}) stays within its leg's reach, never below the pelvis's animated place for it: a
    planted foot the warp carries the body away from stays planted rather than sliding."""
    if rise <= 0.0:
        return rise
    high = rise
    for joint, leg in legs.items():
        correction, weight = goals[joint]
        below, room = _within_reach(leg, correction * weight)
        high = min(high, below + room)
    return max(0.0, high)


def _hands_bound(goals, arms, rise):
    """`rise`, kept so every hand in contact (`arms`) stays within reach of its shoulder; the
    bound eases in with the hands' contacts (hands win when they and the feet disagree)."""
    low, high, grip = -math.inf, math.inf, 0.0
    for joint, arm in arms.items():
        correction, weight = goals[joint]
        below, room = _within_reach(arm, correction * weight)
        low, high, grip = max(low, below - room), min(high, below + room), max(grip, weight)
    return rise + (max(low, min(high, rise)) - rise) * grip if grip > 0.0 else rise
