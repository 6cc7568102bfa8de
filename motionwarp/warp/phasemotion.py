"""A phase's share of a clip's root motion: displacement A(t) and cumulative travel S(t) (docs/design.md 4)."""
import bisect
import math

import numpy as np

from ..animation.motion import turn_points

#: How far below a phase's first or last frame (clip frames) a clip time counts as that frame: Panda3D
#: computes the clip time from the clock's absolute time, so a frame that lands on the boundary reads a
#: hair below or above it by where the clock started; without this a warp played at a fixed frame rate
#: would end a phase in that frame or the next, and play on differently, by when it started.
FRAME_TIE = 1e-6


def at_boundary(cur, boundary):
    """`boundary` when the clip time `cur` is within FRAME_TIE below it, else `cur`."""
    return boundary if boundary - FRAME_TIE <= cur < boundary else cur


class PhaseMotion:
    """Root motion of one clip between frames f0 and f1, in the root frame at f0.

    `displacement(f)` is A(t) = root(t) - root(t0); `travel(f)` is the per-axis cumulative
    sum of |delta| from f0 (monotonic, so it turns "how far along" into a weight even when
    the motion goes up and back down); `total` is travel(f1), the phase's total root motion.
    `warp_from` (clip frames; None: f0) is where the warp's weights start rising (`w0`).
    """

    def __init__(self, track, f0, f1, warp_from=None):
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
        #: The frame the weights start rising from (`warp_from`, never before f0), S there, and the travel
        #: the weights follow from there to f1, S(t1) - S(w0) (docs/design.md 4, Held warp).
        self.w0 = self.f0 if warp_from is None else min(max(float(warp_from), self.f0), self.f1)
        self.held = tuple(float(np.interp(self.w0, self.frames, self.cumulative[:, axis])) for axis in range(3))
        self.warped = tuple(total - held for total, held in zip(self.total, self.held))
        self.turn = track.heading(f1) - track.heading(f0)
        # Plain-float knots for the per-frame path: per span between two knots its first frame, A and S
        # there and their slopes per frame, so a frame costs one search and no division.
        self._frames = [float(f) for f in self.frames]
        rows = np.hstack([self.samples, self.cumulative])
        slopes = np.diff(rows, axis=0) / np.diff(self.frames)[:, None]
        self.spans = [tuple(map(float, row)) + tuple(map(float, slope)) for row, slope in zip(rows[:-1], slopes)]
        self._last = len(self.spans) - 1

    def at(self, frame):
        """A and S at a frame (clamped to the phase), as one (Ax, Ay, Az, Sx, Sy, Sz) tuple."""
        f, (ax, ay, az, sx, sy, sz, dax, day, daz, dsx, dsy, dsz) = self.span(frame)
        return (ax + dax * f, ay + day * f, az + daz * f, sx + dsx * f, sy + dsy * f, sz + dsz * f)

    def span(self, frame):
        """(frames from the span's first knot, its row: A and S there, then their slopes per frame) at a
        frame clamped to the phase: what placing a frame interpolates."""
        f = self.f0 if frame < self.f0 else (self.f1 if frame > self.f1 else frame)
        i = bisect.bisect_right(self._frames, f) - 1
        if i > self._last:
            i = self._last
        return f - self._frames[i], self.spans[i]

    def displacement(self, frame):
        """A at a frame (clamped to the phase), as an (x, y, z) tuple."""
        return self.at(frame)[:3]

    def travel(self, frame):
        """S at a frame (clamped to the phase), as an (x, y, z) tuple."""
        return self.at(frame)[3:]
