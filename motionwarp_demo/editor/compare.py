"""Playing an interaction with warping off, to compare, and the clock controls (slow motion, pause, step).

A clip "unwarped" is played through the same warper, aimed at where its own root motion
takes it from where the character stands: offsets zeroed, each phase's target the clip's root
at that phase's end, so every phase plays at rate 1 and nothing bends.
"""
from panda3d.core import ClockObject, Point3

from motionwarp import WarpTarget
from motionwarp.warp.placement import goal_pose

from ..views.report import arrival_error

#: Slow-motion factors the speed key cycles through.
SPEEDS = (1.0, 0.25, 0.1)


def unwarped(asset, actor, space):
    """`asset` with its offsets removed, and one target per phase where the clip's root lands by itself."""
    data = asset.to_dict()
    for phase in data["phases"]:
        phase["t_offset"], phase["r_offset"] = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
        phase.pop("align_offset", None)
    plain = asset.rebind(data)
    targets = []
    for phase in plain.phases:
        motion = plain.track.motion(phase.end * plain.track.fps)
        targets.append(WarpTarget(space.getRelativePoint(actor, Point3(*motion.pos)), h=actor.getH(space) + motion.h))
    return plain, targets


class Comparison:
    """A clip played unwarped (C) and the goals the warp would have aimed its phases at (offsets
    included, read when it started): how far from each the clip's own root motion ended."""

    def __init__(self, warp, asset, targets, actor, space):
        self.warp = warp
        parent = actor.getParent()
        self.goals = [goal_pose(phase, WarpTarget.of(target).resolve(parent, space), actor.getScale().x)
                      for phase, target in zip(asset.phases, targets)]

    def misses(self):
        """(phase name, metres, degrees) from where each finished phase ended to its goal."""
        return [(result.name, *arrival_error(result, goal)) for result, goal in zip(self.warp.results, self.goals)]


class TimeControl:
    """Slow motion, pause and single steps on a real-time clock, by its degrade factor (dt x factor)."""

    def __init__(self, clock=None):
        self.clock = clock or ClockObject.getGlobalClock()
        self.speed = 1.0
        self.paused = False
        self._stepping = 0  # frames a step still lets through: the key's frame, then the stepped one

    def _apply(self):
        if self.clock.getMode() not in (ClockObject.MNormal, ClockObject.MDegrade):
            return  # a non-real-time clock (headless runs, tests) keeps its fixed frame time
        factor = 0.0 if self.paused and self._stepping == 0 else self.speed
        self.clock.setMode(ClockObject.MNormal if factor == 1.0 else ClockObject.MDegrade)
        self.clock.setDegradeFactor(factor)

    def next_speed(self):
        self.speed = SPEEDS[(SPEEDS.index(self.speed) + 1) % len(SPEEDS)]
        self._apply()

    def toggle_pause(self):
        self.paused = not self.paused
        self._apply()

    def step(self):
        """While paused: let one frame of real time through."""
        if self.paused:
            self._stepping = 2
            self._apply()

    def frame_done(self):
        """Called once a frame: a step lasts one frame."""
        if self._stepping:
            self._stepping -= 1
            if self._stepping == 0:
                self._apply()

    def describe(self):
        if self.paused:
            return "paused (. steps)"
        return f"slow motion x{self.speed:g}" if self.speed != 1.0 else ""
