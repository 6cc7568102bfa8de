"""`python -m motionwarp author MODEL.glb CLIP --kind KIND`: a warp asset proposed from the clip's own
contacts (docs/design.md 12.1), written atomically and checked by loading it back.

Each phase ends at an event the contacts show, and its target is where the clip meets the
obstacle then, so against the obstacle the clip clears by itself the warp is nearly the identity:

- vault: hands plant on the close edge; the root is over the far edge when the feet, coming down,
  sink below the top (the hands' plant height; not before the hands let go); the feet land.
- mantle: the hands grab the ledge's edge.
- jump_over: take-off to the apex over the close edge, then the far edge behind the root as the
  soles come down to half their apex height, then the landing; nothing is warped while the
  feet are planted.
- jump_onto (JumpProvider's two targets): take-off when the last foot contact before the flight ends
  (the root where it is then), then the landing on top as the feet next plant: the root on the top's
  floor a capsule radius and clearance past the edge (where the provider puts it), that edge a margin
  behind the rearmost toe.
- sit, pick_up, use (a marker's kinds, 7 "Markers"): the clip's own contact point, found from it: the
  hips as they settle (sit), the hand's lowest (pick_up) or forward-most (use) point where it holds
  still. Its one phase ends there and its `t_offset` is the root's place from that point, so the root
  lands where it puts the hips or the hand on the marker.

`traversal` ranges come from what the clip clears: its hands' height (a vault, a mantle's reach)
or its soles' height at the apex (a jump). Everything is written in metres, in the frame of a
character turned to face +Y (the model's `turn`), as the demo plays it.
"""
import math
import os

import numpy as np

from ..base.config import ProviderSettings
from ..base.errors import UsageError
from ..base.jsonfields import LIMIT, dumps, is_number
from ..warp.asset import FORMAT, WarpAsset
from ..warp.assetdata import TRAVERSAL_KINDS
from .outputs import OutputPlan

KINDS = ("vault", "mantle", "jump_over", "jump_onto", "sit", "pick_up", "use")
RATES = {"close_edge": (0.5, 1.6), "far_edge": (0.7, 1.4), "landing": (0.7, 1.4), "ledge_top": (0.5, 1.6),
         "stand_on_top": (0.7, 1.4),
         "take_off": (0.5, 1.6), "seat": (0.5, 1.6), "grab": (0.5, 1.6), "hand": (0.5, 1.6)}
#: A traversal fits obstacles from LOW to HIGH times the height the clip clears by itself.
LOW, HIGH = 0.5, 1.5
#: A jump onto a ledge lands its rearmost toe this fraction of the character's height past the edge (and
#: its root at least the providers' capsule radius plus clearance past it).
ONTO_MARGIN = 0.1
#: A jump's soles are at their apex within this fraction of their highest.
APEX = 0.95
#: A jump over lands its root this fraction of the character's height past the far edge, beyond the capsule.
LAND_PAST = 0.25
#: Obstacles a ledge-top traversal fits are at most this deep (a ledge has no far side to find).
DEEP = 50.0
#: A joint holds still while it moves less than this (metres) a frame.
STILL = 0.002
#: A hand reaches for a marker when its point moves at least this far (metres) from where it starts.
REACH = 0.1


class Authoring:
    """One clip of an inspected model (`tools.inspector.Model`) as the author reads it: times of its
    contact events and where joints are then, in metres, in the character's turned frame relative to
    where the clip starts."""

    def __init__(self, model, clip, turn=None):
        if clip not in model.bundles:
            raise UsageError(f"{model.path}: clip {clip!r} not found; the model has: {', '.join(sorted(model.bundles))}")
        self.model, self.clip = model, clip
        self.facts = model.facts(clip)
        self.poses = model.poses(clip)
        joint, mode, _, _ = model.recommended()
        self.track = model.track(clip, joint, mode)
        self.turn = model.turn if turn is None else turn
        self.scale = model.scale
        self.height = model.skeleton.height * model.scale
        self.fps = self.poses.fps
        self._start = self.track.origin_pos

    def frame(self, seconds):
        return int(round(seconds * self.fps))

    def point(self, model_point):
        """A model-space point in the character's frame (metres, turned to face +Y, from the start)."""
        c, s = math.cos(math.radians(self.turn)), math.sin(math.radians(self.turn))
        x, y, z = (np.asarray(model_point, dtype=float) - self._start) * self.scale
        return np.array([c * x - s * y, s * x + c * y, z])

    def joint(self, name, seconds):
        return self.point(self.poses.positions[name][self.frame(seconds)])

    def root(self, seconds):
        return self.point(self._start + self.track.position(self.frame(seconds)))

    def limbs(self, feet):
        """The skeleton's feet (or hands); refused in one line when it has none."""
        limbs = [limb for limb in self.model.skeleton.limbs.values() if limb.is_foot == feet]
        if not limbs:
            name = os.path.basename(self.model.path)
            cause = self.model.skeleton.problem if feet else "no hands found"
            raise UsageError(f"{self.clip}: {name} has no {'feet' if feet else 'hands'} to read this clip's "
                             f"contacts from ({cause}); `python -m motionwarp inspect {name}` says what was found")
        return limbs

    def windows(self, feet):
        """The contact windows of the feet (or of the hands)."""
        self.limbs(feet)
        return [p for p in self.facts.contacts if p.limb.is_foot == feet]

    def mean(self, limbs, seconds):
        """The mean point of some windows' joints at `seconds`."""
        return np.mean([self.joint(p.limb.joint, seconds) for p in limbs], axis=0)

    def feet(self, seconds):
        """The mean point of both feet's joints at `seconds` (whether planted yet or not)."""
        return np.mean([self.joint(limb.joint, seconds) for limb in self.limbs(feet=True)], axis=0)

    def hands(self):
        """(plant, release, the hands' windows that start at the plant)."""
        hands = self.windows(feet=False)
        if not hands:
            raise UsageError(f"{self.clip}: no hand plants on anything (a vault plants its hands, a mantle grabs "
                             f"a ledge); its contacts: {self._contacts()}")
        plant = min(p.start for p in hands)
        planted = [p for p in hands if p.start - plant <= 2.0 / self.fps]
        return plant, max(p.end for p in planted), planted

    def flight(self):
        """(take-off, touch-down): the longest stretch with no foot planted, between planted feet."""
        n = self.poses.num_frames
        down = np.zeros(n, dtype=bool)
        for p in self.windows(feet=True):
            down[p.first:p.last + 1] = True
        runs, start = [], None
        for f in range(n):
            if not down[f] and start is None:
                start = f
            elif down[f] and start is not None:
                runs.append((start, f))
                start = None
        runs = [(a, b) for a, b in runs if a > 0]   # planted before, planted after
        if not runs:
            raise UsageError(f"{self.clip}: its feet never leave the ground between two plants (a jump takes off "
                             f"and lands); its contacts: {self._contacts()}")
        first, after = max(runs, key=lambda run: run[1] - run[0])
        return (first - 1) / self.fps, after / self.fps

    def landing(self, after):
        """The first time a foot plants after `after` seconds."""
        later = [p.start for p in self.windows(feet=True) if p.start > after + 1e-9]
        if not later:
            raise UsageError(f"{self.clip}: no foot lands after {after:.2f} s; its contacts: {self._contacts()}")
        return min(later)

    def lowest_sole(self, seconds):
        """The height of the lowest contact point of the feet at `seconds`."""
        return min(p[2] for p in self.soles(seconds))

    def soles(self, seconds):
        """The contact points of both feet at `seconds`: the lowest of them is what clears an obstacle."""
        return [self.joint(point, seconds) for limb in self.limbs(feet=True) for point in limb.points]

    def _contacts(self):
        return ", ".join(f"{p.limb.role} {p.start:.2f}-{p.end:.2f}" for p in self.facts.contacts) or "none"


def propose(model, clip, kind, turn=None):
    """(phases [(name, start, end, target point)], traversal ranges, the Authoring) for `kind`."""
    if kind not in KINDS:
        raise UsageError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    a = Authoring(model, clip, turn)
    if kind in ("vault", "mantle") and a.facts.in_place:
        raise UsageError(f"{clip} is authored in place: a {kind} needs a clip whose root travels over or onto "
                         f"the obstacle; author an in-place clip as jump_over or jump_onto")
    return PROPOSALS[kind](a) + (a,)


def _vault(a):
    plant, release, hands = a.hands()
    edge = a.mean(hands, plant)
    # the far edge: where the root is when the feet, coming down after the apex, sink below the top
    frames = range(a.frame(plant), a.poses.num_frames)
    apex = max(frames, key=lambda f: a.lowest_sole(f / a.fps))
    over = next((f for f in range(apex, a.poses.num_frames) if a.lowest_sole(f / a.fps) < edge[2]), None)
    if over is None:
        raise UsageError(f"{a.clip}: its feet never come down from over the hands' plant height ({edge[2]:.2f} m)")
    over = max(over / a.fps, release)
    land = a.landing(over)
    far = a.root(over)
    points = [("close_edge", 0.0, plant, edge),
              ("far_edge", plant, over, np.array([far[0], far[1], edge[2]])),
              ("landing", over, land, _under(a.feet(land), a.root(land)))]
    clear = edge[2] - a.root(0.0)[2]
    depth = max(far[1] - edge[1], 0.0)
    return points, {"height": [LOW * clear, HIGH * clear], "depth": [0.0, 2.0 * depth]}


def _mantle(a):
    grab, _, hands = a.hands()
    edge = a.mean(hands, grab)
    stand = a.root(a.facts.seconds)
    clear = edge[2] - a.root(0.0)[2]
    points = [("ledge_top", 0.0, grab, edge)]
    # then to where the clip ends standing (a root bone stands on the top, as jump_onto's landing), by the
    # first foot's plant there
    plant = min((p.start for p in a.windows(feet=True) if p.start > grab + 1.0 / a.fps), default=None)
    if plant is not None:
        points.append(("stand_on_top", grab, plant, stand))
    return points, {"height": [0.6 * clear, 1.4 * clear], "depth": [max(stand[1] - edge[1], 0.0), DEEP]}


def _jump_over(a):
    take_off, touch_down = a.flight()
    frames = range(a.frame(take_off), a.frame(touch_down) + 1)
    ground = a.root(take_off)[2]
    clear = max(a.lowest_sole(f / a.fps) for f in frames) - ground
    # the apex: the first frame near the highest (a jump that hangs in the air crosses while it hangs)
    apex = next(f for f in frames if a.lowest_sole(f / a.fps) - ground >= APEX * clear)
    # coming down: the soles back at half the apex height; the root is then a landing's length past the far edge
    down = next((f for f in range(apex, frames[-1] + 1) if a.lowest_sole(f / a.fps) - ground < clear / 2), frames[-1])
    apex, down = apex / a.fps, min(down, frames[-1] - 1) / a.fps
    root = a.root(down)
    points = [("close_edge", take_off, apex, np.array([*a.root(apex)[:2], ground + clear])),
              ("far_edge", apex, down, np.array([root[0], root[1] - _clear_past(a), a.lowest_sole(down)])),
              ("landing", down, touch_down, _under(a.feet(touch_down), a.root(touch_down)))]
    return points, {"height": [LOW * clear, HIGH * clear], "depth": [0.0, max(0.5 * a.height, 0.1)]}


def _jump_onto(a):
    take_off, touch_down = a.flight()
    ground = a.root(take_off)[2]
    clear = max(a.lowest_sole(f / a.fps) for f in range(a.frame(take_off), a.frame(touch_down) + 1)) - ground
    # the ledge's edge: a margin behind the rearmost toe as the feet touch down, the capsule clear of it
    rear = min(p[1] for p in a.soles(touch_down))
    root = a.root(touch_down)
    edge = min(rear - ONTO_MARGIN * a.height, root[1] - _clear_past(a, 0.0))
    # the landing target is where JumpProvider puts it: a capsule radius and clearance past the edge
    landing = np.array([root[0], edge + _clear_past(a, 0.0), root[2]])
    stand = a.root(a.facts.seconds)
    points = [("take_off", 0.0, take_off, a.root(take_off)),
              ("landing", take_off, touch_down, landing)]
    return points, {"height": [LOW * clear, HIGH * clear], "depth": [max(stand[1] - edge, 0.0), DEEP]}


def _sit(a):
    settle = _settled(a, "hips")
    seat = a.joint("hips", settle)
    if settle <= 0.0 or np.linalg.norm(seat - a.joint("hips", 0.0)) < REACH:
        raise UsageError(f"{a.clip}: its hips never move to a seat and settle there (a sit lowers or moves the "
                         f"hips at least {REACH:g} m, then holds them still)")
    return [("seat", 0.0, settle, seat)], _marker_range(a, seat)


def _pick_up(a):
    return _reach(a, "grab", lambda p: -p[2], "lowest")


def _use(a):
    return _reach(a, "hand", lambda p: p[1], "forward-most")


def _reach(a, phase, score, what):
    """One phase ending as the hand that moves farthest comes to its `what` point (the highest `score`)
    and holds still there."""
    hands = [limb.joint for limb in a.limbs(feet=False)]
    frames = range(a.poses.num_frames)
    reach = {j: max(np.linalg.norm(a.joint(j, f / a.fps) - a.joint(j, 0.0)) for f in frames) for j in hands}
    hand = max(hands, key=lambda j: reach[j])
    if reach[hand] < REACH:
        raise UsageError(f"{a.clip}: no hand reaches out (a {phase} moves a hand at least {REACH:g} m to its "
                         f"{what} point); the hands move at most {reach[hand]:.3f} m")
    best = max(frames, key=lambda f: score(a.joint(hand, f / a.fps)))
    arrive = best
    while arrive > 0 and _step(a, hand, arrive) < STILL:
        arrive -= 1
    if _step(a, hand, best) >= STILL and _step(a, hand, min(best + 1, frames[-1])) >= STILL:
        raise UsageError(f"{a.clip}: {hand} never holds still at its {what} point (it moves "
                         f"{_step(a, hand, best):.3f} m a frame there)")
    point = a.joint(hand, arrive / a.fps)
    return [(phase, 0.0, arrive / a.fps, point)], _marker_range(a, point)


def _step(a, joint, frame):
    """How far `joint` moves from `frame - 1` to `frame` (metres; 0 at the first frame)."""
    if frame <= 0:
        return 0.0
    return float(np.linalg.norm(a.joint(joint, frame / a.fps) - a.joint(joint, (frame - 1) / a.fps)))


def _settled(a, joint):
    """The time from which `joint` holds still to the clip's end."""
    f = a.poses.num_frames - 1
    while f > 0 and _step(a, joint, f) < STILL:
        f -= 1
    return f / a.fps


def _marker_range(a, point):
    """A marker's height above the feet that the clip fits: LOW to HIGH times where it puts `point`."""
    height = point[2] - a.root(0.0)[2]
    return {"height": sorted([LOW * height, HIGH * height])}


def _clear_past(a, more=LAND_PAST):
    """How far past an edge the root lands: the providers' capsule radius and clearance (the capsule
    clears the edge), and `more` of the character's height (clear of a round top's shoulder too)."""
    settings = ProviderSettings.from_prc()
    return settings.capsule_radius + settings.clearance + more * a.height


#: kind -> the phase that defers its rise to the next (docs/design.md 4, Deferred rise): a vault's
#: feet stay planted up to the hands' plant and a mantle's up to the grab, so a higher top is risen
#: to over it (a mantle's stand_on_top; without that phase it rises in ledge_top), not in the run-up.
DEFERS_RISE = {"vault": "close_edge", "mantle": "ledge_top"}
#: kind -> the phase that warps only from the hands' release (docs/design.md 4, Held warp): a vault's
#: hands hold the close edge into far_edge, so the body moves as the clip does over them until they let go.
HOLDS_TO_RELEASE = {"vault": "far_edge"}
#: kind -> its proposal: (phases [(name, start, end, target point)], traversal ranges) of an Authoring.
PROPOSALS = {"vault": _vault, "mantle": _mantle, "jump_over": _jump_over, "jump_onto": _jump_onto,
             "sit": _sit, "pick_up": _pick_up, "use": _use}


def _under(feet, root):
    """The ground point under the feet: their x, y at the root's height (a root bone stands on it)."""
    return np.array([feet[0], feet[1], root[2]])


def asset_data(model, clip, kind, out, turn=None, height=None, depth=None):
    """The warp asset dict for `clip` as `kind`, its model path relative to `out`'s folder."""
    given = {name: _given_range(name, values) for name, values in (("height", height), ("depth", depth))
             if values is not None}
    points, ranges, a = propose(model, clip, kind, turn)
    ranges.update(given)
    joint, mode, _, _ = model.recommended()
    phases = []
    for index, (name, start, end, target) in enumerate(points):
        offset = a.root(end) - target
        defers = DEFERS_RISE.get(kind) == name and index < len(points) - 1   # a later phase carries the rise
        low, high = RATES[name]
        release = a.hands()[1] if HOLDS_TO_RELEASE.get(kind) == name else None
        phases.append({"name": name, "start": _r(start), "end": _r(end), "t_offset": [_r(v) for v in offset],
                       "r_offset": [0.0, 0.0, 0.0], "min_rate": low, "max_rate": high,
                       **({"defer_rise": True} if defers else {}),
                       **({"warp_from": _r(release)} if release is not None and start < release < end else {})})
    folder = os.path.dirname(os.path.abspath(out))
    return {"format": FORMAT, "model": os.path.relpath(model.path, folder).replace(os.sep, "/"), "clip": clip,
            "root_joint": joint, "root_mode": mode,
            "traversal": {"kind": kind, **{name: [_r(v if TRAVERSAL_KINDS[kind].signed else max(v, 0.0))
                                                  for v in values] for name, values in ranges.items()}},
            "phases": phases, **({"contacts": contacts} if (contacts := _contacts(a, points, kind)) else {})}


def _given_range(name, values):
    """[LO, HI] as given for a traversal range: two finite numbers, 0 <= LO <= HI (metres), never
    clamped into shape (a range the user mistyped is refused, not silently changed)."""
    values = list(values)
    if not (len(values) == 2 and all(is_number(v) for v in values) and 0.0 <= values[0] <= values[1] <= LIMIT):
        shown = " ".join(f"{v:g}" if isinstance(v, (int, float)) else repr(v) for v in values)
        raise UsageError(f"--{name} LO HI: expected two numbers of metres from 0 to {LIMIT:g}, LO at most HI; "
                         f"got {shown}")
    return [float(v) for v in values]


def _contacts(a, points, kind):
    """Hands grab the target of the phase that ends as they plant; a foot planting at or after the last
    phase's end stands on its target; other feet stand on whatever is under them (design 5.1). A
    marker kind's target is the point itself (`normal` null): the designer put it where the hand goes.
    A limb the contact IK cannot bend (its joint without a parent and a grandparent: RobotExpressive's
    feet hang from the root bone) gets none."""
    marker = TRAVERSAL_KINDS[kind].found_by == "marker"
    parents = a.model.joints
    ends = {round(end, 4): (name, target) for name, _, end, target in points}
    last_name, _, last_end, last_target = points[-1]
    found = []
    last = math.floor(a.facts.seconds * 1e4) / 1e4   # rounding must not carry a window past the clip's end
    for p in a.facts.contacts:
        start, end = _r(p.start), min(_r(p.end), last)
        pos = a.joint(p.limb.joint, p.start)
        aimed = None
        if not p.limb.is_foot:
            aimed = next((ends[e] for e in ends if abs(e - p.start) <= 2.0 / a.fps), None)
        elif p.start >= last_end - 1e-9:
            aimed = (last_name, last_target)
        if end <= start or parents.get(p.limb.joint) is None or parents.get(parents[p.limb.joint]) is None:
            continue
        if aimed is not None:
            found.append({"joint": p.limb.joint, "start": start, "end": end, "touches": "target", "phase": aimed[0],
                          "offset": [_r(v) for v in pos - aimed[1]], **({"normal": None} if marker else {})})
        elif p.limb.is_foot:
            ground = a.root(p.start)[2]
            found.append({"joint": p.limb.joint, "start": start, "end": end, "touches": "surface",
                          "offset": [0.0, 0.0, _r(pos[2] - ground)]})
    return found


def _r(value):
    return round(float(value), 4)


def write(model, clip, kind, out, turn=None, height=None, depth=None, plan=None):
    """Write the proposed asset to `out` (through `plan`, an OutputPlan: by default one that reads the
    model) atomically, after checking that it loads; returns the loaded asset. A read-only `out` is kept
    and the asset goes beside it (OutputPlan.add), so the asset's `path` says where it went."""
    plan = OutputPlan({"model": model.path}) if plan is None else plan
    out = plan.target(out, "out")
    data = asset_data(model, clip, kind, out, turn, height, depth)
    WarpAsset.from_dict(data, os.path.abspath(out))   # refuse to write what would not load
    plan.write(out, dumps(data))
    return WarpAsset.load(out)
