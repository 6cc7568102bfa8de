"""The one place that reads PRC: motionwarp's `motionwarp-*` settings and panda3d-gltf's `gltf-*` ones."""
import dataclasses
import numbers

from gltf import GltfSettings
from panda3d.core import ConfigVariableBool, ConfigVariableInt, ConfigVariableString

from .edits import Edited
from .errors import UsageError, shown

#: The ConfigVariable class reading a GltfSettings field, by the field's type name.
_PRC_TYPES = {"str": ConfigVariableString, "bool": ConfigVariableBool, "int": ConfigVariableInt}


class PrcSettings(Edited):
    """Base of settings dataclasses whose field `some_name` reads PRC variable `motionwarp-some-name`.

    Each subclass lists in `RANGES` the accepted range of each field (inclusive); values outside
    raise UsageError naming the setting.
    """

    RANGES: dict = {}

    @classmethod
    def from_prc(cls, **overrides):
        """Settings from PRC variables, then `overrides` (keyword arguments, None = keep); made with their
        values, so no edit is counted (base/edits.py)."""
        settings, values = cls(), {}
        for field in dataclasses.fields(cls):
            name = "motionwarp-" + field.name.replace("_", "-")
            text = ConfigVariableString(name, str(field.default)).get_value().strip()
            try:
                value = type(field.default)(text)
            except ValueError:
                value = text
            values[field.name] = settings._checked(field, value, f"PRC variable {name}")
        for name, value in overrides.items():
            if not hasattr(settings, name):
                raise TypeError(f"unknown motionwarp setting {name!r}")
            if value is not None:
                values[name] = settings.checked(name, value)
        return cls(**values)

    def values(self):
        """The fields' values in order: the key of a cache kept while these settings hold (a game
        may edit settings in place, so the object alone is not a key)."""
        return tuple(vars(self).values())

    def checked(self, name, value):
        """`value` for setting `name` if in range, else a UsageError naming the setting."""
        return self._checked(self._fields()[name], value, f"setting {name}")

    @classmethod
    def _fields(cls):
        """{name: dataclass field}, found once per class (`checked` runs on every `play()`)."""
        fields = cls.__dict__.get("_field_map")
        if fields is None:
            fields = {f.name: f for f in dataclasses.fields(cls)}
            setattr(cls, "_field_map", fields)
        return fields

    def _checked(self, field, value, where):
        """`value` if it is a number of the field's kind within RANGES, else a UsageError naming `where`."""
        low, high = self.RANGES[field.name]
        kind = "a whole number" if field.type in (int, "int") else "a number"
        ok_type = isinstance(value, numbers.Integral if kind == "a whole number" else numbers.Real)
        if not (ok_type and not isinstance(value, bool) and low <= value <= high):  # NaN fails the comparison
            raise UsageError(f"{where}: expected {kind} from {low:g} to {high:g}, got {shown(value)}")
        return value


@dataclasses.dataclass
class MotionWarpSettings(PrcSettings):
    """Defaults for the runtime (PRC `motionwarp-*`); constructor arguments of MotionWarper override them."""

    RANGES = {"task_sort": (-1000, 1000), "max_stretch": (1.0, 1000.0), "min_stretch": (0.0, 1.0),
              "max_turn_deg": (0.0, 180.0), "still_axis_m": (1e-4, 1.0), "max_behind_m": (0.0, 1.0),
              "blend_in": (0.0, 10.0), "blend_out": (0.0, 10.0)}

    #: Sort of the per-character task: after collisionLoop (30) and user IK, before igLoop (50).
    task_sort: int = 45
    #: Refuse a phase whose real distance is more than this many times the clip's distance.
    max_stretch: float = 3.0
    #: Refuse a phase whose real distance is less than this fraction of the clip's distance.
    min_stretch: float = 0.1
    #: Refuse a phase whose target heading differs from the clip's by more than this (degrees).
    max_turn_deg: float = 75.0
    #: Below this many metres of clip motion an axis counts as "not moving" (time-weight fallback).
    still_axis_m: float = 0.02
    #: Most a phase's target may lie behind the character (metres against the clip's direction;
    #: below still_axis_m, still_axis_m): a game whose capsule stops the character a little past
    #: the authored start (chest against a ledge) raises it so the phase warps back that far.
    max_behind_m: float = 0.0
    #: Seconds over which a warp fades its clip in from the pose playing before (needs
    #: `actor.enableBlend()`; 0: full effect at once, the unblended path of docs/design.md 4).
    blend_in: float = 0.0
    #: Seconds over which it fades the clip out after its last phase (at most the time the clip
    #: plays after it), handing the Actor back to the other clips; 0: none.
    blend_out: float = 0.0


@dataclasses.dataclass
class ProviderSettings(PrcSettings):
    """How warp providers probe the scene (PRC `motionwarp-*`); provider keyword arguments override them.

    Which clip fits which obstacle size is not here: it is the assets' `traversal` data (docs/design.md 5).
    """

    RANGES = {"capsule_radius": (0.01, 5.0), "capsule_height": (0.1, 20.0), "reach": (0.1, 50.0),
              "face_radius": (0.01, 2.0), "face_low": (0.0, 10.0), "face_high": (0.0, 10.0),
              "max_approach_deg": (0.0, 89.0), "max_incline_deg": (0.0, 89.0), "probe_step": (0.01, 2.0),
              "edge_tolerance": (1e-4, 0.1), "max_scan_depth": (0.1, 100.0), "max_look_up": (0.5, 1000.0),
              "max_drop": (0.0, 100.0), "clearance": (0.0, 1.0)}

    #: The character's capsule: radius and total height (metres), for the room checks.
    capsule_radius: float = 0.3
    capsule_height: float = 1.8
    #: Farthest face (metres from the character) a provider looks at.
    reach: float = 2.0
    #: The face sweep: a capsule of this radius from knee to chest height above the feet.
    face_radius: float = 0.15
    face_low: float = 0.35
    face_high: float = 1.3
    #: Most a face may turn away from the character's facing (degrees).
    max_approach_deg: float = 50.0
    #: Steepest top (and landing ground) a hand or foot may go on (degrees).
    max_incline_deg: float = 35.0
    #: Spacing of the down rays over the top, and the precision of the edges' binary search (metres).
    probe_step: float = 0.25
    edge_tolerance: float = 0.002
    #: Farthest the top is followed past the close edge (metres): deeper tops read as this deep.
    max_scan_depth: float = 3.0
    #: How high above the feet to look for a ceiling, and for the top of a face too high to take (metres).
    max_look_up: float = 8.0
    #: Lowest the landing ground may lie below the character's feet (metres).
    max_drop: float = 0.6
    #: Gap kept between the capsule and the geometry in the room checks (metres).
    clearance: float = 0.04


@dataclasses.dataclass
class ContactIKSettings(PrcSettings):
    """How the contact IK holds hands and feet (PRC `motionwarp-ik-*`); ContactIK keyword arguments
    (without the `ik_` prefix) override them."""

    RANGES = {"ik_task_sort": (-1000, 1000), "ik_blend_time": (0.0, 2.0), "ik_feet_on_ground": (0, 1),
              "ik_ray_above": (0.0, 10.0), "ik_ray_below": (0.0, 10.0), "ik_surface_reach": (0.0, 1.0),
              "ik_compiled": (0, 1), "ik_ground_keep": (0.0, 0.5)}

    #: Sort of the per-character IK task: after the warper (45), before igLoop renders (50).
    ik_task_sort: int = 47
    #: Seconds (clip time) over which a contact eases in before its window and out after it.
    ik_blend_time: float = 0.15
    #: 1: outside warps, keep the feet at their animated height above whatever is under them
    #: (slopes, steps); 0: leave locomotion alone.
    ik_feet_on_ground: int = 0
    #: The ray looking for the surface under a joint starts this far above it and ends this far below (metres).
    ik_ray_above: float = 0.5
    ik_ray_below: float = 1.0
    #: Feet kept on the ground: a foot (or the origin) less than this far (metres) from where its
    #: last ray was cast over a static probe is answered from that ray's surface, moved along its
    #: slope, with no new ray (ik.scene_view.KeptGround); 0: a ray every frame.
    ik_ground_keep: float = 0.002
    #: A target contact's surface is looked for along its normal from `ik_ray_above` out of it (a
    #: raised or stacked top) to this far into it (metres) from where the warp's target puts it:
    #: far enough for a top falling away across the hands (12 cm on an 8-degree lid), never as far
    #: as the floor under a thin top a hand is past the end of.
    ik_surface_reach: float = 0.15
    #: 1: bend the limbs (the two-bone solves and the turn limits) in compiled code when numba
    #: imports (the optional extra `pip install motionwarp[fast]`); 0: in Python, the reference
    #: the compiled path is tested against (docs/contact-ik.md "Cost").
    ik_compiled: int = 1


def gltf_settings_from_prc():
    """panda3d-gltf's GltfSettings read from the `gltf-*` PRC variables, as panda3d-gltf's own loader does."""
    settings = GltfSettings()
    for field in dataclasses.fields(settings):
        var_type = _PRC_TYPES[field.type if isinstance(field.type, str) else field.type.__name__]
        name = "gltf-" + field.name.replace("_", "-")
        setattr(settings, field.name, var_type(name, getattr(settings, field.name)).get_value())
    return settings


def from_base(name):
    """`base.<name>` (taskMgr, render, ...) for components whose caller did not inject one."""
    import builtins
    base = getattr(builtins, "base", None)
    if base is None:
        raise RuntimeError(f"no ShowBase: pass {name} explicitly or create a ShowBase first")
    return getattr(base, name)
