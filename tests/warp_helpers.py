"""Running warps frame by frame in tests, and the obstacle geometry the shipped assets expect."""
import math
import random

import numpy as np
from panda3d.core import Point3

from motionwarp import WarpTarget

from .conftest import step

LANDING_PAST_FAR_FACE = 1.0
STAND_PAST_EDGE = 0.5


def rotated(h, x, y, z):
    """(x, y, z) turned by heading h degrees about Z."""
    c, s = math.cos(math.radians(h)), math.sin(math.radians(h))
    return Point3(c * x - s * y, s * x + c * y, z)


def vault_targets(height, depth, distance, h=0.0):
    """Close edge, far edge and landing point of a box `distance` ahead, the whole course turned by h."""
    return [WarpTarget(rotated(h, 0, distance, height), h=h),
            WarpTarget(rotated(h, 0, distance + depth, height), h=h),
            WarpTarget(rotated(h, 0, distance + depth + LANDING_PAST_FAR_FACE, 0.0), h=h)]


def clip_rise(asset, phase):
    """How far the clip's own root rises over `phase` (from its track, unscaled)."""
    track = asset.track
    return float(track.position(phase.end * track.fps)[2] - track.position(phase.start * track.fps)[2])


def ledge_targets(height, distance, h=0.0):
    """The ledge top's close edge `distance` ahead, and where the shipped mantles stand on a flat top:
    STAND_PAST_EDGE further in (their clips end standing there: mannequin.contacts.json's root_end)."""
    return [WarpTarget(rotated(h, 0, distance, height), h=h),
            WarpTarget(rotated(h, 0, distance + STAND_PAST_EDGE, height), h=h)]


class WarpRun:
    """Plays a warp and steps frames until it ends, recording what a player would see."""

    def __init__(self, base, warper, asset, targets, fps=60, hitch_seed=None, max_seconds=6.0):
        self.base, self.warper, self.asset = base, warper, asset
        self.positions, self.dts, self.rates = [], [], []
        self.events = []
        self.warp = warper.play(asset, targets)
        control = warper.actor.getAnimControl(asset.clip)
        rng = random.Random(hitch_seed) if hitch_seed is not None else None
        step(base, 1.0 / fps)
        elapsed = 0.0
        while warper.is_warping and elapsed < max_seconds:
            dt = 1.0 / fps
            if rng is not None and rng.random() < 0.05:
                dt = rng.uniform(0.05, 0.25)
            step(base, dt)
            elapsed += dt
            self.dts.append(dt)
            self.positions.append(np.array(warper.actor.getPos()))
            if self.warp.in_phase:
                self.rates.append((self.warp.phase_index, control.getPlayRate()))

    @property
    def finished(self):
        return not self.warper.is_warping and len(self.warp.results) == len(self.asset.phases)

    def max_speed(self):
        """Largest per-frame speed of the actor (m/s)."""
        steps = np.linalg.norm(np.diff(np.array(self.positions), axis=0), axis=1)
        return float(np.max(steps / np.array(self.dts[1:])))


def clip_max_speed(track):
    """Largest speed of a clip's own root motion at play rate 1 (m/s)."""
    return float(np.max(np.linalg.norm(np.diff(track.positions, axis=0), axis=1)) * track.fps)
