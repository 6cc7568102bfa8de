"""Planar rigid motions (translation + heading about Z), the algebra of root motion."""
import math

import numpy as np


class Motion:
    """A translation `pos` (numpy 3-vector) followed by nothing else, then a turn of `h` degrees.

    Read as a transform from a child frame to its parent: a point p maps to Rz(h) p + pos.
    """

    __slots__ = ("pos", "h")

    def __init__(self, pos=(0.0, 0.0, 0.0), h=0.0):
        self.pos = np.asarray(pos, dtype=np.float64)
        self.h = float(h)

    def rotate(self, v):
        """Rotate a 3-vector by this motion's heading."""
        c, s = math.cos(math.radians(self.h)), math.sin(math.radians(self.h))
        return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1], v[2]])

    def __mul__(self, other):
        """Compose: first `other` (in this motion's frame), then this."""
        return Motion(self.pos + self.rotate(other.pos), self.h + other.h)

    def inverse(self):
        back = Motion((0.0, 0.0, 0.0), -self.h)
        return Motion(-back.rotate(self.pos), -self.h)

    def __pow__(self, count):
        """This motion repeated `count` times (negative: the inverse repeated)."""
        result, step = Motion(), (self if count >= 0 else self.inverse())
        for _ in range(abs(count)):
            result = result * step
        return result

    def __repr__(self):
        return f"Motion(pos={self.pos.round(5).tolist()}, h={self.h:.4f})"
