"""Warp assets: a clip plus its warping phases, loaded from and saved to `*.warp.json` (docs/design.md 5).

Loading is two steps: `assetdata.parse_asset` validates the file on its own (no model), and
`WarpAsset.bind` checks it against the model and computes what the runtime needs from the clip.
A `ModelClips` keeps what binding read from a model, so an edited asset re-binds (`rebind`)
without loading anything again.
"""
from typing import Optional
import dataclasses
import os

from panda3d.core import CharacterJoint, NodePath

from ..animation import rootmotion
from ..animation.alignment import joint_offsets
from .assetdata import FORMAT, TRAVERSAL_KINDS, AssetData, Traversal, WarpPhase, check_phase_order, parse_asset
from ..base.atomicfile import write_text_atomic
from .contacts import check_contacts
from ..base.errors import LoadError, UsageError, shown
from ..base.jsonfields import FieldChecker, dumps, read_json
from ..animation.loader import load_model_node
from ..animation.motion import Motion
from .mirrored import mirrored_asset
from .phasemotion import PhaseMotion

__all__ = ["FORMAT", "TRAVERSAL_KINDS", "ModelClips", "Traversal", "WarpAsset", "WarpPhase", "joint_parents"]


class ModelClips:
    """What binding reads from one model file: its clips (name -> AnimBundle), joints (name -> parent
    joint name or None, parents first) and Character transform; the root motion tracks and joint
    offsets it computes are kept, so re-binding an edited asset recomputes only its phases."""

    def __init__(self, path):
        self.path = path
        model = NodePath(load_model_node(path))
        self.bundles = {np.node().getBundle().getName(): np.node().getBundle()
                        for np in model.findAllMatches("**/+AnimBundleNode")}
        character = model.find("**/+Character")
        self.joints = {} if character.isEmpty() else joint_parents(character.node().getBundle(0))
        self.base = rootmotion.character_base(model)
        self._tracks, self._offsets = {}, {}

    def track(self, clip, root_joint, root_mode):
        key = (clip, root_joint, root_mode)
        if key not in self._tracks:
            self._tracks[key] = rootmotion.track_for(self.bundles[clip], root_joint, root_mode, clip=clip, base=self.base)
        return self._tracks[key]

    def joint_offsets(self, asset, requests):
        """`alignment.joint_offsets` of (joint, clip seconds) requests, each posed once per model."""
        key = (asset.clip, asset.root_joint, asset.root_mode)
        missing = [request for request in dict.fromkeys(requests) if key + request not in self._offsets]
        if missing:
            self._offsets.update((key + request, offset)
                                 for request, offset in zip(missing, joint_offsets(asset, missing)))
        return [self._offsets[key + request] for request in requests]


@dataclasses.dataclass
class WarpAsset(AssetData):
    """A clip with its warping phases, bound to its model: `load()` validates it and computes each phase's motion."""

    track: Optional[rootmotion.RootMotionTrack] = dataclasses.field(default=None, repr=False, compare=False)
    #: The ModelClips it was bound to (`rebind` reuses it).
    clips: Optional[ModelClips] = dataclasses.field(default=None, repr=False, compare=False)
    #: For an asset `mirrored()` made: its mirror table ({joint: partner}); None for one loaded from a file.
    mirror: Optional[dict] = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def duration(self):
        return self.track.duration

    @classmethod
    def load(cls, path):
        """Read, validate and prepare a `*.warp.json` file; AssetError names any bad field."""
        path = os.fspath(path)
        return cls.from_dict(read_json(path), path)

    @classmethod
    def from_dict(cls, data, path="<asset>", clips=None):
        """Validate a decoded asset and bind it to its model (`clips`, when it is that model's)."""
        return cls.bind(parse_asset(data, path, check_order=False), clips)

    def rebind(self, data):
        """The asset `data` (e.g. this one's `to_dict()`, edited) describes, validated and bound to
        this asset's already loaded model when it names the same one."""
        self._not_mirrored("rebind")
        return self.from_dict(data, self.path, self.clips)

    def mirrored(self, table=None):
        """This asset for its clip mirrored, left for right (warp/mirrored.py): clip
        `clip + ".mirrored"`, which `motionwarp.mirror_clip(actor, clip, table)` gives the actor.
        `table` ({joint: partner}) is found from the joint names when None."""
        self._not_mirrored("mirrored")
        return mirrored_asset(self, table)

    def _not_mirrored(self, operation):
        """A mirrored asset is made from its source at run time: it has no file of its own."""
        if self.mirror is not None:
            raise UsageError(f"WarpAsset.{operation}: {self.clip!r} is mirrored from {self.path}; "
                             f"{operation} the source asset and mirror it again")

    @classmethod
    def bind(cls, parsed, clips=None):
        """Check parsed asset data against its model and compute each phase's root motion from the clip."""
        check = FieldChecker(parsed.path)
        if clips is None or clips.path != parsed.model_path:
            try:
                clips = ModelClips(parsed.model_path)
            except LoadError as exc:
                check.fail("model", f"expected a loadable glTF character: {exc}")
        if parsed.clip not in clips.bundles:
            check.fail("clip", f"expected a clip of {parsed.model}: {', '.join(sorted(clips.bundles))}; got {shown(parsed.clip)}")
        if parsed.root_joint not in clips.joints:
            check.fail("root_joint", f"expected a joint of {parsed.model}: {', '.join(clips.joints)}; "
                                     f"got {shown(parsed.root_joint)}")
        fields = {field.name: getattr(parsed, field.name) for field in dataclasses.fields(AssetData)}
        asset = cls(**fields, clips=clips, track=clips.track(parsed.clip, parsed.root_joint, parsed.root_mode))
        asset.phases = [dataclasses.replace(phase) for phase in parsed.phases]
        asset.contacts = [dataclasses.replace(contact) for contact in parsed.contacts]
        for index, phase in enumerate(asset.phases):
            _check_in_clip(check, phase, f"phases[{index}]", asset, clips.joints)
        check_phase_order(check, asset.phases)
        check_contacts(check, asset.contacts, asset.model, clips.joints, asset.duration)
        _prepare(asset)
        return asset

    def save(self, path=None):
        """Write the asset atomically: the old file stays intact if anything fails.

        Saved into another folder, a relative `model` path is rewritten to still name the same model.
        """
        self._not_mirrored("save")
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


#: Files keep times rounded (the editor snaps to frames and writes 6 decimals): a phase this much
#: shorter than a frame still counts as one frame long.
FRAME_SLACK_S = 1e-5


def _check_in_clip(check, phase, field, asset, joints):
    """The model-dependent checks of a parsed phase: its times inside the clip, its align joint in the skeleton."""
    duration = asset.duration
    for key in ("start", "end"):
        if not 0.0 <= getattr(phase, key) <= duration:
            check.fail(f"{field}.{key}", f"expected a time inside the clip (0 to {duration:.3f} s), got {getattr(phase, key)}")
    frame = 1.0 / asset.track.fps
    if phase.end - phase.start < frame - FRAME_SLACK_S:
        check.fail(f"{field}.end", f"expected a phase at least one clip frame long ({frame:.4f} s at {asset.track.fps:g} "
                                   f"fps) after its start ({phase.start}), got {phase.end}")
    if phase.align_joint is not None and phase.align_joint not in joints:
        check.fail(f"{field}.align_joint", f"expected a joint of {asset.model}: {', '.join(joints)}; got {shown(phase.align_joint)}")


def _prepare(asset):
    """Compute what the runtime needs from the clip: phase motion, joint alignment offsets, and
    where each contact's joint touches down (Contact.touchdown)."""
    fps = asset.track.fps
    for phase in asset.phases:
        phase.motion = PhaseMotion(asset.track, phase.start * fps, phase.end * fps,
                                   None if phase.warp_from is None else phase.warp_from * fps)
    aligned = [phase for phase in asset.phases if phase.align_joint]
    if not aligned and not asset.contacts:
        return
    offsets = asset.clips.joint_offsets(asset, [(phase.align_joint, phase.end) for phase in aligned]
                                        + [(contact.joint, contact.start) for contact in asset.contacts])
    for phase, offset in zip(aligned, offsets):
        phase.align_offset = offset
    ends = {phase.name: phase.end * fps for phase in asset.phases}
    track = asset.track
    for contact, offset in zip(asset.contacts, offsets[len(aligned):]):
        reference = ends[contact.phase] if contact.touches == "target" else contact.start * fps
        at_reference = track.motion(reference).inverse() * track.motion(contact.start * fps)
        contact.touchdown = (at_reference * Motion(offset)).pos
