"""Warp targets: where (and facing which way) a phase must end."""
import dataclasses
import math

from panda3d.core import LQuaternion, NodePath, Point3, Vec3


@dataclasses.dataclass
class WarpTarget:
    """A world point plus a heading (or a full HPR rotation), optionally riding a moving NodePath.

    With `follow`, `pos` and the rotation are in that node's space and re-read every frame,
    so a target on a moving platform is reached where the platform is when the phase ends.
    """

    pos: Point3
    h: float = 0.0
    hpr: tuple = None
    follow: NodePath = None

    def __post_init__(self):
        self.pos = Point3(*self.pos)
        if self.hpr is not None:
            self.hpr = Vec3(*self.hpr)

    def is_finite(self):
        values = list(self.pos) + ([self.h] if self.hpr is None else list(self.hpr))
        return all(math.isfinite(v) for v in values)

    def local_quat(self):
        quat = LQuaternion()
        quat.setHpr(self.hpr if self.hpr is not None else Vec3(self.h, 0, 0))
        return quat

    def resolve(self, space, world):
        """Position (Point3) and rotation (LQuaternion) of the target in `space` (the actor's parent)."""
        frame = self.follow if self.follow is not None else world
        pos = space.getRelativePoint(frame, self.pos)
        return pos, self.local_quat() * frame.getQuat(space)
