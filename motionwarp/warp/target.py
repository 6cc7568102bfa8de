"""Warp targets: where (and facing which way) a phase must end."""
from typing import Optional
import dataclasses
import math
import numbers

from panda3d.core import LQuaternion, LVecBase3f, NodePath, Point3, Vec3

from ..base.errors import UsageError, shown


#: The largest float32, what Panda3D's transforms hold (NaN and infinities fail `<=` it too).
FLOAT32_MAX = 3.4028234663852886e38


@dataclasses.dataclass
class WarpTarget:
    """A world point plus a heading (or a full HPR rotation), optionally riding a moving NodePath.

    `pos` and `hpr` take a Point3/Vec3 or any sequence of three numbers; a bad value raises
    UsageError. With `follow`, `pos` and the rotation are in that node's space and re-read
    every frame, so a target on a moving platform is reached where the platform is when the
    phase ends.
    """

    pos: Point3
    h: float = 0.0
    hpr: Optional[tuple] = None
    follow: Optional[NodePath] = None

    def __post_init__(self):
        self.pos = Point3(*_three_numbers(self.pos, "pos"))
        if not _is_real(self.h) or not _fits_float(self.h):
            raise UsageError(f"WarpTarget h: expected a number of degrees, got {shown(self.h)}")
        if self.hpr is not None:
            self.hpr = Vec3(*_three_numbers(self.hpr, "hpr"))
        if self.follow is not None and not isinstance(self.follow, NodePath):
            raise UsageError(f"WarpTarget follow: expected a NodePath or None, got {shown(self.follow)}")

    @classmethod
    def of(cls, value):
        """`value` as a WarpTarget: a WarpTarget itself, or a point (Point3 or three numbers) with heading 0."""
        return value if isinstance(value, cls) else cls(value)

    def is_finite(self):
        """True when Panda3D can hold it: `pos` is float32 already (a sum of three cannot overflow);
        a heading is a Python float until it becomes a rotation, so it must fit float32 too."""
        pos, turn = self.pos, ((self.h,) if self.hpr is None else tuple(self.hpr))
        return math.isfinite(pos[0] + pos[1] + pos[2]) and all(abs(angle) <= FLOAT32_MAX for angle in turn)

    def local_quat(self):
        quat = LQuaternion()
        quat.setHpr(self.hpr if self.hpr is not None else Vec3(self.h, 0, 0))
        return quat

    def resolve(self, space, world):
        """Position (Point3) and rotation (LQuaternion) of the target in `space` (the actor's parent)."""
        frame = self.follow if self.follow is not None else world
        if frame == space:   # a world target for an actor on `world` itself: nothing to convert
            return Point3(self.pos), self.local_quat()
        return space.getRelativePoint(frame, self.pos), self.local_quat() * frame.getQuat(space)


def _is_real(value):
    # A float first: the ABC check costs microseconds, and providers make targets every frame.
    return type(value) is float or (isinstance(value, numbers.Real) and not isinstance(value, bool))


def _fits_float(value):
    try:
        float(value)
    except OverflowError:  # an int beyond float range
        return False
    return True


def _three_numbers(value, name):
    if isinstance(value, LVecBase3f):   # a Point3 or Vec3 holds three floats (what providers pass)
        return (value[0], value[1], value[2])
    try:
        values = tuple(value)
    except TypeError:
        values = ()
    if len(values) != 3 or not all(_is_real(v) and _fits_float(v) for v in values):
        raise UsageError(f"WarpTarget {name}: expected a Point3 or three numbers (x, y, z), got {shown(value)}")
    return values
