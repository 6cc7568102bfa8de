"""Where hands and feet touch the world: plants, effector plans between them, and the contact
and obstacle records written to mannequin.contacts.json (rounded, so the file is exact).
"""
import math

import numpy as np

from .curves import ramp, smoothstep
from .skeleton import SIDES


class Plant:
    """A contact: the effector joint holds `pos` from t0 to t1 and touches `surface`."""

    def __init__(self, t0, t1, pos, surface_z, reach_in=0.0, reach_out=0.0, rot=None, surface=None):
        self.t0, self.t1 = float(t0), float(t1)
        self.pos = np.array(pos, dtype=np.float64)
        self.surface = np.array(surface if surface is not None else (pos[0], pos[1], surface_z),
                                dtype=np.float64)
        self.reach_in, self.reach_out = reach_in, reach_out
        self.rot = rot


class EffectorPlan:
    """Plants in time order; between plants either a 'step' (lifted arc) or 'free' motion.

    Free motion comes from `free(t)` (e.g. relative to the body); blending into / out of a
    plant takes the plant's reach_in / reach_out seconds.  Returns (target, plant weight, plant).
    """

    def __init__(self, plants, gaps=(), free=None, lift=0.08, arc=0.0):
        self.plants = plants
        self.gaps = list(gaps) or ["step"] * (len(plants) - 1)
        self.free = free
        self.lift = lift
        self.arc = arc      # upward bulge of the path while reaching in/out of a plant

    def _blend_free(self, t, plant, w):
        if self.free is None or w >= 1.0:
            return plant.pos.copy(), 1.0, plant
        free = self.free(t)
        pos = free + w * (plant.pos - free)
        pos[2] += self.arc * math.sin(math.pi * w)
        return pos, w, plant

    def weight(self, t):
        """How much the effector is held by a plant at time t (1 inside a plant, 0 when free)."""
        for i, p in enumerate(self.plants):
            if p.t0 <= t <= p.t1:
                return 1.0
            if t < p.t0:
                prev = self.plants[i - 1] if i > 0 else None
                if prev is not None and self.gaps[i - 1] == "step":
                    return 1.0
                w_in = ramp(t, p.t0 - p.reach_in, p.t0) if p.reach_in else (1.0 if prev is None else 0.0)
                w_out = 0.0
                if prev is not None:
                    w_out = 1.0 - ramp(t, prev.t1, prev.t1 + prev.reach_out) if prev.reach_out else 0.0
                return max(w_in, w_out)
        last = self.plants[-1]
        return 1.0 - ramp(t, last.t1, last.t1 + last.reach_out) if last.reach_out else 1.0

    def __call__(self, t):
        ps = self.plants
        if t < ps[0].t0:
            p = ps[0]
            return self._blend_free(t, p, ramp(t, p.t0 - p.reach_in, p.t0) if p.reach_in else 1.0)
        if t > ps[-1].t1:
            p = ps[-1]
            return self._blend_free(t, p, 1.0 - ramp(t, p.t1, p.t1 + p.reach_out) if p.reach_out else 1.0)
        for i, p in enumerate(ps):
            if p.t0 <= t <= p.t1:
                return p.pos.copy(), 1.0, p
            nxt = ps[i + 1]
            if p.t1 < t < nxt.t0:
                if self.gaps[i] == "step":
                    u = (t - p.t1) / (nxt.t0 - p.t1)
                    pos = p.pos + smoothstep(u) * (nxt.pos - p.pos)
                    pos[2] += self.lift * math.sin(math.pi * u)
                    return pos, 1.0, None
                w_out = 1.0 - ramp(t, p.t1, p.t1 + p.reach_out) if p.reach_out else 0.0
                w_in = ramp(t, nxt.t0 - nxt.reach_in, nxt.t0) if nxt.reach_in else 0.0
                if w_in >= w_out:
                    return self._blend_free(t, nxt, w_in)
                return self._blend_free(t, p, w_out)
        raise AssertionError("unreachable")

    def contacts(self, joint):
        return [contact_record(joint, p.t0, p.t1, p.pos, p.surface) for p in self.plants]


def contact_record(joint, t0, t1, pos, surface):
    r = lambda v: [round(float(x), 4) + 0.0 for x in v]  # noqa: E731  (+0.0: no "-0.0")
    return {"joint": joint, "start": round(float(t0), 4), "end": round(float(t1), 4),
            "pos": r(pos), "surface": r(surface)}


def box_obstacle(bmin, bmax):
    bmin, bmax = np.array(bmin, dtype=np.float64), np.array(bmax, dtype=np.float64)
    pos = [(bmin[0] + bmax[0]) / 2, (bmin[1] + bmax[1]) / 2, bmin[2]]
    r = lambda v: [round(float(x), 4) + 0.0 for x in v]  # noqa: E731
    return {"shape": "box", "pos": r(pos), "size": r(bmax - bmin), "min": r(bmin), "max": r(bmax)}


def collect_contacts(hand_plans, foot_plans):
    contacts = []
    for s, _ in SIDES:
        contacts += hand_plans[s].contacts(f"hand_{s}") + foot_plans[s].contacts(f"foot_{s}")
    contacts.sort(key=lambda c_: (c_["start"], c_["joint"]))
    return contacts
