"""Targets for the demo's boxes, from their known geometry (scene raycasting providers come later).

A box is vaulted when it is low and shallow, mantled when it is a ledge: the character must
stand in front of its near face, facing it.
"""
import collections

from panda3d.core import Point3

from motionwarp import WarpTarget

LANDING_PAST_FAR_FACE = 1.0
REACH = 2.2            # metres from the near face at which an interaction may start
MAX_FACING_DEG = 40.0  # how squarely the character must face the box

#: What `choose` found: the box, the clip to play, one target per phase, and the distance to the near face.
Interaction = collections.namedtuple("Interaction", "box clip targets distance")


def choose(box, actor, render):
    """An Interaction with `box`, or a string saying why there is none."""
    width, depth, height = box.getPythonTag("size")
    local = box.getRelativePoint(actor, Point3(0, 0, 0))
    facing = (actor.getH(render) - box.getH(render) + 180.0) % 360.0 - 180.0
    distance = -depth / 2 - local.y
    if not (0.0 <= distance <= REACH) or abs(local.x) > width / 2 - 0.2:
        return f"{box.getName()}: not in front of it"
    if abs(facing) > MAX_FACING_DEG:
        return f"{box.getName()}: not facing it ({facing:.0f} degrees off)"

    def at(y, z):
        return WarpTarget(render.getRelativePoint(box, Point3(local.x, y, z)), h=box.getH(render))
    if height <= 1.45 and depth <= 1.3:
        targets = [at(-depth / 2, height), at(depth / 2, height), at(depth / 2 + LANDING_PAST_FAR_FACE, 0.0)]
        return Interaction(box, "vault", targets, distance)
    if height <= 1.75:
        return Interaction(box, "mantle", [at(-depth / 2, height)], distance)
    if height <= 2.25:
        return Interaction(box, "mantle_high", [at(-depth / 2, height)], distance)
    return f"{box.getName()}: too high ({height:.1f} m)"


def nearest(boxes, actor, render):
    """The Interaction with the closest box that allows one, or a string saying why there is none."""
    reasons = []
    for box in sorted(boxes, key=lambda b: (b.getPos(render) - actor.getPos(render)).length()):
        found = choose(box, actor, render)
        if isinstance(found, Interaction):
            return found
        reasons.append(found)
    return reasons[0] if reasons else "nothing to climb here"
