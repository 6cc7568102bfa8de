"""A phase's share of a clip's root motion: displacement A(t) and cumulative travel S(t) (docs/design.md 4)."""
import bisect
import math

import numpy as np

from ..animation.motion import turn_points


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
        world = np.array([track.position(f) for f in self.frames]) - track.position(f0)
        self.samples = turn_points(world, -track.heading(f0))
        steps = np.abs(np.diff(self.samples, axis=0))
        self.cumulative = np.vstack([np.zeros((1, 3)), np.cumsum(steps, axis=0)])
        #: S(t1) per axis: the phase's total root motion.
        self.total = tuple(float(v) for v in self.cumulative[-1])
        #: A(t1): where the clip alone takes the root over the whole phase.
        self.end_displacement = tuple(float(v) for v in self.samples[-1])
        self.turn = track.heading(f1) - track.heading(f0)
        # Plain-float rows for the per-frame path.
        self._frames = [float(f) for f in self.frames]
        self._samples = [tuple(map(float, row)) for row in self.samples]
        self._cumulative = [tuple(map(float, row)) for row in self.cumulative]

    def _interp(self, rows, frame):
        frames = self._frames
        f = min(max(frame, self.f0), self.f1)
        i = min(bisect.bisect_right(frames, f) - 1, len(frames) - 2)
        a = (f - frames[i]) / (frames[i + 1] - frames[i])
        r0, r1 = rows[i], rows[i + 1]
        return (r0[0] + (r1[0] - r0[0]) * a, r0[1] + (r1[1] - r0[1]) * a, r0[2] + (r1[2] - r0[2]) * a)

    def displacement(self, frame):
        """A at a frame (clamped to the phase), as an (x, y, z) tuple."""
        return self._interp(self._samples, frame)

    def travel(self, frame):
        """S at a frame (clamped to the phase), as an (x, y, z) tuple."""
        return self._interp(self._cumulative, frame)
