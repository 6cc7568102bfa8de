"""Settings backed by `motionwarp-*` PRC variables, like panda3d-gltf's `gltf-*` ones."""
import dataclasses

from panda3d.core import ConfigVariableBool, ConfigVariableDouble, ConfigVariableInt

_CONFIG_TYPES = {int: ConfigVariableInt, float: ConfigVariableDouble, bool: ConfigVariableBool}


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
            var_type = _CONFIG_TYPES[type(field.default)]
            name = "motionwarp-" + field.name.replace("_", "-")
            setattr(settings, field.name, var_type(name, field.default).get_value())
        for name, value in overrides.items():
            if not hasattr(settings, name):
                raise TypeError(f"unknown motionwarp setting {name!r}")
            if value is not None:
                setattr(settings, name, value)
        return settings


def from_base(name):
    """`base.<name>` (taskMgr, render, ...) for components whose caller did not inject one."""
    import builtins
    base = getattr(builtins, "base", None)
    if base is None:
        raise RuntimeError(f"no ShowBase: pass {name} explicitly or create a ShowBase first")
    return getattr(base, name)
