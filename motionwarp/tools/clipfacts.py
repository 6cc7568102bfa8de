"""What a clip is, read from its motion (docs/design.md 12): loop or one-shot, in place or
travelling, the speed its planted feet stand still at, its contact windows, a guess at its role.

Everything is measured against the character's height (its rest pose), so the same rules
hold for a centimetre rig. Nothing here knows a rig by name: names only refine a role the
motion leaves open (an attack and a pick-up both return to their start pose).
"""
import dataclasses
import math
import re

import numpy as np

from ..animation import rootmotion
from ..animation.planting import STILL, detect, stance_velocity

#: End poses match (a loop) within this fraction of the height at every joint, root motion taken off.
SAME_POSE = 0.02
#: A clip that returns to its start pose without stepping is a one-shot action (an attack, a pick-up)
#: when some joint moves this fraction of the height in between; an idle moves less.
EXCURSION = 0.15
#: A cycle authored in place steps when its planted feet slide faster than this many heights per second.
STEP_SPEED = 0.3
#: A foot is in the air this fraction of the height above where the rest pose stands it.
AIRBORNE = 0.05
#: A clip whose root travels less than this fraction of the height is authored in place.
IN_PLACE = 0.02
#: A stepping cycle faster than this many heights per second runs.
RUN_SPEED = 1.0
#: Roles a name can give to a clip the motion calls an action (first match wins).
_NAMED = (("vault", "vault"), ("mantle", "mantle"), ("climb", "climb"), ("dodge", "dodge"), ("roll", "dodge"),
          ("attack", "attack"), ("punch", "attack"), ("kick", "attack"),
          ("slash", "attack"), ("death", "death"), ("die", "death"), ("sit", "sit"), ("lie", "lie"),
          ("hit", "hit"), ("block", "block"), ("pickup", "pick up"), ("pick_up", "pick up"), ("interact", "interact"),
          ("cheer", "cheer"), ("throw", "throw"), ("spell", "spell"), ("shoot", "shoot"), ("aim", "aim"),
          ("reload", "reload"), ("jump", "jump"), ("fall", "fall"), ("land", "land"), ("idle", "idle"))
#: Gaits a stepping cycle's name can tell (first match wins): the motion says it steps, the name which
#: gait when the speed alone says otherwise (RobotExpressive's `Walking` steps at 1.1 heights a second).
_GAITS = (("walk", "walk"), ("run", "run"), ("jog", "run"), ("sprint", "run"))
#: Roles the motion tells better than a name (Jump_Idle hangs in the air: a fall).
_MOTION_ROLES = ("jump", "fall", "land", "idle")


@dataclasses.dataclass
class ClipFacts:
    """One clip as the inspector reports it; lengths in model units (times the scale: metres)."""

    clip: str
    seconds: float
    frames: int
    loops: bool
    travel: float            # how far the root travels over the clip, on the ground
    travel_dir: tuple        # the direction it travels (model x, y), or its planted feet's opposite
    speed: float             # for a cycle authored in place: the speed its planted feet stand still at, else 0
    contacts: list           # Planted windows
    role: str = ""

    @property
    def in_place(self):
        """Its root stays (a cycle that steps on a treadmill included)."""
        return self.travel == 0.0

    @property
    def stepping(self):
        """A cycle that walks or runs: it travels, or its feet step on a treadmill."""
        return self.loops and (self.speed > 0.0 or self.travel > 0.0)


def clip_facts(poses, skeleton, track, root_joint, cycle, last_step=None):
    """The ClipFacts of a clip from its joint positions (`ClipPoses`), the character's Skeleton,
    its root-motion track (of `root_joint`, in the recommended mode) and `cycle`, the root joint's
    own motion (x, y, z, heading) from the first frame to the last, turn included. `last_step`: the
    seconds of motion between the last two frames (default one frame: less when the clip's final
    key falls between frames, as a clip resampled at 24 fps does)."""
    height = skeleton.height
    n = poses.num_frames
    end = track.sample(n - 1)
    travel = math.hypot(end[0], end[1])
    travel = travel if travel > IN_PLACE * height else 0.0
    above = set()
    parent = skeleton.parents.get(root_joint)
    while parent is not None:   # the root joint's ancestors stay with the body: no motion to take off
        above.add(parent)
        parent = skeleton.parents[parent]
    returns = n > 2 and _returns(poses, cycle, height, above)
    speed, direction = 0.0, (end[0], end[1]) if travel else (0.0, 0.0)
    ground = (0.0, 0.0)
    if returns and not travel:
        velocity = stance_velocity(poses, skeleton)
        if np.linalg.norm(velocity) > STEP_SPEED * height:
            ground = tuple(velocity)
            speed, direction = float(np.linalg.norm(velocity)), (-velocity[0], -velocity[1])
    contacts = detect(poses, skeleton, ground) if n > 1 else []
    # a loop travels on through its seam, or steps, or moves little (an idle), or never sets a foot
    # down (a fall); else it is an action that returns to its start pose (an attack, a vault)
    loops = returns and (_moves_at_seam(track, height, last_step) if travel else
                         bool(speed) or _excursion(poses) < EXCURSION * height
                         or not any(p.limb.is_foot for p in contacts))
    facts = ClipFacts(poses.clip, poses.duration, n, loops, travel, _unit(direction), speed, contacts)
    facts.role = _motion_role(facts, _airborne(poses, skeleton), height)
    return facts


def _returns(poses, cycle, height, above):
    """The last pose repeats the first at every joint, the root joint's motion over the clip taken
    off (not off the joints `above` the root joint: they stay with the body)."""
    x, y, z, h = cycle
    undo = np.linalg.inv(rootmotion.motion_matrix((x, y, z), h))
    for joint, path in poses.positions.items():
        back = path[-1] if joint in above else (np.append(path[-1], 1.0) @ undo)[:3]
        if np.linalg.norm(back - path[0]) > SAME_POSE * height:
            return False
    return True


def _moves_at_seam(track, height, last_step=None):
    """The root still travels at the clip's first and last frames: a cycle, not a one-shot that
    comes to rest (a vault, a dodge). The last step's speed is over the motion it holds (`last_step`
    seconds): a 24 fps walk baked at 30 fps moves a quarter frame's worth there."""
    last = track.num_frames - 1
    steps = ((0, 1, 1.0 / track.fps), (last - 1, last, last_step or 1.0 / track.fps))
    speeds = [math.hypot(*rootmotion.row_step(track.sample(a), track.sample(b))[:2]) / seconds
              for a, b, seconds in steps]
    return min(speeds) > STILL * height


def _excursion(poses):
    """The farthest any joint gets from where frame 0 has it."""
    return max(float(np.linalg.norm(path - path[0], axis=1).max()) for path in poses.positions.values())


def _airborne(poses, skeleton):
    """Per frame, True when every foot is in the air: each contact point higher than AIRBORNE of the
    height over where the rest pose stands it, over the ground and over a root bone at the feet (which
    climbs onto a ledge with the character). False throughout for a skeleton without feet."""
    feet = [limb for limb in skeleton.limbs.values() if limb.is_foot]
    if not feet:
        return np.zeros(poses.num_frames, dtype=bool)
    up = np.ones(poses.num_frames, dtype=bool)
    root, rest, margin = skeleton.root_bone, skeleton.rest, AIRBORNE * skeleton.height
    for limb in feet:
        for point in limb.points:
            z = poses.positions[point][:, 2]
            up &= z > rest[point][2] + margin
            if root is not None:
                up &= z - poses.positions[root][:, 2] > rest[point][2] - rest[root][2] + margin
    return up


def _unit(direction):
    length = math.hypot(*direction)
    return (direction[0] / length, direction[1] / length) if length > 0 else (0.0, 0.0)


def _motion_role(facts, airborne, height):
    """idle, walk, run, fall, jump, take-off, land, from the motion alone; "" when it does not say.
    `airborne` is per frame whether every foot is in the air."""
    if facts.frames <= 1:
        return "pose"
    if facts.loops:
        if facts.stepping:
            speed = facts.speed or facts.travel / max(facts.seconds, 1e-9)
            return "run" if speed > RUN_SPEED * height else "walk"
        return "idle" if any(p.limb.is_foot for p in facts.contacts) else "fall"
    if airborne.any():
        if not airborne[0] and not airborne[-1]:
            return "jump"
        return "take-off" if not airborne[0] else "land" if not airborne[-1] else "fall"
    return ""


def guess_role(facts):
    """The motion's role, unless the name tells an action the motion cannot (an attack, a sit, a
    death, a dodge): airborne words in names are left to the motion; a stepping cycle named for a gait
    (walk, run, jog, sprint) is that gait whatever its speed."""
    name = facts.clip.lower()
    if facts.role in ("walk", "run"):
        return next((gait for word, gait in _GAITS if word in name), facts.role)
    named = next((role for word, role in _NAMED if word in name), None)
    if named is None or named in _MOTION_ROLES:
        return facts.role or named or "action"
    return named


def direction_word(direction, facing):
    """forward, back, left or right: `direction` (model x, y) relative to the model's `facing`."""
    if direction == (0.0, 0.0):
        return ""
    along = direction[0] * facing[0] + direction[1] * facing[1]
    across = direction[0] * facing[1] - direction[1] * facing[0]   # positive: to the right
    if abs(along) >= abs(across):
        return "forward" if along > 0 else "back"
    return "right" if across > 0 else "left"


def stepping_names_first(facts_list):
    """Stepping cycles, the ones named plainly first (no back, strafe, left or right in the name)."""
    sideways = re.compile(r"back|strafe|left|right|side", re.IGNORECASE)
    return sorted((f for f in facts_list if f.stepping), key=lambda f: (bool(sideways.search(f.clip)), len(f.clip), f.clip))
