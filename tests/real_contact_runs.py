"""Contact IK on real props (issue 26): a traversal the demo's chooser offers a character walking up to
a real prop (tests/real_props.py) played with the contact IK and without (tests/contact_helpers.py),
measured against the prop's own triangles (read from its GLB bytes, never the probe).

- hand: |planted hand z - its authored palm height - the surface under the point it touches|, that
  surface the highest of the prop's triangles (or the ground) from `motionwarp-ik-ray-above` (0.5 m)
  above the target's height down; a touched point off the prop, or whose surface lies more than
  `motionwarp-ik-surface-reach` (0.15 m) below the target's height, is counted apart ("apart"): there
  the IK keeps the warp's target by design (design 5.1);
- feet: lowest and highest a planted sole (the foot joint less its authored height) is above what is
  under it, the prop's highest triangle below the joint + 0.5 m, else the ground (z = 0);
- hips: the most, over frames, the hips are lower with the IK than in the same frame without it.
"""
import math

import numpy
from panda3d.core import Vec3

from .contact_helpers import ContactRun, truth

#: How far above the target's height the IK's ray starts and how far below it reaches (the defaults).
RAY_ABOVE, SURFACE_REACH = 0.5, 0.15


class PropSurface:
    """A level adapter for ContactRun: `root` (the Panda3D scene), and the prop's own triangles' heights."""

    def __init__(self, root, placed):
        self.root, self.placed = root, placed

    def drop(self, x, y, top=100.0):
        """The highest prop triangle under (x, y) below `top` (nan: none)."""
        z, _ = self.placed.drops(x, y, top)
        return float(z)

    def surface(self, x, y, top=100.0):
        """What is under (x, y) below `top`: the prop, else the ground (z = 0)."""
        z = self.drop(x, y, top)
        return max(z, 0.0) if math.isfinite(z) else 0.0

    def on_prop(self, x, y):
        return math.isfinite(self.drop(x, y))


def hand_gaps(run, level):
    """[(clip time, joint, gap m or None when counted apart, why)] for every planted-hand frame."""
    phases = [phase.name for phase in run.asset.phases]
    targets = {(contact.joint, round(contact.start, 3)): run.found.targets[phases.index(contact.phase)].pos.z
               for contact in run.asset.contacts if contact.touches == "target" and contact.phase in phases}
    rows = []
    for contact in truth(run.asset.clip)["contacts"]:
        if not contact["joint"].startswith("hand"):
            continue
        target = targets[(contact["joint"], round(contact["start"], 3))]
        palm = contact["pos"][2] - contact["surface"][2]
        reach = (contact["surface"][0] - contact["pos"][0], contact["surface"][1] - contact["pos"][1], 0.0)
        for frame in run.within(contact):
            pos = frame["pos"][contact["joint"]]
            touch = pos + frame["turn"].xform(Vec3(*reach))
            under = level.drop(touch.x, touch.y, target + RAY_ABOVE)
            if not math.isfinite(under):
                rows.append((frame["t"], contact["joint"], None, "off the prop"))
            elif under < target - SURFACE_REACH:
                rows.append((frame["t"], contact["joint"], None, f"surface {100 * (target - under):.0f} cm below"))
            else:
                rows.append((frame["t"], contact["joint"], pos.z - palm - under, ""))
    return rows


def foot_gaps(run, level):
    """[(clip time, joint, sole above what is under it m)] for every planted-foot frame."""
    rows = []
    for contact in truth(run.asset.clip)["contacts"]:
        if not contact["joint"].startswith("foot"):
            continue
        ankle = contact["pos"][2] - contact["surface"][2]
        for frame in run.within(contact):
            pos = frame["pos"][contact["joint"]]
            rows.append((frame["t"], contact["joint"], pos.z - ankle - level.surface(pos.x, pos.y, pos.z + RAY_ABOVE)))
    return rows


def planted_feet(run, level, feet):
    """[(clip time, joint, sole above what is under it m)] for every frame inside the window of each contact of
    `feet` in the played asset (any rig: the joint less the contact's authored height, `offset` z)."""
    rows = []
    for contact in run.asset.contacts:
        if contact.joint not in feet:
            continue
        for frame in run.frames:
            if contact.start <= frame["t"] <= contact.end:
                pos = frame["pos"][contact.joint]
                rows.append((frame["t"], contact.joint,
                             pos.z - contact.offset[2] - level.surface(pos.x, pos.y, pos.z + RAY_ABOVE)))
    return rows


def hips_drops(with_ik, without):
    """[(clip time, no-IK hips z - IK hips z)] for every IK frame, the no-IK hips at the same clip time
    (linear between its two frames around it; the two runs' clip times part by a clip frame after a
    phase now and then, so frames are not paired by index); frames outside the no-IK run's times are left out."""
    times = numpy.array([frame["t"] for frame in without.frames])
    heights = numpy.array([frame["pos"]["hips"].z for frame in without.frames])
    if len(times) < 2 or numpy.any(numpy.diff(times) <= 0):
        raise AssertionError("the no-IK run's clip times do not rise frame by frame")
    return [(held["t"], float(numpy.interp(held["t"], times, heights)) - held["pos"]["hips"].z)
            for held in with_ik.frames if times[0] <= held["t"] <= times[-1]]


class Measured:
    """One placement's traversal played with the IK and without, and its numbers (metres)."""

    def __init__(self, base, root, placed, found, y, fps=30):
        self.level = PropSurface(root, placed)
        self.with_ik = ContactRun(base, self.level, None, fps, found=found, pos=(0.0, y, 0.0))
        self.without = ContactRun(base, self.level, None, fps, ik=False, found=found, pos=(0.0, y, 0.0))
        self.finished = self.with_ik.finished and self.without.finished
        #: Did both runs play the same clip times? (Not always: see hips_drops.)
        self.frames_match = [f["t"] for f in self.with_ik.frames] == [f["t"] for f in self.without.frames]
        self.hands = hand_gaps(self.with_ik, self.level)
        self.feet = foot_gaps(self.with_ik, self.level)
        self.drops = hips_drops(self.with_ik, self.without)
        gaps = [abs(gap) for _, _, gap, _ in self.hands if gap is not None]
        self.hand = max(gaps) if gaps else None          # None: no hand on a surface it could be measured on
        self.apart = sum(gap is None for _, _, gap, _ in self.hands)
        soles = [gap for _, _, gap in self.feet]
        self.low, self.high = (min(soles), max(soles)) if soles else (0.0, 0.0)
        self.hips = max([0.0] + [drop for _, drop in self.drops])

    def worst_frames(self, count=3):
        """A few lines naming the worst frames of each measure (to see where an error comes from)."""
        lines = []
        hands = sorted((row for row in self.hands if row[2] is not None), key=lambda row: -abs(row[2]))[:count]
        lines += [f"hand  t={t:.3f} {joint}: {1000 * gap:+.1f} mm" for t, joint, gap, _ in hands]
        lines += [f"hand  t={t:.3f} {joint}: apart ({why})" for t, joint, gap, why in self.hands if gap is None][:count]
        feet = sorted(self.feet, key=lambda row: row[2])
        lines += [f"foot  t={t:.3f} {joint}: {1000 * gap:+.1f} mm" for t, joint, gap in feet[:count] + feet[-count:]]
        drops = sorted(self.drops, key=lambda row: -row[1])[:count]
        lines += [f"hips  t={t:.3f}: {1000 * drop:+.1f} mm below the no-IK run" for t, drop in drops]
        return lines
