"""Walk and run feet: periodic plants with heel strike, flat foot, toe-off roll and swing."""
import math

import numpy as np

from .contacts import contact_record
from .curves import smoothstep
from .rotations import rx
from .skeleton import ANKLE_H

HEEL = np.array([0.0, -0.06, -ANKLE_H])   # heel contact point relative to the ankle
BALL = np.array([0.0, 0.12, -ANKLE_H])    # ball-of-foot pivot relative to the ankle


class Gait:
    """Periodic gait for one foot.

    Cycle of length T; the ankle is planted (flat foot) during [flat0, flat1] of each cycle
    (fractions of T, offset by `phase`), at y = y0 + k * stride for cycle k.  Before the flat
    phase the foot rolls down from the heel (heel_pitch), after it rolls over the ball
    (toe_pitch), then swings with a lifted arc to the next heel strike.
    """

    def __init__(self, T, stride, x, y0, phase, flat, heel=(0.06, 0.25), toe=(0.12, -0.6),
                 lift=0.08, tuck=0.0):
        self.T, self.stride, self.x, self.y0, self.phase = T, stride, x, y0, phase
        self.flat0, self.flat1 = flat
        self.heel_len, self.heel_pitch = heel
        self.toe_len, self.toe_pitch = toe
        self.lift, self.tuck = lift, tuck

    def plant_pos(self, k):
        return np.array([self.x, self.y0 + k * self.stride, ANKLE_H])

    def _heel_pose(self, k, pitch):
        heel = self.plant_pos(k) + HEEL
        return heel - rx(pitch) @ HEEL, pitch

    def _toe_pose(self, k, pitch):
        ball = self.plant_pos(k) + BALL
        return ball - rx(pitch) @ BALL, pitch

    def __call__(self, t):
        """(ankle position, foot pitch, planted?) at time t."""
        c = t / self.T - self.phase
        k = math.floor(c - self.flat0 + self.heel_len)   # cycle whose heel strike began last
        u = c - k                                         # flat0 - heel_len <= u < ... + 1
        h0 = self.flat0 - self.heel_len
        t1 = self.flat1 + self.toe_len
        if u < self.flat0:
            pitch = self.heel_pitch * (1.0 - smoothstep((u - h0) / self.heel_len))
            pos, pitch = self._heel_pose(k, pitch)
            return pos, pitch, False
        if u <= self.flat1:
            return self.plant_pos(k), 0.0, True
        if u < t1:
            pitch = self.toe_pitch * smoothstep((u - self.flat1) / self.toe_len)
            pos, pitch = self._toe_pose(k, pitch)
            return pos, pitch, False
        # swing from toe-off (cycle k) to the heel strike of cycle k + 1
        a, pa = self._toe_pose(k, self.toe_pitch)
        b, pb = self._heel_pose(k + 1, self.heel_pitch)
        s = (u - t1) / (h0 + 1.0 - t1)
        e = smoothstep(s)
        pos = a + e * (b - a)
        pos[2] += self.lift * math.sin(math.pi * s) ** 1.5
        pos[1] -= self.tuck * math.sin(math.pi * s) * (1.0 - s)
        pitch = pa + e * (pb - pa)
        return pos, pitch, False

    def contacts(self, joint, duration):
        """Flat-foot windows intersecting [0, duration] (clipped)."""
        out = []
        k0 = math.floor(-self.phase - 1)
        for k in range(k0, k0 + int(duration / self.T) + 3):
            s = (k + self.phase + self.flat0) * self.T
            e = (k + self.phase + self.flat1) * self.T
            if e <= 0 or s >= duration:
                continue
            pos = self.plant_pos(k)
            out.append(contact_record(joint, max(s, 0.0), min(e, duration), pos, (pos[0], pos[1], 0.0)))
        return out
