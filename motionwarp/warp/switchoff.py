"""Switch-off rules for moving targets (docs/design.md 4, End): a phase whose followed target moves
more than `switch_off_distance` or turns more than `switch_off_angle` from where it was when the
warp started ends the warp early, with a reason (an enemy dodging out of a takedown)."""
from panda3d.core import Point3, Quat

from .warpmath import angle_between


class SwitchOff:
    """One phase's switch-off rules and where its target was when the warp started
    (in the actor's parent's space)."""

    __slots__ = ("index", "phase", "start_pos", "start_quat")

    def __init__(self, index, phase, anchor):
        self.index, self.phase = index, phase
        self.start_pos, self.start_quat = Point3(anchor[0]), Quat(anchor[1])

    def reason(self, anchor):
        """Why the target at `anchor` (position, rotation) switches the warp off, or None."""
        phase = self.phase
        pos, quat = anchor
        if phase.switch_off_distance is not None:
            moved = (pos - self.start_pos).length()
            if moved > phase.switch_off_distance:
                return (f"the target of phase {phase.name!r} moved {moved:.2f} m from where it was when the warp "
                        f"started (switch_off_distance {phase.switch_off_distance:g} m)")
        if phase.switch_off_angle is not None:
            turned = angle_between(self.start_quat, quat)
            if turned > phase.switch_off_angle:
                return (f"the target of phase {phase.name!r} turned {turned:.1f} degrees from how it was when the "
                        f"warp started (switch_off_angle {phase.switch_off_angle:g} degrees)")
        return None


def switch_offs(phases, targets, anchors):
    """The SwitchOffs of the phases that have a rule and a target that follows a node (a fixed target
    never moves), for targets resolved to `anchors` now."""
    return [SwitchOff(index, phase, anchor) for index, (phase, target, anchor) in enumerate(zip(phases, targets, anchors))
            if target.follow is not None and (phase.switch_off_distance is not None or phase.switch_off_angle is not None)]
