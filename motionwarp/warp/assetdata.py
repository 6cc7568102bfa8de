"""Warp asset files parsed into validated plain data, without a model (docs/design.md 5).

Parsing checks everything a `*.warp.json` says on its own: keys, types, ranges, phase order,
traversal, contacts. What needs the model (its clips, joints, the clip's length) is checked
when the parsed data is bound to a loaded model (`WarpAsset.bind`). No Panda3D here.
"""
import dataclasses
import os
import typing

from ..animation.rootmotion import ROOT_MODES
from .contacts import read_contacts
from ..base.edits import Edited
from ..base.errors import shown
from ..base.jsonfields import FieldChecker, is_number

FORMAT = "motionwarp.asset/1"
#: How a phase turns the character (docs/design.md 4, Rotation): to the target's rotation, to face
#: the target point, or to turn its back on it.
ROTATION_MODES = ("target", "facing", "opposite_facing")


class _Limit(typing.NamedTuple):
    """The range of one optional number of a phase; a None default: the limit is off unless given."""

    default: typing.Optional[float]
    low: typing.Optional[float]
    low_allowed: bool   # whether `low` itself is allowed
    high: typing.Optional[float]   # None: no upper bound
    unit: str           # what the number is, for errors
    off: str = "no limit"   # what null means, for errors (a None default)


#: The optional numbers of a phase beyond its offsets and rates (docs/design.md 5.1).
PHASE_LIMITS = {
    "rotation_time": _Limit(1.0, 0.0, False, 1.0, "the fraction of the phase the turn takes"),
    "max_turn_rate": _Limit(None, 0.0, False, None, "degrees per second"),
    "facing_min_distance": _Limit(0.1, 0.0, True, None, "metres over the ground"),
    "switch_off_distance": _Limit(None, 0.0, False, None, "metres"),
    "switch_off_angle": _Limit(None, 0.0, False, 180.0, "degrees"),
    "max_speed": _Limit(None, 0.0, False, None, "metres per second"),
    "warp_from": _Limit(None, 0.0, True, None, "clip seconds", "from the phase's start"),
}
_TOP_KEYS = {"format", "model", "clip", "root_joint", "root_mode", "phases", "traversal", "contacts", "pose_match"}
_PHASE_KEYS = {"name", "start", "end", "t_offset", "r_offset", "min_rate", "max_rate",
               "warp_translation", "warp_rotation", "axes", "align_joint", "rotation", "defer_rise"} | set(PHASE_LIMITS)


@dataclasses.dataclass(frozen=True)
class TraversalKind:
    """What a `traversal.kind` means (docs/design.md 5.1): the targets its phases warp to, in order,
    who finds them, what its `height` and `depth` ranges measure, and how a player reads it."""

    #: The kind in the words of reasons and prompts ("jump across" for `jump_gap`): players read these.
    verb: str
    phases: tuple
    #: "geometry": a provider measures the level's shapes; "marker": a level designer placed the target.
    found_by: str
    #: What `height` measures, relative to the character's feet.
    height: str
    #: What `depth` measures; None: the kind has no depth (`depth` may be left out).
    depth: typing.Optional[str] = None
    #: Whether `height` may be below 0 (a landing lower than the take-off, an item in a pit).
    signed: bool = False
    #: Marker kinds: phases after these warp to the marker's child named like the phase, or where
    #: the clip itself goes relative to the marker.
    more_phases: bool = False
    #: Phases the kind may add after its own, in order, each with its target found by the provider
    #: (the mantle's stand on top: where the root ends on the top, a sunk lid's panel).
    optional: tuple = ()


TRAVERSAL_KINDS = {
    "vault": TraversalKind("vault", ("close edge", "far edge", "landing"), "geometry", "top above the feet",
                           "top from close to far edge"),
    "mantle": TraversalKind("mantle", ("ledge top",), "geometry", "top above the feet", "top from close to far edge",
                            optional=("stand on top",)),
    "jump_gap": TraversalKind("jump across", ("take-off edge", "landing across"), "geometry",
                              "landing above the take-off edge (below: negative)", "gap from edge to edge", signed=True),
    "jump_onto": TraversalKind("jump onto", ("take-off", "landing on top"), "geometry", "top above the feet",
                               "top from close to far edge"),
    "jump_over": TraversalKind("jump over", ("close edge", "far edge", "landing"), "geometry", "top above the feet",
                               "top from close to far edge"),
    "sit": TraversalKind("sit", ("seat",), "marker", "marker above the feet", signed=True, more_phases=True),
    "pick_up": TraversalKind("pick up", ("grab",), "marker", "marker above the feet", signed=True, more_phases=True),
    "use": TraversalKind("use", ("hand",), "marker", "marker above the feet", signed=True, more_phases=True),
}


@dataclasses.dataclass
class WarpPhase(Edited):
    """One window of clip time in which the character is warped toward one target point."""

    TUPLES = frozenset({"t_offset", "r_offset", "align_offset"})

    name: str
    start: float
    end: float
    t_offset: tuple = (0.0, 0.0, 0.0)
    r_offset: tuple = (0.0, 0.0, 0.0)
    min_rate: float = 1.0
    max_rate: float = 1.0
    warp_translation: bool = True
    warp_rotation: bool = True
    axes: str = "xyz"
    align_joint: typing.Optional[str] = None
    #: "target", "facing" or "opposite_facing" (ROTATION_MODES).
    rotation: str = "target"
    #: The turn is done by this fraction of the phase (1: at its end).
    rotation_time: float = 1.0
    #: Degrees per second the phase may turn the character at most; None: no cap.
    max_turn_rate: typing.Optional[float] = None
    #: Closer than this over the ground, a facing phase keeps the facing it had (the direction to a
    #: point under the root is undefined).
    facing_min_distance: float = 0.1
    #: A followed target that moves this far (metres) from where it was when the warp started ends
    #: the warp; None: it never does.
    switch_off_distance: typing.Optional[float] = None
    #: Likewise for a turn of the target by this many degrees.
    switch_off_angle: typing.Optional[float] = None
    #: The phase's play rate is lowered so the root never moves faster (metres per second); None: no cap.
    max_speed: typing.Optional[float] = None
    #: Clip seconds inside the phase from which it warps its position: before, the root follows the clip
    #: from the phase's origin (the vault's hands stay planted on the close edge); None: from its start
    #: (docs/design.md 4, Held warp).
    warp_from: typing.Optional[float] = None
    #: The phase lifts the root no higher than the clip does (its feet stay planted); the next phase,
    #: from its fresh origin, carries the rise it leaves (docs/design.md 4, Deferred rise).
    defer_rise: bool = False
    #: Computed when bound to the clip (never typed in): root motion over the phase (a PhaseMotion).
    motion: object = dataclasses.field(default=None, repr=False, compare=False)
    #: Computed when bound, if align_joint is set: that joint at `end` relative to an Actor of the model
    #: file playing the clip stripped of its root motion (docs/design.md 4, Goal).
    align_offset: typing.Optional[tuple] = dataclasses.field(default=None, compare=False)

    @property
    def total_root_motion(self):
        """Per-axis sum of |delta| of the root over the phase (x, y, z), from the clip."""
        return tuple(float(v) for v in self.motion.total)

    def to_dict(self):
        data = {"name": self.name, "start": self.start, "end": self.end,
                "t_offset": list(self.t_offset), "r_offset": list(self.r_offset),
                "min_rate": self.min_rate, "max_rate": self.max_rate}
        defaults = WarpPhase("", 0.0, 0.0)
        for key in ("warp_translation", "warp_rotation", "axes", "align_joint", "rotation", *PHASE_LIMITS, "defer_rise"):
            if getattr(self, key) != getattr(defaults, key):
                data[key] = getattr(self, key)
        return data


@dataclasses.dataclass
class Traversal(Edited):
    """The obstacles or markers an asset fits (docs/design.md 5): providers choose among assets by these ranges."""

    TUPLES = frozenset({"height", "depth", "distance"})

    kind: str
    height: tuple
    depth: tuple = (0.0, 0.0)
    #: Ground distance (metres) from the character's feet to the first target the clip may start
    #: from; None: anywhere within the provider's reach.
    distance: typing.Optional[tuple] = None

    @property
    def meaning(self):
        """The kind's TraversalKind."""
        return TRAVERSAL_KINDS[self.kind]

    def reaches(self, distance):
        """Whether the clip may start `distance` metres from its first target."""
        return self.distance is None or self.distance[0] <= distance <= self.distance[1]

    @property
    def centre(self):
        """The (height, depth) the ranges are centred on: the size the clip was authored for."""
        return (sum(self.height) / 2, sum(self.depth) / 2)

    def fits(self, height, depth):
        return self.height[0] <= height <= self.height[1] and self.depth[0] <= depth <= self.depth[1]

    def to_dict(self):
        data = {"kind": self.kind, "height": list(self.height)}
        if self.meaning.depth is not None:
            data["depth"] = list(self.depth)
        if self.distance is not None:
            data["distance"] = list(self.distance)
        return data


@dataclasses.dataclass(frozen=True)
class PoseMatch:
    """Where a pose-matched start may begin (docs/design.md 4, 5.1): `window` (t0, t1), seconds of the
    clip, both ends included; the start is the frame in it whose pose best matches the character's."""

    window: tuple

    def to_dict(self):
        return {"window": list(self.window)}


@dataclasses.dataclass
class AssetData(Edited):
    """A warp asset file's content, validated on its own but not yet bound to its model's clip."""

    LISTS = frozenset({"phases", "contacts"})

    model: str
    clip: str
    root_joint: str
    phases: list
    root_mode: str = "bone"
    traversal: typing.Optional[Traversal] = None
    #: Which joints touch what, when (motionwarp.contacts.Contact); the contact IK keeps them there.
    contacts: list = dataclasses.field(default_factory=list)
    #: Where a pose-matched start may begin; None: the clip starts at 0.
    pose_match: typing.Optional[PoseMatch] = None
    path: typing.Optional[str] = None

    @property
    def model_path(self):
        """The model file, resolved against the asset file's folder."""
        return os.path.normpath(os.path.join(self._folder, self.model))

    @property
    def _folder(self):
        """The folder relative paths in the asset start from: its file's, or the working directory."""
        return os.path.dirname(os.path.abspath(self.path)) if self.path else os.getcwd()

    def to_dict(self):
        data = {"format": FORMAT, "model": self.model, "clip": self.clip, "root_joint": self.root_joint}
        if self.root_mode != "bone":
            data["root_mode"] = self.root_mode
        if self.traversal is not None:
            data["traversal"] = self.traversal.to_dict()
        data["phases"] = [phase.to_dict() for phase in self.phases]
        if self.contacts:
            data["contacts"] = [contact.to_dict() for contact in self.contacts]
        if self.pose_match is not None:
            data["pose_match"] = self.pose_match.to_dict()
        return data


def parse_asset(data, path="<asset>", check_order=True):
    """Decoded `*.warp.json` -> AssetData; an AssetError names `path`, the field and what was expected.

    Binding passes `check_order=False` and checks the phases' order after their times in the clip,
    so an end past the clip is named as such, not as the next phase overlapping it."""
    check = FieldChecker(path)
    check.object(data, "", _TOP_KEYS, required=("format", "model", "clip", "root_joint", "phases"))
    if data["format"] != FORMAT:
        check.fail("format", f"expected {FORMAT!r}, got {shown(data['format'])}")
    parsed = AssetData(model=check.string(data, "model"), clip=check.string(data, "clip"),
                       root_joint=check.string(data, "root_joint"), phases=[],
                       root_mode=data.get("root_mode", "bone"), path=path)
    if parsed.root_mode not in ROOT_MODES:
        check.fail("root_mode", f"expected one of {', '.join(map(repr, ROOT_MODES))}, got {shown(parsed.root_mode)}")
    names = set()   # a set, not a scan of the phases so far: 10,000 phases took seconds
    for phase_data, field in check.items(data, "phases"):
        phase = _read_phase(check, phase_data, field)
        if phase.name in names:
            check.fail(f"{field}.name", f"expected a unique phase name, {shown(phase.name)} is used twice")
        names.add(phase.name)
        parsed.phases.append(phase)
    if check_order:
        check_phase_order(check, parsed.phases)
    _check_deferred_rises(check, parsed.phases)
    if "traversal" in data:
        parsed.traversal = _read_traversal(check, data["traversal"], len(parsed.phases))
    if "contacts" in data:
        parsed.contacts = read_contacts(check, data, [phase.name for phase in parsed.phases])
    if "pose_match" in data:
        parsed.pose_match = _read_pose_match(check, data["pose_match"], parsed.phases)
    return parsed


def _read_pose_match(check, data, phases):
    """`{"window": [t0, t1]}`: 0 <= t0 <= t1, t1 before the first phase ends (a start inside the first
    phase leaves it at least part of its motion to warp)."""
    check.object(data, "pose_match", ("window",), required=("window",))
    low, high = check.numbers(data["window"], "pose_match.window", 2)
    if not 0.0 <= low <= high:
        check.fail("pose_match.window", f"expected [t0, t1] seconds of the clip with 0 <= t0 <= t1, got {shown(data['window'])}")
    if phases and high >= phases[0].end:
        check.fail("pose_match.window", f"expected t1 before the first phase ({shown(phases[0].name)}) ends "
                                        f"({phases[0].end} s), got {shown(data['window'])}")
    return PoseMatch((low, high))


def phase_count_problem(kind, phase_count):
    """Why `phase_count` phases cannot make a traversal of `kind` (a sentence), or None when they can."""
    meaning = TRAVERSAL_KINDS[kind]
    needed, optional = meaning.phases, meaning.optional
    if phase_count < len(needed) or (phase_count > len(needed) + len(optional) and not meaning.more_phases):
        least = "at least " if meaning.more_phases else ""
        more = f", or up to {len(needed) + len(optional)} with {', '.join(optional)}" if optional else ""
        return f"a {kind} needs {least}{len(needed)} phase(s) ({', '.join(needed)}){more}, the asset has {phase_count}"
    return None


def _read_traversal(check, data, phase_count):
    check.object(data, "traversal", ("kind", "height", "depth", "distance"), required=("kind", "height"))
    kind = data["kind"]
    if not isinstance(kind, str) or kind not in TRAVERSAL_KINDS:
        check.fail("traversal.kind", f"expected one of {', '.join(map(repr, TRAVERSAL_KINDS))}, got {shown(kind)}")
    meaning = TRAVERSAL_KINDS[kind]
    problem = phase_count_problem(kind, phase_count)
    if problem:
        check.fail("traversal.kind", problem)
    if meaning.depth is not None and "depth" not in data:
        check.fail("traversal.depth", f"missing (required): the {meaning.depth}, [low, high] metres")
    if meaning.depth is None and "depth" in data:
        check.fail("traversal.depth", f"unknown key: a {kind} has no depth; expected height and distance")
    ranges = {"depth": (0.0, 0.0), "distance": None}
    for key in ("height", "depth", "distance"):
        if key in data:
            ranges[key] = _read_range(check, data[key], f"traversal.{key}", key == "height" and meaning.signed)
    return Traversal(kind, ranges["height"], ranges["depth"], ranges["distance"])


def _read_range(check, value, field, signed):
    """[low, high] metres, both ends included; below 0 only where `signed`."""
    low, high = check.numbers(value, field, 2)
    if not (low <= high and (signed or low >= 0.0)):
        rule = "low <= high" if signed else "0 <= low <= high"
        check.fail(field, f"expected [low, high] metres with {rule}, got {shown(value)}")
    return (low, high)


def check_phase_order(check, phases):
    """Each phase starts at or after the one before it ends."""
    for index in range(1, len(phases)):
        before, phase = phases[index - 1], phases[index]
        if phase.start < before.end:
            check.fail(f"phases[{index}].start", f"expected phases in order, not overlapping: at or after "
                                                 f"{shown(before.name)} ends ({before.end}), got {phase.start}")


def _check_deferred_rises(check, phases):
    """A phase that defers its rise warps height, and so does the phase after it, which carries the rise."""
    for index, phase in enumerate(phases):
        if not phase.defer_rise:
            continue
        if not _warps_height(phase):
            check.fail(f"phases[{index}].defer_rise", "expected false on a phase that does not warp z "
                                                      "(axes without z, or warp_translation false)")
        if index + 1 == len(phases) or not _warps_height(phases[index + 1]):
            check.fail(f"phases[{index}].defer_rise", "expected false: no phase after it warps z to carry the rise "
                                                      "it leaves (the next phase must have z in its axes)")


def _warps_height(phase):
    return phase.warp_translation and "z" in phase.axes


def _read_phase(check, data, field):
    """One phase, checked on its own (its order: check_phase_order; its times in the clip: at binding)."""
    check.object(data, field, _PHASE_KEYS, required=("name", "start", "end"))
    phase = WarpPhase(name=check.string(data, "name", field),
                      start=check.number(data, "start", field), end=check.number(data, "end", field),
                      t_offset=check.vector(data, "t_offset", field), r_offset=check.vector(data, "r_offset", field),
                      min_rate=check.number(data, "min_rate", field, 1.0), max_rate=check.number(data, "max_rate", field, 1.0),
                      warp_translation=check.flag(data, "warp_translation", field),
                      warp_rotation=check.flag(data, "warp_rotation", field),
                      axes=data.get("axes", "xyz"), align_joint=data.get("align_joint"),
                      rotation=data.get("rotation", "target"),
                      defer_rise=check.flag(data, "defer_rise", field, default=False),
                      **{key: _read_limit(check, data, key, field) for key in PHASE_LIMITS})
    if phase.end <= phase.start:
        check.fail(f"{field}.end", f"expected a time after start ({phase.start}), got {phase.end}")
    if phase.warp_from is not None and not phase.start < phase.warp_from < phase.end:
        check.fail(f"{field}.warp_from", f"expected clip seconds inside the phase (after its start {phase.start}, "
                                         f"before its end {phase.end}), or null: from its start; got {phase.warp_from}")
    if not 0.0 < phase.min_rate <= 1.0:
        check.fail(f"{field}.min_rate", f"expected 0 < min_rate <= 1, got {phase.min_rate}")
    if phase.max_rate < 1.0:
        check.fail(f"{field}.max_rate", f"expected max_rate >= 1, got {phase.max_rate}")
    axes = phase.axes
    if not isinstance(axes, str) or not axes or set(axes) - set("xyz") or len(set(axes)) != len(axes):
        check.fail(f"{field}.axes", f"expected some of the letters x, y, z (each once), got {shown(axes)}")
    if phase.align_joint is not None and not isinstance(phase.align_joint, str):
        check.fail(f"{field}.align_joint", f"expected the name of a joint, got {shown(phase.align_joint)}")
    _check_rotation(check, phase, field)
    return phase


def _read_limit(check, data, key, field):
    """One of PHASE_LIMITS: its default when left out (null too, for a limit that is off by default)."""
    limit = PHASE_LIMITS[key]
    value = data.get(key, limit.default)
    if value is None and limit.default is None:
        return None
    off = f" (or null: {limit.off})" if limit.default is None else ""
    bounds = f"{limit.low:g} {'<=' if limit.low_allowed else '<'} {key}" + (
        f" <= {limit.high:g}" if limit.high is not None else "")
    if not (is_number(value) and (value >= limit.low if limit.low_allowed else value > limit.low)
            and (limit.high is None or value <= limit.high)):
        check.fail(f"{field}.{key}", f"expected {limit.unit} with {bounds}{off}, got {shown(value)}")
    return float(value)


def _check_rotation(check, phase, field):
    """A facing rotation turns by the warp: it needs warp_rotation, and no align_joint (whose goal
    depends on the end rotation, which a facing phase only knows once the root is there)."""
    if not isinstance(phase.rotation, str) or phase.rotation not in ROTATION_MODES:
        check.fail(f"{field}.rotation", f"expected one of {', '.join(map(repr, ROTATION_MODES))}, got {shown(phase.rotation)}")
    if phase.rotation != "target" and not phase.warp_rotation:
        check.fail(f"{field}.rotation", f"expected 'target' when warp_rotation is false (the clip's own turn "
                                        f"is applied), got {shown(phase.rotation)}")
    if phase.rotation != "target" and phase.align_joint is not None:
        check.fail(f"{field}.rotation", f"expected 'target' with an align_joint (the joint's goal needs the end "
                                        f"rotation before the root is there), got {shown(phase.rotation)}")
