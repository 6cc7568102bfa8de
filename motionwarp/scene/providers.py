"""Warp providers: vault and mantle targets found in the scene's real geometry (docs/design.md 7).

    probe = SceneProbe.from_geometry(render)            # or SceneProbe(your_bullet_world, mask)
    traversal = TraversalProvider(probe, [vault, mantle, mantle_high])
    found = traversal.find(actor)
    if found:
        warper.play(found.asset, found.targets)
    else:
        print(found.reason)

Which asset fits is data: each asset's `traversal` key (docs/design.md 5). Where a vault lands
and where a mantle stands are read from the clip itself, so a different clip needs no code.
"""
from typing import NamedTuple, Optional
import dataclasses
import functools

from panda3d.core import LQuaternion, NodePath, Point3, Vec3

from ..base import edits
from ..base.config import ContactIKSettings, MotionWarpSettings, ProviderSettings
from ..animation.motion import Motion
from ..base.errors import UsageError, shown
from ..base.records import frozen_record
from .kept import Judgement, JudgedLine, KeptAnswer, KeptCache, LineKey, Stamp, Stamped, kept_value, same_objects
from .measure import _INSIDE_EDGE, _OFF_TOP, ACROSS, LOOK_AHEAD, facing, heading, incline_deg, measure, nothing_near
from ..warp.assetdata import TRAVERSAL_KINDS, phase_count_problem
from ..warp.authored import authored_anchor
from ..warp.contacts import UP
from ..warp.refusal import Cause, Check
from ..warp.target import WarpTarget

_UP = Vec3(0, 0, 1)


@dataclasses.dataclass
class Interaction:
    """A traversal the character can do now: play `asset` on `targets` (one per phase)."""

    kind: str
    asset: object = dataclasses.field(repr=False)
    targets: list
    height: float
    depth: float
    close_edge: Point3
    far_edge: Point3          # None for a ledge deeper than the scan
    normal: Vec3              # the face's horizontal normal, toward the character
    node: NodePath            # the scene node hit
    distance: float           # from the character to the face
    landing: Optional[Point3] = None    # vaults: where the feet land
    prop: Optional[NodePath] = None     # markers: the prop the marker is placed on (the chooser's "same obstacle")

    def __bool__(self):
        return True


@dataclasses.dataclass
class Refusal:
    """Why the character cannot traverse what is in front (`node` is None when nothing is).

    `causes`: one `Cause` per reason, as data (what is wrong, the kind in words, the measured value, the
    limit, the unit: design 7, "Refusals are data"); `reason` is the sentence made from them (a game's
    own provider may give only a sentence: its one cause then). `too_far`: walking closer may offer
    it (a cause says the thing lies beyond the kind's reach, or the warper would refuse the targets
    found only for a stretch too long: design 7)."""

    reason: Optional[str] = None
    node: Optional[NodePath] = None
    distance: Optional[float] = None
    kind: Optional[str] = None
    numbers: dict = dataclasses.field(default_factory=dict)
    too_far: bool = False
    causes: tuple = ()
    prop: Optional[NodePath] = None     # markers: the prop the marker is placed on (the chooser's "same obstacle")

    def __post_init__(self):
        given = self._reason
        self.causes = tuple(self.causes) if self.causes else ((Cause(given),) if given is not None else ())
        self.too_far = bool(self.too_far or any(cause.too_far for cause in self.causes))

    @classmethod
    def of(cls, cause, node=None, distance=None, kind=None, numbers=(), prop=None):
        """A Refusal for one cause (a Cause, or a sentence with no number to keep), its numbers to 0.1 mm."""
        cause = cause if isinstance(cause, Cause) else Cause(cause)
        return cls(None, node, distance, kind, _with_value(cause, dict(numbers)), causes=(cause,), prop=prop)

    def __bool__(self):
        return False


def _with_value(cause, numbers):
    """`numbers` (a dict) and the cause's value under its name, each to 0.1 mm (None left out): a Refusal's numbers."""
    rounded = _rounded(numbers)
    _add_value(rounded, cause)
    return rounded


def _rounded(numbers):
    """`numbers` (a dict) each to 0.1 mm, None left out."""
    return {name: round(value, 4) for name, value in numbers.items() if value is not None}


def _add_value(numbers, cause):
    """Put the cause's value under its name in `numbers` (a dict), to 0.1 mm, when it has both."""
    if cause.name is not None and cause.value is not None:
        numbers[cause.name] = round(cause.value, 4)


def _said_once(refusal):
    """The sentence made from the causes, worked out when first read: a provider makes a refusal every
    frame the character walks up to something refused, and most are never shown."""
    if refusal._reason is None:
        refusal._reason = said(refusal.causes)
    return refusal._reason


def _give_reason(refusal, reason):
    refusal._reason = reason


# After the dataclass is made, so its fields and __init__ keep `reason` (given, or None: said from the causes).
Refusal.reason = property(_said_once, _give_reason, doc="The sentence a player reads (said from `causes` when not given).")  # type: ignore[assignment]


def said(causes):
    """Causes as one sentence, each once: "too high to vault (..) or mantle (..)" when they share their
    reason and each names its kind, else their sentences joined with "; " (in the order given)."""
    causes = list({cause.text: cause for cause in causes}.values())
    if (len(causes) > 1 and len({cause.reason for cause in causes}) == 1
            and all(cause.verb and cause.bracket is not None for cause in causes)):
        return f"{causes[0].reason} to " + " or ".join(f"{cause.verb} ({cause.bracket})" for cause in causes)
    return "; ".join(cause.text for cause in causes)


def _or_list(words):
    """ "a", "a or b", "a, b or c": things a refusal names as alternatives."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def nothing_in_front(verbs):
    """The cause of a provider that met nothing: "nothing to vault or mantle in front", with the kinds it
    looked for as data (`looked_for`), so a chooser names every provider's once."""
    verbs = tuple(dict.fromkeys(verbs))
    return Cause(f"nothing to {_or_list(verbs)} in front", looked_for=verbs)


NOTHING = nothing_in_front(("vault", "mantle"))
ACTOR_REMOVED = "the actor was removed"


def _metres(value):
    return f"{value:.2f} m"


class _Asked:
    """What every provider answers: `find(actor)` for a character as it stands, `find_at(pos, h)`.

    An Interaction is only offered where `MotionWarper.play` would accept it from where the character
    stands (design 4's refusals under `warp_settings`); else the warper's reason is the Refusal.
    A game asks every frame (for the prompt). On a static probe (`SceneProbe.static`), the last
    answer is kept and returned again (the same object: treat answers as read-only) while the
    character stays within SAME_POS metres and SAME_H degrees of where it was asked, at the same
    scale, with the same asset and settings objects, no edit counted (base/edits.py: an asset or
    settings edited in place is seen at once) and no `probe.changed()` since.
    """

    space = None
    _kept = None  # a KeptAnswer on a static probe
    _edits_checked = None  # the edit count at which the given assets' phases were last checked
    _warp_settings = None

    @property
    def warp_settings(self):
        """The MotionWarpSettings an Interaction must pass: the game's warper's (`warper.settings`),
        else the `motionwarp-*` PRC defaults, so the prompt agrees with what `play` accepts."""
        if self._warp_settings is None:
            self._warp_settings = MotionWarpSettings.from_prc()
        return self._warp_settings

    @warp_settings.setter
    def warp_settings(self, settings):
        if settings is not None and not isinstance(settings, MotionWarpSettings):
            raise UsageError(f"{type(self).__name__} warp_settings: expected a MotionWarpSettings (a "
                             f"MotionWarper's settings) or None, got {shown(settings)}")
        self._warp_settings = settings

    def find(self, actor):
        """An Interaction or a Refusal for `actor` as it stands now (its position, heading and scale); a
        removed actor is answered with a Refusal, as `MotionWarper.play` refuses it."""
        if actor.isEmpty():
            return Refusal(ACTOR_REMOVED)
        space = self.space if self.space is not None else actor.getTop()
        return self.find_at(actor.getPos(space), actor.getH(space), actor.getSx(space))

    def find_at(self, pos, h, scale=1.0):
        """An Interaction or a Refusal for a character whose feet are at `pos`, facing heading `h`,
        scaled by `scale` (its clips' motion with it)."""
        assets, settings = tuple(self._given), self._settings_objects()
        if self._edits_checked != edits.count:
            _check_edited(self, assets)
            self._edits_checked = edits.count
        kept, probe, values, objects = self._kept, self.probe, (edits.count, self._read_now()), assets + settings
        if kept is not None and probe.static and kept.matches(probe.version, pos, h, scale, objects, values):
            return kept.answer
        answer = self._offered(pos, h, scale, assets, settings)
        self._kept = (KeptAnswer(probe.version, pos[0], pos[1], pos[2], h, scale, objects, values, answer)
                      if probe.static else None)
        return answer

    def _settings_objects(self):
        """The settings a kept answer is made with (the objects: their fields' edits are counted)."""
        return (self.settings, self.warp_settings)

    def _read_now(self):
        """What a kept answer depends on that no edit count covers, read at every query (equality): nothing here."""
        return ()

    def _offered(self, pos, h, scale, assets, settings):
        return self._playable(self._answer(pos, h, assets), pos, h, scale)

    def _playable(self, answer, pos, h, scale):
        """`answer`, or, for an Interaction the warper would refuse to play from (pos, h) at `scale`,
        a Refusal with the warper's own reason (warp/refusal.py): asked only once targets are found."""
        if not answer:
            return answer
        problem = self._prepared(answer).cause(_pose(pos, h), scale, self.warp_settings)
        return answer if problem is None else _refused(answer, problem)

    def _prepared(self, answer):
        """The warper's Check of an Interaction's targets, resolved now (what no pose changes decided once)."""
        asset = answer.asset
        anchors = [_anchor(target, self.space) for target in answer.targets]
        return Check(asset, (asset.root_joint, asset.root_mode, (asset.clip,)), answer.targets, anchors, 1.0)


def _pose(pos, h):
    """(Point3, LQuaternion) of a character at `pos` facing heading `h`: the pose the warper's refusal walks
    from (the rotation shared by every pose of that heading: read only)."""
    return Point3(pos), _facing(h)


#: The horizontal direction of a heading (measure.facing), made once for the frames of a character walking
#: on along one heading (shared: read only).
_forward = functools.lru_cache(maxsize=64)(facing)


@functools.lru_cache(maxsize=64)
def _facing(h):
    """The rotation of heading `h`, made once for the frames of a character walking on along one heading."""
    quat = LQuaternion()
    quat.setHpr(Vec3(h, 0, 0))
    return quat


def _refused(answer, problem):
    """The Refusal of an Interaction the warper would not play, for the warper's Cause `problem`."""
    return Refusal.of(problem, answer.node, answer.distance, answer.kind, _sizes(answer), prop=answer.prop)


def _sizes(answer):
    """The numbers a refused Interaction keeps besides its cause's."""
    return {"height": answer.height, "depth": answer.depth}


def _anchor(target, space):
    """A target's (position, rotation) in the provider's space (`space`, else the followed node's top):
    a target riding a node (`follow`) is where that node is now."""
    if target.follow is None:
        return Point3(target.pos), target.local_quat()
    frame = space if space is not None else target.follow.getTop()
    return target.resolve(frame, frame)


class _Provider(_Asked):
    kind: Optional[str] = None

    @property
    def verb(self):
        """The kind as its reasons say it: "jump over" for jump_over (design 5.1)."""
        return TRAVERSAL_KINDS[self.kind].verb

    def __init__(self, probe, assets, space=None, *, need_assets=True, warp_settings=None, mirrored=False,
                 **settings):
        """`assets` is re-read at every query, so a live view (a dict's `values()`) follows edits.
        Without `need_assets` (a TraversalProvider's), none of this kind among them is no error.
        `warp_settings`: the game's MotionWarper's settings (see `warp_settings`). With `mirrored`, an
        edge whose nearer end lies on the right gets the chosen asset's mirrored twin (`_sided`)."""
        self.probe = probe
        self.mirrored = mirrored
        self._twins = KeptCache(_MOST_ASSETS)  # id(asset): asset.mirrored(), Stamped by the asset
        self.space = space
        self.warp_settings = warp_settings
        self.settings = ProviderSettings.from_prc(**settings)
        self._given = assets
        self._runs = KeptCache(_MOST_ASSETS)  # id(asset): its run, Stamped by its track and phases
        if need_assets and not self.assets:
            raise UsageError(f"no {self.kind} asset among {[getattr(a, 'clip', a) for a in assets]}: "
                             f"a {self.kind} asset has \"traversal\": {{\"kind\": \"{self.kind}\", ...}}")

    @property
    def assets(self):
        """The given assets of this provider's kind."""
        return self._own(self._given)

    def _read_now(self):
        """A kept answer is made with this mirroring (a plain attribute a game may set between queries)."""
        return (self.mirrored,)

    @property
    def max_height(self):
        """The highest obstacle any of the assets takes: how high to look for a top."""
        return _highest(self.assets)

    def _answer(self, pos, h, given):
        assets = self._own(given)
        return self._judge(measure(self.probe, self.settings, pos, h, _highest(assets)), assets)

    def _run(self, asset):
        """`read_run(asset)`, kept per asset: reading the clip's root track costs more than a ray. It is
        read again when the asset or its track is another object, or an edit was counted (base/edits.py)."""
        stamp = Stamp((asset, asset.track), (edits.count,))
        run = kept_value(self._runs, id(asset), stamp)
        if run is None:
            run = self.read_run(asset)
            self._runs.keep(id(asset), Stamped(stamp, run))
        return run

    def _stand_on_top(self, found, spot, refuse, verb):
        """The walkable floor on the top under `spot` with room for the capsule (a Point3), or a Refusal
        saying there is no room to `verb` on top."""
        radius, height, clearance = self.settings.capsule_radius, self.settings.capsule_height, self.settings.clearance
        # Down as far as a dip the top bridges (a sunk lid: measure.py), below the knee; where the spot
        # is in a groove or between two logs, on the walkable top beside it, as the top was measured.
        bottom = found.close_edge.z - max(self.settings.probe_step, self.settings.face_low)
        side = Vec3(found.inward.y, -found.inward.x, 0)
        for out in (0.0,) + ACROSS:
            at = spot + side * out
            floor = self.probe.ray(Point3(at.x, at.y, found.top + clearance), Point3(at.x, at.y, bottom))
            if floor is not None and incline_deg(floor.normal) <= self.settings.max_incline_deg:
                break
        else:
            return refuse(f"no room to {verb} on top")
        stand = Point3(floor.pos)
        ceiling = self.probe.ray(stand + _UP * clearance, stand + _UP * height)
        if ceiling is not None:
            room = ceiling.pos.z - stand.z
            return refuse(f"no head room on top ({_metres(room)} < {_metres(height)})", head_room=room)
        # The body from the top's height up: a rim around a sunk lid stands below the knee, beside the feet.
        body = Point3(stand.x, stand.y, max(stand.z, found.top))
        blocker = self.probe.capsule_overlaps(radius, height, body + _UP * (height / 2 + clearance))
        if blocker is not None:
            return refuse(f"no room to {verb} on top (blocked by {blocker.getName() or 'something'})")
        return stand

    def _own(self, given):
        """The assets of this provider's kind among `given`."""
        return [asset for asset in given if asset.traversal is not None and asset.traversal.kind == self.kind]

    def judge(self, found):
        """The answer for a Measurement (shared when several providers look at the same obstacle)."""
        return self._judge(found, self.assets)

    #: Whether the targets found for a measurement read its distance only to report it: then they are
    #: kept with a kept measurement and answered again (a copy, with the distance of the measurement's copy).
    keeps_answers = True

    def _judge(self, found, assets):
        if found is None:
            return Refusal(causes=(NOTHING,))
        refuse = self._refuser(found)
        if found.approach_deg > self.settings.max_approach_deg:
            return refuse(f"not facing it ({found.approach_deg:.1f}° > {self.settings.max_approach_deg:.0f}°)",
                          approach_deg=found.approach_deg)
        if found.too_tall is not None:
            return refuse(Cause("too high", self.verb, found.too_tall, _highest(assets), name="height"))
        if found.taller_than is not None:
            return refuse(f"too high to {self.verb} (more than {_metres(found.taller_than)})",
                          height=found.taller_than)
        if found.close_edge is None and found.incline_deg is None:
            return refuse("no top in line with the face (its corner is in the way)")
        if found.close_edge is None:
            return refuse(f"top too steep ({found.incline_deg:.0f}° > {self.settings.max_incline_deg:.0f}°)",
                          incline_deg=found.incline_deg)
        asset = self._choose(found, assets)
        if isinstance(asset, Refusal):
            return asset
        return self._kept_targets(found, self._sided(found, asset), refuse)

    def _sided(self, found, asset):
        """`asset`, or with `mirrored` its mirrored twin (kept while the asset is unchanged) when the close
        edge's nearer end lies to the character's right: source assets lead with the right hand, so
        the twin leads with the left, away from that end (design 7, "Mirrored assets")."""
        if not self.mirrored or asset.mirror is not None or _nearer_end(self.probe, self.settings, found) <= 0:
            return asset
        stamp = _asset_stamp(asset)
        twin = kept_value(self._twins, id(asset), stamp)
        if twin is None:
            twin = asset.mirrored()
            self._twins.keep(id(asset), Stamped(stamp, twin))
        return twin

    def _kept_targets(self, found, asset, refuse):
        """`_targets` (rays, sweeps and overlaps for the room), kept with a kept measurement (`_kept_with`)."""
        if not self.keeps_answers:
            return self._targets(found, asset, refuse)
        answer, again = self._kept_with(found, asset, self._targets, refuse)
        return _moved(answer, found.distance) if again else answer

    def _kept_with(self, found, asset, make, refuse):
        """(`make(found, asset, refuse)`, whether it was kept): kept with a kept measurement (design 7, "Kept
        measurements") for this asset (the same object, its ranges, track and phases unchanged) and these
        settings; a kept value was made at the measurement's own distance."""
        kept = found.answers
        if kept is None:
            return make(found, asset, refuse), False
        key, stamp = type(self), _asset_stamp(asset, self.settings)
        held = kept.get(key)
        if held is not None and held.stamp.same(stamp):
            return held.value, True
        held = kept[key] = Stamped(stamp, make(found, asset, refuse))
        return held.value, False

    def _refuser(self, found):
        def refuse(cause, **numbers):
            numbers = {"height": found.height if found.top is not None else None, "depth": found.depth, **numbers}
            return Refusal.of(cause, found.node, found.distance, self.kind, numbers)
        return refuse

    def _choose(self, found, assets):
        """The asset whose ranges hold the measured size, centred nearest it; else a Refusal with the numbers."""
        height, depth = found.height, found.depth
        fitting = [a for a in assets if a.traversal.fits(height, depth)]
        if fitting:
            return min(fitting, key=lambda a: abs(a.traversal.centre[0] - height) + abs(a.traversal.centre[1] - depth))
        ranges = [a.traversal for a in assets]
        high = max(t.height[1] for t in ranges)
        low = min(t.height[0] for t in ranges)
        deep = max(t.depth[1] for t in ranges)
        shallow = min(t.depth[0] for t in ranges)
        if height > high:
            cause = Cause("too high", self.verb, height, high, name="height")
        elif height < low:
            cause = Cause("too low", self.verb, height, low, name="height")
        elif depth > deep:
            cause = Cause("too deep", self.verb, depth, deep, name="depth")
        elif depth < shallow:
            cause = Cause("too shallow", self.verb, depth, shallow, name="depth")
        else:
            cause = f"no {self.verb} clip fits {_metres(height)} high and {_metres(depth)} deep"
        return self._refuser(found)(cause)


#: How far along the close edge its ends are looked for, to either side, and in what steps (metres).
END_REACH, END_STEP = 1.2, 0.05
#: How much nearer one end must be than the other to count as the nearer (metres): a crate met in its
#: middle, its ends a few centimetres apart from a step off the line, is met in the middle.
END_MARGIN = 0.1


def _nearer_end(probe, settings, found):
    """+1 when the close edge's nearer end (within END_REACH of where the character's line meets it) is
    to the right of the character, -1 when to the left, 0 when neither end is that near or both are as
    near (within END_MARGIN)."""
    right = Vec3(found.inward.y, -found.inward.x, 0)
    behind = found.close_edge + found.inward * _INSIDE_EDGE

    def end(side):
        steps = round(END_REACH / END_STEP)
        for i in range(1, steps + 1):
            at = behind + right * (side * i * END_STEP)
            if probe.drop(at.x, at.y, found.top + settings.probe_step, found.top - _OFF_TOP) is None:
                return i
        return steps + 1
    to_right, to_left = end(1.0), end(-1.0)
    margin = round(END_MARGIN / END_STEP)
    return (to_left - to_right >= margin) - (to_right - to_left >= margin)


def _check_edited(provider, assets):
    """A UsageError for an asset edited in place into one its kind cannot be (a phase removed): the
    loader refuses such a file, and the targets would be placed from phases that are not there."""
    for asset in assets:
        traversal = getattr(asset, "traversal", None)
        problem = phase_count_problem(traversal.kind, len(asset.phases)) if traversal is not None else None
        if problem:
            raise UsageError(f"{type(provider).__name__}: {asset.path or asset.clip}: traversal.kind: {problem} "
                             f"(its phases were edited in place)")


def _joined(answers, own, distance, problems=()):
    """The refusals of every kind as one, at `distance`: the first's node, every kind's numbers and causes,
    and the kind walking closer may offer, when one may (the chooser ranks it: design 7). `own` is each
    answer's `_own_numbers` (a Judgement keeps them). An Interaction among `answers` joins for the warper's
    Cause of it, the next of `problems`, as its `_refused` would (without making that Refusal: a character
    walking up to what the warper refuses is answered so every frame)."""
    numbers, causes, coming, far, problems = {}, [], None, False, iter(problems)
    for answer, numbers_of_its_own in zip(answers, own):
        numbers.update(numbers_of_its_own)
        if answer:
            cause = next(problems)
            _add_value(numbers, cause)
            causes.append(cause)
            too_far = cause.too_far
        else:
            causes += answer.causes
            too_far = answer.too_far
        if too_far and not far:
            coming, far = answer.kind, True
    return Refusal(None, answers[0].node, distance, coming, numbers, far, tuple(causes))


def _own_numbers(answer):
    """What an answer brings to the numbers of a joined refusal before any cause of the warper's: a refusal's
    own numbers, an Interaction's sizes to 0.1 mm (`_refused`'s, its cause's value put in as it joins)."""
    return _rounded(_sizes(answer)) if answer else answer.numbers


def _moved(answer, distance):
    """A copy of a kept answer (shallow, as `copy.copy`: shared targets and causes) with the distance of
    the measurement's copy it is answered for."""
    again = object.__new__(type(answer))
    again.__dict__.update(answer.__dict__)
    again.distance = distance
    return again


def _asset_stamp(asset, settings=None):
    """The Stamp of what an answer reads of an asset (and `settings`): the objects, and the edit count
    (an asset's ranges or phases edited in place are seen at once)."""
    return Stamp((asset, asset.track, settings), (edits.count,))


#: Assets whose runs and mirrored twins a provider keeps (more are assets replaced by edits: all forgotten).
_MOST_ASSETS = 64


def _highest(assets):
    return max(asset.traversal.height[1] for asset in assets)


def authored_target(asset, index):
    """Phase `index`'s target point in the clip's own space: where the clip was authored to meet it
    (its aligned joint and offsets included: warp/authored.py)."""
    return Vec3(*authored_anchor(asset, index).pos)


def authored_root(asset, seconds):
    return Vec3(*(float(v) for v in asset.track.position(seconds * asset.track.fps)))


#: Half the length of a planted foot (metres): how far round each foot `_room_for_the_feet` wants room.
FOOT_RADIUS = 0.1


class PlantedFoot(NamedTuple):
    """A foot the clip plants: where (clip space, seen from a phase's target), and its ankle's authored
    height above what it stands on (metres)."""

    spot: Vec3
    ankle: float


def planted_feet(asset):
    """[PlantedFoot] for the feet the clip stands on as its first phase ends (its surface contacts whose
    window holds that end), seen from the first phase's target as authored (x right, y forward)."""
    anchor, track = authored_anchor(asset, 0).inverse(), asset.track
    end = asset.phases[0].end
    return [PlantedFoot(Vec3(*(anchor * track.motion(contact.start * track.fps) * Motion(contact.touchdown)).pos),
                        contact.offset[2])
            for contact in asset.contacts if contact.touches == "surface" and contact.start <= end <= contact.end]


def _clear_of_the_edge(run, least):
    """`run` (clip space) carried forward to at least `least` metres: a clip authored in place (its
    root barely moves) still lands, or stands, where the capsule is clear of the edge."""
    return run if run.y >= least else Vec3(run.x, least, run.z)


def _across(found, run):
    """A clip-space offset (x right, y forward) turned into the obstacle's frame (y = inward)."""
    inward = found.inward
    right = Vec3(inward.y, -inward.x, 0)
    return right * run.x + inward * run.y


#: The most a vault's close-edge target goes below the measured top, to where a hand plants (metres: the
#: contact IK's default surface reach, `motionwarp-ik-surface-reach`; a surface farther down is not one
#: the hand goes to, and the target keeps the top's height).
HAND_DROP = 0.15


#: How far above the measured top a hand's surface is looked for (metres: the contact IK's default
#: `motionwarp-ik-ray-above`, from where it puts a palm on whatever it finds under it).
HAND_RAY_ABOVE = ContactIKSettings.ik_ray_above
#: The most a mantle's hand may be over a surface higher than the top (metres): the contact IK puts the palm
#: there. Measured, not derived (issue 26, the Nature Kit's stairs turned 90 degrees): at x2 (a 1.10 m top)
#: the right hand on the next step 0.37 m up plays within the issue's goals (hips 70 mm, feet +1.1 mm); at x3
#: (1.65 m) on the one 0.49 m up the arm cannot reach it with the feet on the floor (feet 405 mm over it).
HAND_RISE = 0.4


def _hand_points(found, asset):
    """[(joint, world point)] where `asset`'s hands touch down on the close edge as authored: its target
    contacts on the first phase that face up, at their touch or offset point (x right, y inward)."""
    edge, inward = found.close_edge, found.inward
    right = Vec3(inward.y, -inward.x, 0)
    first = asset.phases[0].name
    return [(contact.joint, edge + right * x + inward * y)
            for contact, (x, y, _) in ((contact, contact.touch or contact.offset) for contact in asset.contacts
                                       if contact.touches == "target" and contact.phase == first
                                       and contact.normal == UP)]


class VaultProvider(_Provider):
    """Close edge, far edge and landing of an obstacle to vault, with room along the flight and at the landing."""

    kind = "vault"

    def _hands_edge(self, found, asset):
        """The close edge at the height of the lowest surface the asset's hands plant on there (its target
        contacts on the first phase, facing up, at their touch or offset point), at most HAND_DROP below the
        top or below another hand's surface: the top is as high as the body must clear (measure.py), the
        close edge's target is where the hands push from (design 7; issue 26: a gate lower than its posts, a
        rock sloped across the way), and from a target the contact IK takes a hand down to a surface up to
        HAND_DROP below it (a rock whose hands plant 14 and 26 cm below the top: the target at the higher,
        the other hand went 12 cm down and the hips with it)."""
        edge = found.close_edge
        points = [at for _, at in _hand_points(found, asset)]
        low = edge.z
        while True:  # each pass lowers `low` to a hand's surface, one of finitely many: it ends
            hits = (self.probe.drop(at.x, at.y, found.top + self.settings.probe_step, low - HAND_DROP) for at in points)
            lowest = min((hit[0] for hit in hits if hit is not None), default=low)
            if lowest >= low:
                return Point3(edge.x, edge.y, low)
            low = lowest

    @staticmethod
    def read_run(asset):
        """From the far edge to the landing, as the clip travels it (clip space)."""
        return authored_target(asset, 2) - authored_target(asset, 1)

    def _targets(self, found, asset, refuse):
        radius, clearance = self.settings.capsule_radius, self.settings.clearance
        if found.far_edge is None:
            return refuse(f"too deep to {self.verb} (more than {_metres(found.depth)})")
        run = _clear_of_the_edge(self._run(asset), radius + clearance)
        ahead = found.far_edge + _across(found, run)
        # The obstacle's own far side (a barrel's far half, a table's legs: the same scene node) is no landing
        # and blocks none: the landing moves on past it, a probe step at a time, as far as the scan reaches.
        further = 0.0
        while True:
            landing = self._landing(found, ahead + found.inward * further, refuse)
            if not isinstance(landing, NodePath) or landing != found.node:
                break
            further += self.settings.probe_step
            if further > self.settings.max_scan_depth:
                past = (ahead - found.far_edge).getXy().length() + further
                return refuse(f"no landing past it ({found.node.getName() or 'it'} goes on more than "
                              f"{_metres(past)} past the far edge)", landing_distance=past)
        if isinstance(landing, NodePath):
            past = (ahead + found.inward * further - found.far_edge).getXy().length()
            return refuse(f"landing blocked by {landing.getName() or 'something'} "
                          f"({_metres(past)} past the far edge)", landing_distance=past)
        if isinstance(landing, Refusal):
            return landing
        h = heading(found.inward)
        targets = [WarpTarget(self._hands_edge(found, asset), h=h), WarpTarget(found.far_edge, h=h),
                   WarpTarget(landing, h=h)]
        return Interaction(self.kind, asset, targets, found.height, found.depth, found.close_edge, found.far_edge,
                           found.normal, found.node, found.distance, landing=landing)


    def _landing(self, found, ahead, refuse):
        """The landing under `ahead` (a Point3) with room along the flight to it, the NodePath in the way, or
        a Refusal (no ground, a slope, no head room over the top)."""
        radius, height, clearance = self.settings.capsule_radius, self.settings.capsule_height, self.settings.clearance
        ground = self.probe.ray(Point3(ahead.x, ahead.y, found.far_edge.z + clearance),
                                Point3(ahead.x, ahead.y, found.ground - self.settings.max_drop))
        if ground is None:
            return refuse(f"no landing ground (nothing within {_metres(self.settings.max_drop)} below the feet)")
        if ground.node == found.node and ground.pos.z > found.ground + self.settings.face_low:
            return found.node   # still on the obstacle itself
        incline = incline_deg(ground.normal)
        if incline > self.settings.max_incline_deg:
            return refuse(f"no landing ground (a {incline:.0f}° slope)", landing_incline_deg=incline)
        landing = Point3(ground.pos)
        # The flight: across above the top to over the landing, then down onto it.
        over = found.top + radius + clearance
        above_close = Point3(found.close_edge.x, found.close_edge.y, over)
        above_landing = Point3(landing.x, landing.y, over)
        across = self.probe.sweep_sphere(radius, above_close, above_landing)
        if across is not None and (across.pos - found.far_edge).dot(found.inward) < 0:
            room = max(0.0, across.pos.z - found.top)
            return refuse(f"no head room over the top ({_metres(room)})", head_room=room)
        if across is not None and across.node == found.node:
            # The obstacle itself rises past its far edge (a tall rock's higher step, a broken column's
            # piece): no landing further on passes over it, whatever the scan's depth.
            room, past = max(0.0, across.pos.z - found.top), (across.pos - found.far_edge).dot(found.inward)
            return refuse(f"no head room over the top ({found.node.getName() or 'it'} rises at least {_metres(room)} above it "
                          f"{_metres(past)} past the far edge)", head_room=room, landing_distance=past)
        if across is not None:
            return across.node
        # down onto the landing, when it lies below the top (a sweep needs a length)
        down = (self.probe.sweep_sphere(radius, above_landing, landing + _UP * (radius + clearance))
                if found.top - landing.z > 1e-6 else None)
        if down is not None:
            return down.node
        blocker = self.probe.capsule_overlaps(radius, height, landing + _UP * (height / 2 + clearance))
        return landing if blocker is None else blocker


class MantleProvider(_Provider):
    """The ledge top of an obstacle to climb onto, with room for the feet the clip plants before the face
    and room to stand on top; for an asset with a second phase (its stand on top), the floor on the top
    where the clip ends standing too."""

    kind = "mantle"

    @staticmethod
    def read_run(asset):
        """From the grab on the ledge to where the clip ends standing (clip space)."""
        return authored_root(asset, asset.duration) - authored_target(asset, 0)

    def _targets(self, found, asset, refuse):
        radius, clearance = self.settings.capsule_radius, self.settings.clearance
        run = _clear_of_the_edge(self._run(asset), radius + clearance)
        needed = run.y + radius
        if found.depth < needed:
            return refuse(f"no room to stand on top ({_metres(found.depth)} deep < {_metres(needed)})", room=needed)
        cramped = self._room_for_the_feet(found, asset, refuse)
        if cramped is None:
            cramped = self._room_for_the_hands(found, asset, refuse)
        if cramped is not None:
            return cramped
        stand = self._stand_on_top(found, found.close_edge + _across(found, run), refuse, "stand")
        if isinstance(stand, Refusal):
            return stand
        targets = [WarpTarget(found.close_edge, h=heading(found.inward))]
        if len(asset.phases) > 1:   # its stand on top: the root ends on the floor found there (a sunk lid's panel)
            targets.append(WarpTarget(stand, h=heading(found.inward)))
        return Interaction(self.kind, asset, targets, found.height, found.depth, found.close_edge, found.far_edge,
                           found.normal, found.node, found.distance)

    def _room_for_the_feet(self, found, asset, refuse):
        """None, or a Refusal when a foot the clip plants as its first phase ends (before the face) has no
        room there: what it would stand on (the first surface under the knee, `face_low`) is steeper than
        `max_incline_deg` (a rock's face bulging out over it), or the obstacle takes up its leg from the
        ankle to the knee above that (a lower log of a stack, a rock jutting out below the knee, where
        the face sweep does not look). A floor found there that is walkable the foot stands on (a kerb,
        a lower log under the knee), as the contact IK puts it."""
        knee = self.settings.face_low
        for foot in planted_feet(asset):
            at = found.close_edge + _across(found, foot.spot)
            floor = self.probe.ray(Point3(at.x, at.y, found.ground + knee), Point3(at.x, at.y, found.ground - knee))
            if floor is None or foot.ankle >= knee:
                continue
            before = -foot.spot.y
            incline = incline_deg(floor.normal)
            if incline > self.settings.max_incline_deg:
                return refuse(f"no room for the feet before it (a {incline:.0f}° slope where the {self.verb} plants "
                              f"them, {_metres(before)} before the edge)", feet_before_edge=before, feet_incline_deg=incline)
            leg = Point3(at.x, at.y, floor.pos.z + (foot.ankle + knee) / 2)
            blocker = self.probe.capsule_overlaps(min(FOOT_RADIUS, (knee - foot.ankle) / 2), knee - foot.ankle, leg)
            if blocker is not None:
                return refuse(f"no room for the feet before it ({blocker.getName() or 'something'} is where the "
                              f"{self.verb} plants them, {_metres(before)} before the edge)", feet_before_edge=before)
        return None

    def _room_for_the_hands(self, found, asset, refuse):
        """None, or a Refusal when a hand the clip plants on the ledge top is over a surface more than
        HAND_RISE above the top (a higher step beside the ledge, within HAND_RAY_ABOVE): the contact IK would
        put the palm up there, the arm cannot reach it with the other hand on the top and the feet on the
        floor, and the hips lift the feet off it (issue 26: the Nature Kit's stairs at x3, the right hand
        over the next step 0.49 m up, the feet 405 mm over the floor)."""
        for joint, at in _hand_points(found, asset):
            hit = self.probe.drop(at.x, at.y, found.top + HAND_RAY_ABOVE, found.top)
            rise = hit[0] - found.top if hit is not None else 0.0
            if rise > HAND_RISE:
                return refuse(f"no room for the hands on top (a step {_metres(rise)} above it under {joint})",
                              hands_rise=rise)
        return None


class JumpOverProvider(VaultProvider):
    """A jump over what a vault would cross: the same close edge, far edge and landing."""

    kind = "jump_over"


@frozen_record(eq=False)
class _Kinds:
    """What a TraversalProvider asks of the assets given with the settings objects (`objects`: the two joined,
    a fixed count of settings after the assets) and `values` (the edit count and each kind's mirroring):
    [(provider, its assets)] of the kinds among them, the highest top they take, the Refusal when nothing is
    in front (one object: a character on open ground is answered with it every frame), and the Stamp a
    judgement is kept with."""

    objects: tuple
    values: tuple
    asked: list
    highest: float
    nothing: Optional[Refusal]
    stamp: Stamp


class TraversalProvider(_Asked):
    """Vault if possible, else mantle, else jump over, on one measurement; refusals are joined. Any
    kind may be missing among the assets (a character with only a jump). Jumps onto ledges and
    across gaps are JumpProvider's (scene/jumps.py)."""

    KINDS = (VaultProvider, MantleProvider, JumpOverProvider)

    def __init__(self, probe, assets, space=None, *, warp_settings=None, mirrored=False, **settings):
        """`assets` as for the providers: re-read at every query; one of some kind is needed. `mirrored`:
        each kind offers the mirrored twin by the edge's side (see _Provider)."""
        self.providers = [kind(probe, assets, space, need_assets=False, mirrored=mirrored, **settings)
                          for kind in self.KINDS]
        self.probe, self.space, self._given = probe, space, assets
        self.warp_settings = warp_settings
        self.settings = self.providers[0].settings
        if not any(provider.assets for provider in self.providers):
            raise UsageError(f"no {self._kinds()} asset among {[getattr(a, 'clip', a) for a in assets]}: a "
                             f"traversal asset has \"traversal\": {{\"kind\": ..., ...}}")
        self._sorted = None   # the _Kinds of the assets last given

    def _kinds(self, providers=None):
        return _or_list([provider.verb for provider in (providers or self.providers)])

    def _settings_objects(self):
        return (self.settings, self.warp_settings, *[provider.settings for provider in self.providers])

    def _read_now(self):
        """A kept answer is made with each kind's mirroring (plain attributes a game may set between queries)."""
        return tuple(provider.mirrored for provider in self.providers)

    def _asked(self, given, settings):
        """The _Kinds asked of `given`, kept while the same assets and `settings` objects are given, nothing
        is edited and each kind mirrors as before (an open-ground query and a walking-up frame are mostly this)."""
        kept, values = self._sorted, (edits.count, *[provider.mirrored for provider in self.providers])
        if kept is None or kept.values != values or not same_objects(given + settings, kept.objects):
            asked = [(provider, assets) for provider in self.providers for assets in [provider._own(given)] if assets]
            highest = max((_highest(assets) for _, assets in asked), default=0.0)
            # named by the kinds it has assets for: a character that only jumps over things
            nothing = Refusal(causes=(nothing_in_front([provider.verb for provider, _ in asked]),)) if asked else None
            kept = self._sorted = _Kinds(given + settings, values, asked, highest, nothing, self._stamp(asked, settings))
        return kept

    #: The last kept measurement's line and each kind's judgement of it (a JudgedLine), on a static probe.
    _line = None

    def _offered(self, pos, h, scale, given, settings):
        """The first kind whose Interaction the warper would play: a vault it would refuse gives way to a mantle.

        A character walking on along the line of the last kept measurement (design 7, "Kept
        measurements") is answered from that measurement's judgement without asking the probe: only
        the warper's refusal of the targets found reads where it stands."""
        kinds = self._asked(given, settings)
        asked, highest, stamp = kinds.asked, kinds.highest, kinds.stamp
        if not asked:
            return Refusal(f"no {self._kinds()} asset to traverse with")
        pos = Point3(pos)
        walked = self._line
        along = self._along(walked, pos, h, stamp, highest) if walked is not None else None
        if along is not None:
            return self._verdict(walked.judgement, walked.line.found.distance - along, pos, h, scale)
        # open ground: nothing near even as far as the look beyond reach goes, so neither measurement is made
        if self.settings.reach < LOOK_AHEAD and nothing_near(self.probe, self._far_settings(), pos, facing(h)):
            return kinds.nothing
        found = measure(self.probe, self.settings, pos, h, highest)
        if found is None:
            beyond = self._beyond_reach(pos, h, asked, highest)
            return beyond if beyond is not None else kinds.nothing
        judgement = self._judged(found, asked, stamp)
        line = found.kept_line()
        self._line = JudgedLine(self.probe.version, line, stamp, judgement) if line is not None else None
        return self._verdict(judgement, found.distance, pos, h, scale)

    @staticmethod
    def _stamp(asked, settings):
        """What each kind's judgement reads besides the measurement: the settings objects (`find_at`'s), the
        mirroring, the very asset objects with their tracks, and the edit count (their fields)."""
        objects, values = list(settings), [edits.count]
        for provider, assets in asked:
            values.append(provider.mirrored)
            for asset in assets:
                objects += (asset, asset.track)
        return Stamp(tuple(objects), tuple(values))

    def _along(self, walked, pos, h, stamp, highest):
        """How far along the JudgedLine `walked` the character at `pos` facing `h` stands, when its kept
        measurement holds there (the same line and file as `measure` looks up, the same judgement); else None."""
        line = walked.line
        if not self.probe.static or walked.version != self.probe.version or not walked.stamp.same(stamp):
            return None
        along = line.along(pos, h, self.settings.reach, highest)
        if along is None or not (line.surely_filed(pos, h)
                                 or (line.key.h, line.key.offset) == LineKey.placed(pos, h, _forward(h))):
            return None
        return along

    def _verdict(self, judgement, distance, pos, h, scale):
        """The first of a Judgement's answers (at `distance`) the warper would play from (pos, h) at
        `scale`, the kinds after it not judged; else their refusals joined (the judgement's own when none
        found targets)."""
        if judgement.refusal is not None:
            return _moved(judgement.refusal, distance)
        problems, answers, numbers, pose, settings = [], [], [], None, self.warp_settings
        for index in range(judgement.count):
            answer, check, own = judgement.kind(index)
            if check is not None:   # an Interaction
                pose = pose or (pos, _facing(h))   # `pos`: _offered's own Point3
                problem = check.cause(pose, scale, settings)
                if problem is None:
                    return _moved(answer, distance)
                problems.append(problem)
            answers.append(answer)
            numbers.append(own)
        if not problems:   # no kind found targets: the same refusal every frame but its distance
            judgement.refusal = _joined(answers, numbers, distance)
            return _moved(judgement.refusal, distance)
        return _joined(answers, numbers, distance, problems)

    def _judged(self, found, asked, stamp):
        """The Judgement of `found` (each kind judged as a verdict asks for it), kept once per kept
        measurement (design 7, "Kept measurements") for the same `stamp` (`_stamp`)."""
        kept = found.answers
        if kept is not None:
            entry = kept.get(TraversalProvider)
            if entry is not None and entry.stamp.same(stamp):
                return entry.value
        judgement = Judgement(len(asked), lambda index: self._kind(found, *asked[index]))
        if kept is not None:
            kept[TraversalProvider] = Stamped(stamp, judgement)
        return judgement

    def _kind(self, found, provider, assets):
        """One kind's entry of a Judgement of `found`: `provider`'s answer with `assets`, the warper's Check of
        its targets (None for a refusal) and its numbers for the joined refusal."""
        answer = provider._judge(found, assets)
        return answer, self._prepared(answer) if answer else None, _own_numbers(answer)

    _far = None   # the settings with reach LOOK_AHEAD, Stamped by the settings they were made from

    def _far_settings(self):
        """The settings with `reach` LOOK_AHEAD, made again only when the settings (object or values) change:
        a character on open ground asks for them every frame (its Stamp's one object and value compared
        directly: making a Stamp to compare was a tenth of that frame)."""
        far = self._far
        if far is None or far.stamp.objects[0] is not self.settings or far.stamp.values[0] != edits.count:
            far = self._far = Stamped(Stamp((self.settings,), (edits.count,)),
                                      dataclasses.replace(self.settings, reach=LOOK_AHEAD))
        return far.value

    def _beyond_reach(self, pos, h, asked, highest):
        """"too far to vault (2.30 m > 2.00 m)" for what lies beyond `reach` but within LOOK_AHEAD (the face
        sweep's least length, so no longer sweep), faced, with a top, and the size an asset of some kind
        takes (the first such kind), or None: walking closer offers it (design 7, One chooser)."""
        reach = self.settings.reach
        if reach >= LOOK_AHEAD:
            return None
        far = measure(self.probe, self._far_settings(), pos, h, highest)
        if (far is None or far.distance > LOOK_AHEAD or far.close_edge is None or far.too_tall is not None
                or far.taller_than is not None or far.approach_deg > self.settings.max_approach_deg):
            return None
        for provider, assets in asked:
            if any(asset.traversal.fits(far.height, far.depth) for asset in assets):
                return Refusal.of(Cause("too far", provider.verb, far.distance, reach, name="distance", too_far=True),
                                  far.node, far.distance, provider.kind, {"height": far.height, "depth": far.depth})
        return None

