"""Characters as data: `characters/*.json` in the `motionwarp.character/1` format (docs/design.md 5.4).

A character file names a glTF model (relative to the file), its root joint and mode, which
of its clips play each locomotion role, a speed for cycles authored in place, and which
warp assets and contact IK it can use (those are authored for one skeleton).
"""
import dataclasses
import os

from panda3d.core import AnimBundleNode, LMatrix4f, LVector3f, NodePath

from motionwarp import LoadError, WarpAsset, load_actor
from motionwarp.base.errors import AssetError, FieldError, shown
from motionwarp.base.jsonfields import FieldChecker, read_json
from motionwarp.animation.actor_clips import clip_control, require_joint

from motionwarp.tools.character_writer import FORMAT, OPTIONAL as OPTIONAL_ROLES, REQUIRED as ROLES, asset_folder

#: The roles played as cycles, whose lengths locomotion divides by: a one-frame pose cannot fill them.
CYCLES = ("walk", "run")

_KEYS = ("format", "model", "scale", "turn", "root_joint", "root_mode", "clips", "speeds", "warp_assets", "contact_ik",
         "feet")


class CharacterError(FieldError):
    """A character file is invalid."""


@dataclasses.dataclass
class Character:
    path: str
    model: str
    scale: float = 1.0      # the actor's scale: what makes the model metres (0.01 for a centimetre rig)
    turn: float = 0.0       # degrees about Z that make the model face +Y (glTF's +Z forward faces -Y: 180)
    root_joint: str = "root"
    root_mode: str = "bone"
    clips: dict = dataclasses.field(default_factory=dict)   # role -> the model's clip
    speeds: dict = dataclasses.field(default_factory=dict)  # role -> m/s, for cycles authored in place
    warp_assets: tuple = ()
    contact_ik: bool = False
    feet: tuple = ("foot_l", "foot_r")   # the left and right foot joints the contact IK bends legs to

    @property
    def model_path(self):
        return os.path.join(os.path.dirname(os.path.abspath(self.path)), self.model)

    @classmethod
    def load(cls, path):
        """Read and validate a character file; CharacterError names the bad field."""
        path = os.fspath(path)
        data = read_json(path, CharacterError)
        check = FieldChecker(path, CharacterError)
        check.object(data, "", _KEYS, required=("format", "model", "clips"))
        if data["format"] != FORMAT:
            check.fail("format", f"expected {FORMAT!r}, got {shown(data['format'])}")
        character = cls(path=path, model=check.string(data, "model"), scale=check.number(data, "scale", "", 1.0),
                        turn=check.number(data, "turn", "", 0.0),
                        root_joint=check.string(data, "root_joint") if "root_joint" in data else "root",
                        root_mode=data.get("root_mode", "bone"))
        if not character.scale > 0:
            check.fail("scale", f"expected a scale above 0 (0.01 for a centimetre rig), got {character.scale:g}")
        if character.root_mode not in ("bone", "projected"):
            check.fail("root_mode", f"expected 'bone' or 'projected', got {shown(character.root_mode)}")
        check.object(data["clips"], "clips", ROLES + OPTIONAL_ROLES, required=ROLES)
        character.clips = {role: check.string(data["clips"], role, "clips") for role in data["clips"]}
        speeds = data.get("speeds", {})
        check.object(speeds, "speeds", ("walk", "run"), required=())
        character.speeds = {role: check.number(speeds, role, "speeds") for role in speeds}
        for role, speed in character.speeds.items():
            if speed <= 0:
                check.fail(f"speeds.{role}", f"expected a speed above 0 (m/s), got {speed:g}")
        assets = data.get("warp_assets", [])
        if not isinstance(assets, list) or not all(isinstance(a, str) and a for a in assets):
            check.fail("warp_assets", f"expected a list of warp asset names, got {shown(assets)}")
        character.warp_assets = tuple(assets)
        character.contact_ik = check.flag(data, "contact_ik", "") if "contact_ik" in data else False
        if "feet" in data:
            feet = data["feet"]
            if not (isinstance(feet, list) and len(feet) == 2 and all(isinstance(f, str) and f for f in feet)):
                check.fail("feet", f"expected the left and right foot joints' names, got {shown(feet)}")
            character.feet = tuple(feet)
        if not os.path.isfile(character.model_path):
            check.fail("model", f"expected a glTF file relative to the character file; "
                                f"{os.path.normpath(character.model_path)} does not exist")
        return character

    @property
    def asset_folder(self):
        """The folder its `warp_assets` are found in unless the demo is given another: `assets/` beside this
        file's folder."""
        return asset_folder(self.path)

    def load_warp_assets(self, folder=None):
        """{name: WarpAsset} of `warp_assets`, each `folder/<name>.warp.json` (default `asset_folder`); a
        missing or bad one is a CharacterError naming this file, the entry and the asset's own error."""
        folder = self.asset_folder if folder is None else folder
        assets = {}
        for index, name in enumerate(self.warp_assets):
            path = os.path.join(os.fspath(folder), f"{name}.warp.json")
            if not os.path.isfile(path):
                raise CharacterError(self.path, f"warp_assets[{index}]",
                                     f"the name of a *.warp.json in {os.fspath(folder)}; {path} does not exist")
            try:
                assets[name] = WarpAsset.load(path)
            except (AssetError, LoadError) as exc:
                raise CharacterError(self.path, f"warp_assets[{index}]", f"a valid warp asset: {exc}") from None
        return assets

    def load_actor(self):
        """The model's Actor, with each role also playable under its role's name (same bundle)."""
        actor = load_actor(self.model_path)
        try:
            require_joint(actor, self.root_joint)
        except LoadError as exc:
            raise CharacterError(self.path, "root_joint", f"a joint of the model: {exc}") from None
        for index, foot in enumerate(self.feet if self.contact_ik else ()):   # the legs the contact IK bends
            try:
                require_joint(actor, foot)
            except LoadError as exc:
                raise CharacterError(self.path, f"feet[{index}]", f"a foot joint of the model: {exc}") from None
        # Turn the skeleton itself (the Actor's own transform is the demo's): root motion is read through it.
        # The turn is about the model's up axis: the root transform sits inside the Character node's
        # transform (where a Y-up armature's turn upright is), so it is carried into that frame.
        bundle = actor.getPartBundle("modelRoot")
        frame = actor.find("**/+Character").getMat(actor)
        into = LMatrix4f(frame)
        into.invertInPlace()
        bundle.setRootXform(bundle.getRootXform() * frame * LMatrix4f.rotateMat(self.turn, LVector3f.up()) * into)
        actor.setScale(self.scale)
        for role, clip in self.clips.items():
            try:
                control = clip_control(actor, clip)
            except LoadError as exc:
                raise CharacterError(self.path, f"clips.{role}", f"a clip of the model: {exc}") from None
            if role in CYCLES and control.getNumFrames() < 2:
                raise CharacterError(self.path, f"clips.{role}", f"a cycle at least one frame long; {shown(clip)} is a "
                                                                 "single pose (one frame), which has no pace to walk at")
            bundle = control.getAnim()
            if role != clip:
                actor.loadAnims({role: NodePath(AnimBundleNode(role, bundle))})
        return actor
