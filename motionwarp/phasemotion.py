"""A phase's share of a clip's root motion: displacement A(t) and cumulative travel S(t) (DESIGN.md 4)."""
import math

import numpy as np


class PhaseMotion:
    """Root motion of one clip between frames f0 and f1, in the root frame at f0.

    `displacement(f)` is A(t) = root(t) - root(t0); `travel(f)` is the per-axis cumulative
    sum of |delta| from f0 (monotonic, so it turns "how far along" into a weight even when
    the motion goes up and back down); `total` is travel(f1), the phase's total root motion.
    """

    def __init__(self, track, f0, f1):
        self.f0, self.f1 = float(f0), float(f1)
        inner = np.arange(math.floor(f0) + 1, math.ceil(f1))
        self.frames = np.concatenate([[self.f0], inner, [self.f1]])
        h0 = math.radians(track.heading(f0))
        c, s = math.cos(-h0), math.sin(-h0)
        world = np.array([track.position(f) for f in self.frames]) - track.position(f0)
        self.samples = np.column_stack([c * world[:, 0] - s * world[:, 1], s * world[:, 0] + c * world[:, 1], world[:, 2]])
        steps = np.abs(np.diff(self.samples, axis=0))
        self.cumulative = np.vstack([np.zeros((1, 3)), np.cumsum(steps, axis=0)])
        self.total = self.cumulative[-1].copy()
        self.turn = track.heading(f1) - track.heading(f0)

    def _interp(self, table, frame):
        f = min(max(frame, self.f0), self.f1)
        return np.array([np.interp(f, self.frames, table[:, axis]) for axis in range(3)])

    def displacement(self, frame):
        """A at a frame (clamped to the phase)."""
        return self._interp(self.samples, frame)

    def travel(self, frame):
        """S at a frame (clamped to the phase)."""
        return self._interp(self.cumulative, frame)

    @property
    def end_displacement(self):
        """A(t1): where the clip alone takes the root over the whole phase."""
        return self.samples[-1].copy()
