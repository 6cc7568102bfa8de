"""Planar rigid motions (translation + heading about Z), the algebra of root motion, and moving a NodePath by one."""
import math

import numpy as np
from panda3d.core import LQuaternion


class Motion:
    """A transform from a child frame to its parent: turn by `h` degrees about Z, then move by `pos`.

    Plain floats, not numpy: these run per character per frame on 3-vectors.
    """

    __slots__ = ("pos", "h")

    def __init__(self, pos=(0.0, 0.0, 0.0), h=0.0):
        self.pos = (float(pos[0]), float(pos[1]), float(pos[2]))
        self.h = float(h)

    def rotate(self, v):
        """Rotate a 3-vector by this motion's heading."""
        c, s = math.cos(math.radians(self.h)), math.sin(math.radians(self.h))
        return (c * v[0] - s * v[1], s * v[0] + c * v[1], v[2])

    def __mul__(self, other):
        """Compose: first `other` (in this motion's frame), then this."""
        r = self.rotate(other.pos)
        return Motion((self.pos[0] + r[0], self.pos[1] + r[1], self.pos[2] + r[2]), self.h + other.h)

    def inverse(self):
        back = Motion((0.0, 0.0, 0.0), -self.h).rotate(self.pos)
        return Motion((-back[0], -back[1], -back[2]), -self.h)

    def __pow__(self, count):
        """This motion repeated `count` times (negative: the inverse repeated)."""
        result, step = Motion(), (self if count >= 0 else self.inverse())
        for _ in range(abs(count)):
            result = result * step
        return result

    def __repr__(self):
        return f"Motion(pos={tuple(round(v, 5) for v in self.pos)}, h={self.h:.4f})"


def turn_points(points, degrees):
    """Nx3 points (numpy) turned by `degrees` about Z, all at once."""
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.column_stack([c * points[:, 0] - s * points[:, 1], s * points[:, 0] + c * points[:, 1], points[:, 2]])


def move_nodepath(nodepath, motion):
    """Move a NodePath by a Motion expressed in its own (local) frame, with one absolute write."""
    move_by(nodepath, motion.pos[0], motion.pos[1], motion.pos[2], motion.h)


def move_by(nodepath, x, y, z, h):
    """Move a NodePath by (x, y, z) and `h` degrees about its own Z, both in its own frame
    (scale included), with one absolute write: the plain-float form of `move_nodepath`."""
    pos = nodepath.getMat().xformPoint((x, y, z))
    if h:
        half = math.radians(h) * 0.5
        nodepath.setPosQuat(pos, LQuaternion(math.cos(half), 0.0, 0.0, math.sin(half)) * nodepath.getQuat())
    else:
        nodepath.setPos(pos)
