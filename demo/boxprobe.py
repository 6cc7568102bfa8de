"""Targets for the demo's boxes, from their known geometry (scene raycasting providers come later).

A box is vaulted when it is low and shallow, mantled when it is a ledge: the character must
stand in front of its near face, facing it.
"""
from panda3d.core import Point3

from motionwarp import WarpTarget

LANDING_PAST_FAR_FACE = 1.0
REACH = 2.2            # metres from the near face at which an interaction may start
MAX_FACING_DEG = 40.0  # how squarely the character must face the box


def choose(box, actor, render):
    """(clip name, targets) for interacting with `box`, or (None, reason)."""
    width, depth, height = box.getPythonTag("size")
    local = box.getRelativePoint(actor, Point3(0, 0, 0))
    facing = (actor.getH(render) - box.getH(render) + 180.0) % 360.0 - 180.0
    distance = -depth / 2 - local.y
    if not (0.0 <= distance <= REACH) or abs(local.x) > width / 2 - 0.2:
        return None, f"{box.getName()}: not in front of it"
    if abs(facing) > MAX_FACING_DEG:
        return None, f"{box.getName()}: not facing it ({facing:.0f} degrees off)"
    def at(y, z):
        return WarpTarget(render.getRelativePoint(box, Point3(local.x, y, z)), h=box.getH(render))
    if height <= 1.45 and depth <= 1.3:
        return "vault", [at(-depth / 2, height), at(depth / 2, height), at(depth / 2 + LANDING_PAST_FAR_FACE, 0.0)]
    if height <= 1.75:
        return "mantle", [at(-depth / 2, height)]
    if height <= 2.25:
        return "mantle_high", [at(-depth / 2, height)]
    return None, f"{box.getName()}: too high ({height:.1f} m)"


def nearest(boxes, actor, render):
    """The best interaction among `boxes`: (box, clip, targets) or (None, None, reason)."""
    reasons = []
    for box in sorted(boxes, key=lambda b: (b.getPos(render) - actor.getPos(render)).length()):
        clip, targets = choose(box, actor, render)
        if clip:
            return box, clip, targets
        reasons.append(targets)
    return None, None, reasons[0] if reasons else "nothing to climb here"


__all__ = ["choose", "nearest"]
