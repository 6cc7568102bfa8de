"""Settings backed by `motionwarp-*` PRC variables, like panda3d-gltf's `gltf-*` ones."""
import dataclasses
import numbers

from panda3d.core import ConfigVariableString

from .errors import UsageError, shown

#: Accepted range of each setting (inclusive); values outside raise UsageError naming the setting.
RANGES = {"task_sort": (-1000, 1000), "max_stretch": (1.0, 1000.0), "min_stretch": (0.0, 1.0),
          "max_turn_deg": (0.0, 180.0), "still_axis_m": (1e-4, 1.0)}


@dataclasses.dataclass
class MotionWarpSettings:
    """Defaults for the runtime; each field `some_name` reads PRC variable `motionwarp-some-name`.

    Constructor arguments of MotionWarper override these per character.
    """

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

    @classmethod
    def from_prc(cls, **overrides):
        """Settings from PRC variables, then `overrides` (keyword arguments, None = keep)."""
        settings = cls()
        for field in dataclasses.fields(cls):
            name = "motionwarp-" + field.name.replace("_", "-")
            text = ConfigVariableString(name, str(field.default)).get_value().strip()
            try:
                value = type(field.default)(text)
            except ValueError:
                value = text
            setattr(settings, field.name, _checked(field, value, f"PRC variable {name}"))
        for name, value in overrides.items():
            if not hasattr(settings, name):
                raise TypeError(f"unknown motionwarp setting {name!r}")
            if value is not None:
                field = next(f for f in dataclasses.fields(cls) if f.name == name)
                setattr(settings, name, _checked(field, value, f"setting {name}"))
        return settings


def _checked(field, value, where):
    """`value` if it is a number of the field's kind within RANGES, else a UsageError naming `where`."""
    low, high = RANGES[field.name]
    kind = "a whole number" if field.type in (int, "int") else "a number"
    ok_type = isinstance(value, numbers.Integral if kind == "a whole number" else numbers.Real)
    if not (ok_type and not isinstance(value, bool) and low <= value <= high):  # NaN fails the comparison
        raise UsageError(f"{where}: expected {kind} from {low:g} to {high:g}, got {shown(value)}")
    return value


def from_base(name):
    """`base.<name>` (taskMgr, render, ...) for components whose caller did not inject one."""
    import builtins
    base = getattr(builtins, "base", None)
    if base is None:
        raise RuntimeError(f"no ShowBase: pass {name} explicitly or create a ShowBase first")
    return getattr(base, name)
