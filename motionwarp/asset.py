"""Warp assets: a clip plus its warping phases, loaded from and saved to `*.warp.json` (docs/design.md 5)."""
import dataclasses
import os

from panda3d.core import CharacterJoint, NodePath

from .atomicfile import write_text_atomic
from .contacts import read_contacts
from .errors import LoadError, shown
from .jsonfields import FieldChecker, dumps, read_json
from .loader import load_model_node
from .motion import Motion
from .phasemotion import PhaseMotion
from . import rootmotion

FORMAT = "motionwarp.asset/1"
_TOP_KEYS = {"format", "model", "clip", "root_joint", "root_mode", "phases", "traversal", "contacts"}
_PHASE_KEYS = {"name", "start", "end", "t_offset", "r_offset", "min_rate", "max_rate",
               "warp_translation", "warp_rotation", "axes", "align_joint"}
#: Traversal kinds and the phases (targets) each needs, in order (docs/design.md 1).
TRAVERSAL_PHASES = {"vault": ("close edge", "far edge", "landing"), "mantle": ("ledge top",)}


@dataclasses.dataclass
class WarpPhase:
    """One window of clip time in which the character is warped toward one target point."""

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
    align_joint: str = None
    #: Computed on load from the clip (never typed in): root motion over the phase.
    motion: PhaseMotion = dataclasses.field(default=None, repr=False, compare=False)
    #: Computed on load when align_joint is set: that joint relative to the root at `end`.
    align_offset: tuple = dataclasses.field(default=None, compare=False)

    @property
    def total_root_motion(self):
        """Per-axis sum of |delta| of the root over the phase (x, y, z), from the clip."""
        return tuple(float(v) for v in self.motion.total)

    def to_dict(self):
        data = {"name": self.name, "start": self.start, "end": self.end,
                "t_offset": list(self.t_offset), "r_offset": list(self.r_offset),
                "min_rate": self.min_rate, "max_rate": self.max_rate}
        defaults = WarpPhase("", 0.0, 0.0)
        for key in ("warp_translation", "warp_rotation", "axes", "align_joint"):
            if getattr(self, key) != getattr(defaults, key):
                data[key] = getattr(self, key)
        return data


@dataclasses.dataclass
class Traversal:
    """The obstacles an asset fits (docs/design.md 5): providers choose among assets by these ranges."""

    kind: str
    height: tuple
    depth: tuple

    @property
    def centre(self):
        """The (height, depth) the ranges are centred on: the size the clip was authored for."""
        return (sum(self.height) / 2, sum(self.depth) / 2)

    def fits(self, height, depth):
        return self.height[0] <= height <= self.height[1] and self.depth[0] <= depth <= self.depth[1]

    def to_dict(self):
        return {"kind": self.kind, "height": list(self.height), "depth": list(self.depth)}


@dataclasses.dataclass
class WarpAsset:
    """A clip with its warping phases; `load()` validates it and computes each phase's motion."""

    model: str
    clip: str
    root_joint: str
    phases: list
    root_mode: str = "bone"
    traversal: Traversal = None
    #: Which joints touch what, when (motionwarp.contacts.Contact); the contact IK keeps them there.
    contacts: list = dataclasses.field(default_factory=list)
    path: str = None
    track: rootmotion.RootMotionTrack = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def model_path(self):
        """The model file, resolved against the asset file's folder."""
        return os.path.normpath(os.path.join(self._folder, self.model))

    @property
    def _folder(self):
        """The folder relative paths in the asset start from: its file's, or the working directory."""
        return os.path.dirname(os.path.abspath(self.path)) if self.path else os.getcwd()

    @property
    def duration(self):
        return self.track.duration

    @classmethod
    def load(cls, path):
        """Read, validate and prepare a `*.warp.json` file; AssetError names any bad field."""
        path = os.fspath(path)
        return cls.from_dict(read_json(path), path)

    @classmethod
    def from_dict(cls, data, path="<asset>"):
        """Validate a decoded asset and compute its phases' root motion from the clip."""
        check = FieldChecker(path)
        check.object(data, "", _TOP_KEYS, required=("format", "model", "clip", "root_joint", "phases"))
        if data["format"] != FORMAT:
            check.fail("format", f"expected {FORMAT!r}, got {shown(data['format'])}")
        asset = cls(model=check.string(data, "model"), clip=check.string(data, "clip"),
                    root_joint=check.string(data, "root_joint"), phases=[],
                    root_mode=data.get("root_mode", "bone"), path=path)
        if asset.root_mode not in rootmotion.ROOT_MODES:
            check.fail("root_mode", f"expected one of {', '.join(map(repr, rootmotion.ROOT_MODES))}, got {shown(asset.root_mode)}")
        bundles, joints, base = _clip_source(asset, check)
        if asset.clip not in bundles:
            check.fail("clip", f"expected a clip of {asset.model}: {', '.join(sorted(bundles))}; got {shown(asset.clip)}")
        if asset.root_joint not in joints:
            check.fail("root_joint", f"expected a joint of {asset.model}: {', '.join(joints)}; got {shown(asset.root_joint)}")
        asset.track = rootmotion.track_for(bundles[asset.clip], asset.root_joint, asset.root_mode, clip=asset.clip,
                                          base=base)
        names = set()
        for phase_data, field in check.items(data, "phases"):
            phase = _read_phase(check, phase_data, field, asset, joints)
            if phase.name in names:
                check.fail(f"{field}.name", f"expected a unique phase name, {shown(phase.name)} is used twice")
            names.add(phase.name)
            asset.phases.append(phase)
        if "traversal" in data:
            asset.traversal = _read_traversal(check, data["traversal"], len(asset.phases))
        if "contacts" in data:
            asset.contacts = read_contacts(check, data, asset, joints)
        _prepare(asset)
        return asset

    def to_dict(self):
        data = {"format": FORMAT, "model": self.model, "clip": self.clip, "root_joint": self.root_joint}
        if self.root_mode != "bone":
            data["root_mode"] = self.root_mode
        if self.traversal is not None:
            data["traversal"] = self.traversal.to_dict()
        data["phases"] = [phase.to_dict() for phase in self.phases]
        if self.contacts:
            data["contacts"] = [contact.to_dict() for contact in self.contacts]
        return data

    def save(self, path=None):
        """Write the asset atomically: the old file stays intact if anything fails.

        Saved into another folder, a relative `model` path is rewritten to still name the same model.
        """
        path = os.fspath(path or self.path)
        model = self._model_seen_from(path)
        data = self.to_dict()
        data["model"] = model
        write_text_atomic(path, dumps(data))
        self.model, self.path = model, path

    def _model_seen_from(self, path):
        """`model` as it must be written in a file at `path` to name the same model file."""
        folder = os.path.dirname(os.path.abspath(path))
        if os.path.isabs(self.model) or folder == self._folder:
            return self.model
        try:
            return os.path.relpath(self.model_path, folder).replace(os.sep, "/")
        except ValueError:  # another drive (Windows): only an absolute path reaches it
            return self.model_path



def _clip_source(asset, check):
    """The model's clips (name -> AnimBundle), joints (name -> parent joint name or None, in order)
    and its Character's transform (`rootmotion.character_base`)."""
    try:
        node = load_model_node(asset.model_path)
    except LoadError as exc:
        check.fail("model", f"expected a loadable glTF character: {exc}")
    model = NodePath(node)
    bundles = {np.node().getBundle().getName(): np.node().getBundle() for np in model.findAllMatches("**/+AnimBundleNode")}
    character = model.find("**/+Character")
    joints = {} if character.isEmpty() else joint_parents(character.node().getBundle(0))
    return bundles, joints, rootmotion.character_base(model)


def joint_parents(bundle):
    """Each joint of a character's PartBundle (name -> its parent joint's name, or None), parents first."""
    joints = {}
    stack = [(bundle, None)]
    while stack:
        group, parent = stack.pop()
        if group.isOfType(CharacterJoint.getClassType()):
            joints[group.getName()] = parent
            parent = group.getName()
        stack.extend(reversed([(group.getChild(i), parent) for i in range(group.getNumChildren())]))
    return joints


def _read_traversal(check, data, phase_count):
    check.object(data, "traversal", ("kind", "height", "depth"), required=("kind", "height", "depth"))
    kind = data["kind"]
    if not isinstance(kind, str) or kind not in TRAVERSAL_PHASES:
        check.fail("traversal.kind", f"expected one of {', '.join(map(repr, TRAVERSAL_PHASES))}, got {shown(kind)}")
    needed = TRAVERSAL_PHASES[kind]
    if phase_count != len(needed):
        check.fail("traversal.kind", f"a {kind} needs {len(needed)} phase(s) ({', '.join(needed)}), "
                                     f"the asset has {phase_count}")
    ranges = {}
    for key in ("height", "depth"):
        low, high = check.numbers(data[key], f"traversal.{key}", 2)
        if not 0.0 <= low <= high:
            check.fail(f"traversal.{key}", f"expected [low, high] metres with 0 <= low <= high, got {shown(data[key])}")
        ranges[key] = (low, high)
    return Traversal(kind, ranges["height"], ranges["depth"])


def _read_phase(check, data, field, asset, joints):
    check.object(data, field, _PHASE_KEYS, required=("name", "start", "end"))
    phase = WarpPhase(name=check.string(data, "name", field),
                      start=check.number(data, "start", field), end=check.number(data, "end", field),
                      t_offset=check.vector(data, "t_offset", field), r_offset=check.vector(data, "r_offset", field),
                      min_rate=check.number(data, "min_rate", field, 1.0), max_rate=check.number(data, "max_rate", field, 1.0),
                      warp_translation=check.flag(data, "warp_translation", field),
                      warp_rotation=check.flag(data, "warp_rotation", field),
                      axes=data.get("axes", "xyz"), align_joint=data.get("align_joint"))
    duration = asset.track.duration
    if not 0.0 <= phase.start <= duration:
        check.fail(f"{field}.start", f"expected a time inside the clip (0 to {duration:.3f} s), got {phase.start}")
    if not 0.0 <= phase.end <= duration:
        check.fail(f"{field}.end", f"expected a time inside the clip (0 to {duration:.3f} s), got {phase.end}")
    if phase.end <= phase.start:
        check.fail(f"{field}.end", f"expected a time after start ({phase.start}), got {phase.end}")
    if asset.phases:
        previous = asset.phases[-1]
        if phase.start < previous.end:
            check.fail(f"{field}.start", f"expected phases in order, not overlapping: at or after "
                                         f"{shown(previous.name)} ends ({previous.end}), got {phase.start}")
    if not 0.0 < phase.min_rate <= 1.0:
        check.fail(f"{field}.min_rate", f"expected 0 < min_rate <= 1, got {phase.min_rate}")
    if phase.max_rate < 1.0:
        check.fail(f"{field}.max_rate", f"expected max_rate >= 1, got {phase.max_rate}")
    axes = phase.axes
    if not isinstance(axes, str) or not axes or set(axes) - set("xyz") or len(set(axes)) != len(axes):
        check.fail(f"{field}.axes", f"expected some of the letters x, y, z (each once), got {shown(axes)}")
    if phase.align_joint is not None and phase.align_joint not in joints:
        check.fail(f"{field}.align_joint", f"expected a joint of {asset.model}: {', '.join(joints)}; got {shown(phase.align_joint)}")
    return phase


def _prepare(asset):
    """Compute what the runtime needs from the clip: phase motion, joint alignment offsets, and
    where each contact's joint touches down (Contact.touchdown)."""
    fps = asset.track.fps
    for phase in asset.phases:
        phase.motion = PhaseMotion(asset.track, phase.start * fps, phase.end * fps)
    aligned = [phase for phase in asset.phases if phase.align_joint]
    if not aligned and not asset.contacts:
        return
    from .alignment import joint_offsets
    offsets = joint_offsets(asset, [(phase.align_joint, phase.end) for phase in aligned]
                            + [(contact.joint, contact.start) for contact in asset.contacts])
    for phase, offset in zip(aligned, offsets):
        phase.align_offset = offset
    ends = {phase.name: phase.end * fps for phase in asset.phases}
    track = asset.track
    for contact, offset in zip(asset.contacts, offsets[len(aligned):]):
        reference = ends[contact.phase] if contact.touches == "target" else contact.start * fps
        at_reference = track.motion(reference).inverse() * track.motion(contact.start * fps)
        contact.touchdown = (at_reference * Motion(offset)).pos
