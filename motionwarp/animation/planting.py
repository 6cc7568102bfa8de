"""When feet and hands are planted, read from the animation itself (docs/design.md 3.2).

A limb is planted on a frame when its contact points (the named joint and the chain below it:
an ankle and its toes, a hand and its palm slot) stand still in the world and, for a foot, low.
"Still" and "low" are fractions of the character's height, so a centimetre rig and a
metre rig give the same windows. A clip authored in place stands on a treadmill: its planted
feet slide backward at the speed it should be played at, so stillness is measured against
that ground velocity (`stance_velocity`).

- Feet: still, and either low (near the height the rest pose stands it at, over the ground
  or over a root bone at the feet, which climbs with the character onto a ledge) or still for
  long while the body moves over it (a foot a climb stands up on); a foot stopping at a
  jump's apex, or held in the air with the body, is none of these.
- Hands: still while the body moves around them (the hips travel relative to the hand by a
  fraction of the height): a vault's plant, a mantle's grab, not an idle's hanging arms.

Not found: a hand held on a button while the whole body holds still, or hips on a seat; in joint
motion they look like a shield held up or a squat held still (design 3.2). Markers place those.
"""
import dataclasses
import functools
import math
import re

import numpy as np

from .bodyplan import GROUND, HELPER as _HELPER, BodyPlan
from .poses import standing_height

#: Planted: slower than this fraction of the height per second...
STILL = 0.1
#: ... for at least this long (seconds): a foot turning round in mid-swing is not planted.
SHORTEST = 0.06
#: On a treadmill (a cycle authored in place, its ground sliding faster than STILL) planted feet slide
#: unevenly: stiller than this, against the stance velocity, is planted.
TREADMILL = 0.25
#: A foot is low within this fraction of the height above where the rest pose stands it.
LOW = 0.01
#: A still foot that is not low is planted when still for this long (seconds): a ledge, not an apex.
LONG = 0.15
#: A locomotion cycle's sole is on the ground within this fraction of the height of its lowest.
SOLE_DOWN = 0.03
#: A hand is planted when the hips travel this fraction of the height relative to it while it stays.
BODY_MOVES = 0.2
#: ... and a foot that is not low when they travel this much (it stands up on a ledge; a foot held
#: in the air with the body, as in a jump authored in place, does not).
STANDS = 0.05
_FOOT = re.compile(r"foot|ankle", re.IGNORECASE)
_HAND = re.compile(r"hand|wrist", re.IGNORECASE)
_LEFT = re.compile(r"(^|[^a-z])(l|left)([^a-z]|$)|left", re.IGNORECASE)
_RIGHT = re.compile(r"(^|[^a-z])(r|right)([^a-z]|$)|right", re.IGNORECASE)
#: A capital L or R ending a word after a lower-case letter or digit (`FootL`, `UpperArmR_end`, `Palm2L`).
_CAMEL_SIDE = re.compile(r"[a-z0-9]([LR])(?![a-z])")
#: A joint named for a foot stands at a leg's ankle within this fraction of the height: it is that leg's
#: foot even off the leg (an IK-driven foot hanging from a root bone, RobotExpressive's `FootL`).
AT_ANKLE = 0.05


@dataclasses.dataclass(frozen=True)
class Limb:
    """A foot or a hand: `joint` (what contacts name), `points` (it and the chain below it)."""

    role: str      # "foot_l", "foot_r", "hand_l", "hand_r"
    joint: str
    points: tuple

    @property
    def is_foot(self):
        return self.role.startswith("foot")


@dataclasses.dataclass(frozen=True)
class Planted:
    """One contact window: `limb` planted from frame `first` to frame `last` (both included)."""

    limb: Limb
    first: int
    last: int
    fps: float

    @property
    def start(self):
        return self.first / self.fps

    @property
    def end(self):
        return self.last / self.fps


class Skeleton:
    """A joint tree (name -> parent name, None at the top), its rest pose ({joint: model-space
    position}: where feet stand on the ground) and what the detector asks of it."""

    def __init__(self, parents, rest):
        self.parents, self.rest = parents, rest
        self.children = {name: [c for c, p in parents.items() if p == name] for name in parents}
        self.height = standing_height(rest)
        #: Legs, pelvis and arms read from the shape (names left aside).
        self.plan = BodyPlan(parents, rest, self.height)

    def size(self, name):
        """How many joints `name` carries, itself included."""
        return 1 + sum(self.size(c) for c in self.children[name])

    def below(self, name):
        return [name] + [j for c in self.children[name] for j in self.below(c)]

    def depth(self, name):
        parent, depth = self.parents[name], 0
        while parent is not None:
            parent, depth = self.parents[parent], depth + 1
        return depth

    @property
    def top(self):
        """The top joint with the most joints under it (a root bone at the feet, or the hips)."""
        return max((name for name, parent in self.parents.items() if parent is None), key=self.size)

    @property
    def root_bone(self):
        """The top joint when it stands at the feet (a root bone, which climbs onto a ledge with the
        character), else None (the top is the hips: feet move with it in any jump)."""
        top = self.top
        return top if self.plan.up(top) <= GROUND else None

    @property
    def hips(self):
        """Where the two legs meet (the pelvis); without two legs, the joint under the biggest top
        joint with the largest subtree (the top itself if it has none)."""
        if len(self.plan.legs) == 2:
            return self.plan.pelvis
        top = self.top
        return max(self.children[top], key=self.size) if self.children[top] else top

    @property
    def problem(self):
        """Why the skeleton cannot walk as a biped, in a few words; "" when it can."""
        legs = len(self.plan.legs)
        if legs > 2:
            return f"{legs} feet reach the ground standing (a quadruped?): motionwarp's characters are bipeds"
        if "foot_l" not in self.limbs or "foot_r" not in self.limbs:
            return ("no feet found: no two chain ends reach the ground from legs rising to the knees, "
                    "and no joints are named foot or ankle, left and right")
        return ""

    @property
    def stiff_legs(self):
        """Why the contact IK cannot bend the legs ("" when it can): it turns each foot's grandparent
        (the hip) and parent (the knee), two bones of length, hanging from one pelvis."""
        feet = [self.limbs[role].joint for role in ("foot_l", "foot_r") if role in self.limbs]
        if len(feet) < 2:
            return "no left and right feet"
        legs = [[foot] + self.plan.ancestors(foot)[:3] for foot in feet]
        if any(len(leg) < 4 for leg in legs):
            return "a foot hangs less than three joints below the top"
        (_, knee_l, hip_l, pelvis_l), (_, knee_r, hip_r, pelvis_r) = legs
        if hip_l == hip_r or pelvis_l != pelvis_r:
            return f"no knee: {feet[0]} and {feet[1]} hang from {hip_l} and {hip_r}, not from a hip and a knee each"
        for leg in legs:
            for upper, lower in zip(leg[1:3], leg[:2]):
                if np.linalg.norm(self.rest[upper] - self.rest[lower]) < 0.05 * self.height:
                    return f"{upper} to {lower} is too short to bend"
        return ""

    @functools.cached_property
    def limbs(self):
        """The feet and hands: {role: Limb}. Feet are the two legs' ankles found by shape (BodyPlan), a
        joint named for the foot on the same leg (or standing at its ankle, anywhere: an IK foot under a
        root bone) taken over its ankle, sides from the names or else from where they stand; without
        two legs, the joints named so. Hands are named (`hand_R`, a wrist when there is no hand) or else
        where an arm's chain ends meet."""
        return dict(sorted(self._found_limbs[0].items()))

    @functools.cached_property
    def how(self):
        """{"feet": how they were found, "hands": ...}: the inspector's "how sure" lines."""
        return self._found_limbs[1]

    @functools.cached_property
    def _found_limbs(self):
        named = self._named_limbs()
        limbs, how = {}, {}
        legs = self.plan.legs
        if len(legs) == 2:
            feet, by_name = [], 0
            for ankle in legs:
                leg = [ankle] + self.plan.ancestors(ankle)
                same = next((limb.joint for limb in named.values()
                             if limb.is_foot and (limb.joint in leg or ankle in self.plan.ancestors(limb.joint))), None)
                same = same or self._foot_at(ankle)
                by_name += same is not None
                feet.append(same or ankle)
            sides = [_side(f) for f in feet]
            if None in sides or sides[0] == sides[1]:
                sides = [self.plan.side(f) for f in feet]
            if sides[0] != sides[1]:
                for foot, side in zip(feet, sides):
                    limbs[f"foot_{side}"] = Limb(f"foot_{side}", foot, self._chain(foot))
                how["feet"] = ("sure: named and shaped as feet (two legs reach the ground)" if by_name == 2 else
                               "likely: shaped as feet (two legs reach the ground), not named so")
        elif len(legs) < 2:
            limbs.update({role: limb for role, limb in named.items() if limb.is_foot})
            if limbs:
                how["feet"] = "unsure: named feet, but the standing pose does not show two legs reaching the ground"
        if len([r for r in limbs if r.startswith("foot")]) < 2 and "feet" not in how:
            how["feet"] = "not found"
        hands = {role: limb for role, limb in named.items() if not limb.is_foot}
        if len(hands) == 2:
            how["hands"] = "sure: named hands"
        else:
            hands = {f"hand_{side}": Limb(f"hand_{side}", joint, self._chain(joint))
                     for side, joint in self.plan.hands.items()}
            how["hands"] = ("likely: where the arms' chain ends meet, not named so" if len(hands) == 2 else
                            "not found" if not hands else "unsure: one arm found")
        limbs.update(hands)
        return limbs, how

    def _foot_at(self, ankle):
        """The joint named for a foot (no rig helper) standing nearest `ankle` within AT_ANKLE of the
        height, anywhere in the skeleton; None when there is none."""
        near = [(float(np.linalg.norm(self.rest[j] - self.rest[ankle])), j) for j in self.parents
                if _FOOT.search(j) and not _HELPER.search(j) and j != ankle]
        near = [(distance, j) for distance, j in near if distance <= AT_ANKLE * self.height]
        return min(near)[1] if near else None

    def _chain(self, joint):
        """The limb's contact points: it and the chain below it (toes under an ankle, a palm under a hand)."""
        chain = [joint]
        while True:
            nxt = [c for c in self.children[chain[-1]] if not _HELPER.search(c)]
            if len(nxt) != 1:
                return tuple(chain)
            chain.append(nxt[0])

    def _named_limbs(self):
        """The feet and hands named so (`foot.l`, `LeftFoot`, `hand_R`, a wrist when there is no hand)
        under the hips; rig helpers (IK targets, controls, slots) are left out."""
        body = set(self.below(self.hips))
        limbs = {}
        for kind, pattern in (("foot", _FOOT), ("hand", _HAND)):
            found = [j for j in self.parents if j in body and pattern.search(j) and not _HELPER.search(j)]
            # per side, one joint: the one named for the limb (a hand over its wrist), then the topmost
            for joint in sorted(found, key=lambda j: (kind not in j.lower(), self.depth(j), j)):
                side = _side(joint)
                if side is None or f"{kind}_{side}" in limbs:
                    continue
                limbs[f"{kind}_{side}"] = Limb(f"{kind}_{side}", joint, self._chain(joint))
        return limbs


def _side(joint):
    """"l" or "r" from the name (`foot.l`, `LeftFoot`, `foot_R`, `FootL`), None when it does not say."""
    left, right = bool(_LEFT.search(joint)), bool(_RIGHT.search(joint))
    if not left and not right:
        camel = _CAMEL_SIDE.findall(joint)
        left, right = "L" in camel, "R" in camel
    if left != right:
        return "l" if left else "r"
    return None


def stance_velocity(poses, skeleton):
    """The model-space ground velocity (x, y) of a cycle authored in place: how its planted feet
    slide, which played at minus this stand still. First the median velocity of the feet's soles
    where they are lowest, then the mean over the frames that slide within STILL of it (heel
    strikes and toe-offs left out), then the contact windows at that velocity: over them, at the
    velocity returned, the planted soles travel no net distance (a cycle whose feet plant for
    less than SHORTEST keeps the mean)."""
    height = skeleton.height
    soles = [(poses.positions[limb.points[-1]], poses.velocity(limb.points[-1])[:, :2])
             for limb in skeleton.limbs.values() if limb.is_foot]
    low = [path[:, 2] <= path[:, 2].min() + LOW * height for path, _ in soles]
    steps = np.concatenate([velocity[mask] for (_, velocity), mask in zip(soles, low)] or [np.zeros((0, 2))])
    if not len(steps):
        return np.zeros(2)
    guess = np.median(steps, axis=0)
    planted = steps[np.linalg.norm(steps - guess, axis=1) < STILL * height]
    guess = planted.mean(axis=0) if len(planted) else guess
    # then the windows planted at that speed: the velocity over which their soles travel no net distance
    travel, seconds = np.zeros(2), 0.0
    for window in detect(poses, skeleton, tuple(guess)):
        if window.limb.is_foot:
            sole = poses.positions[window.limb.points[-1]]
            travel += sole[window.last, :2] - sole[window.first, :2]
            seconds += window.end - window.start
    return travel / seconds if seconds > 0 else guess


def detect(poses, skeleton, ground_velocity=(0.0, 0.0)):
    """Every contact window of every limb, in clip order: a list of Planted.

    A foot is low near where the rest pose stands it (over the ground, or over a root bone at the feet: a
    root bone climbs onto a ledge with the character); a hand plants when the hips move around it.
    `ground_velocity` (model x, y per second) is what stands still in the world: (0, 0) for a
    clip with root motion, `stance_velocity` for a cycle authored in place.
    """
    found = []
    height, rest = skeleton.height, skeleton.rest
    treadmill = math.hypot(*ground_velocity) > STILL * height
    still_limit = (TREADMILL if treadmill else STILL) * height
    root = skeleton.root_bone
    ground = poses.positions[root][:, 2] if root is not None else None
    for limb in skeleton.limbs.values():
        still = np.zeros(poses.num_frames, dtype=bool)
        low = np.zeros(poses.num_frames, dtype=bool)
        for point in limb.points:
            speed = _resting_speed(poses.positions[point], poses.fps, ground_velocity)
            z = poses.positions[point][:, 2]
            point_still = speed < still_limit
            still |= point_still
            standing = rest[point][2]
            low |= point_still & (z <= standing + LOW * height)
            if root is not None:
                low |= point_still & (np.abs(z - ground - (standing - rest[root][2])) <= LOW * height)
        for first, last in _runs(still):
            if (last - first) / poses.fps < SHORTEST:
                continue
            moves = _body_moves(poses, limb.joint, skeleton.hips, first, last)
            if limb.is_foot:
                keep = low[first:last + 1].any() or ((last - first) / poses.fps >= LONG and moves > STANDS * height)
            else:
                keep = moves > BODY_MOVES * height
            if keep:
                found.append(Planted(limb, first, last, poses.fps))
    return sorted(found, key=lambda p: (p.first, p.limb.role))


def _resting_speed(path, fps, ground_velocity):
    """Per frame, how fast a point moves over the ground: the slower of its steps to the previous and
    the next frame (a frame it arrives at or leaves from still counts as resting)."""
    steps = np.diff(path, axis=0) * fps
    steps[:, 0] -= ground_velocity[0]
    steps[:, 1] -= ground_velocity[1]
    speed = np.linalg.norm(steps, axis=1)
    if len(speed) == 0:
        return np.zeros(len(path))
    before = np.concatenate([[speed[0]], speed])
    after = np.concatenate([speed, [speed[-1]]])
    return np.minimum(before, after)


def _runs(mask):
    """(first, last) index of each run of True in a boolean array."""
    runs, start = [], None
    for index, value in enumerate(mask):
        if value and start is None:
            start = index
        elif not value and start is not None:
            runs.append((start, index - 1))
            start = None
    if start is not None:
        runs.append((start, len(mask) - 1))
    return runs


def _body_moves(poses, joint, hips, first, last):
    """How far the hips travel relative to `joint` between frames `first` and `last` (the most)."""
    relative = poses.positions[hips][first:last + 1] - poses.positions[joint][first:last + 1]
    return float(np.linalg.norm(relative - relative[0], axis=1).max())


def cycle_steps(poses, skeleton):
    """[(foot joint, sole joint, start s, end s)]: when each foot of a walk or run cycle is planted, its
    sole the last of its contact points: each contact window (a cycle authored in place read on its
    treadmill, its `stance_velocity`; one with root motion on still ground), widened to every frame
    around it the sole stays within SOLE_DOWN of the height of its lowest (a heel strike, a toe-off:
    on the ground, not yet still). A foot with no window (a sprint's stance is shorter than
    SHORTEST) is planted while its sole is that low. What the contact IK locks in place."""
    ground = stance_velocity(poses, skeleton)
    ground = tuple(ground) if np.linalg.norm(ground) > STILL * skeleton.height else (0.0, 0.0)
    windows = [w for w in detect(poses, skeleton, ground) if w.limb.is_foot]
    steps = []
    for limb in (limb for limb in skeleton.limbs.values() if limb.is_foot):
        sole = limb.points[-1]
        z = poses.positions[sole][:, 2]
        down = z <= z.min() + SOLE_DOWN * skeleton.height
        runs = [(w.first, w.last) for w in windows if w.limb == limb] or _runs(down)
        for first, last in runs:
            while first > 0 and down[first - 1]:
                first -= 1
            while last < len(z) - 1 and down[last + 1]:
                last += 1
            steps.append((limb.joint, sole, first / poses.fps, last / poses.fps))
    return sorted(set(steps), key=lambda step: (step[2], step[0]))
