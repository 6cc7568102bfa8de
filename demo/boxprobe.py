"""Targets for the demo's boxes, from their known geometry (scene raycasting providers come later).

A box in front of the character is vaulted when it is low and shallow, mantled when it is a
ledge of a height a mantle clip can reach, and skipped (with the reason) otherwise.
"""
import collections

from panda3d.core import Point3

from motionwarp import WarpTarget

LANDING_PAST_FAR_FACE = 1.0
REACH = 2.2              # metres from the near face at which an interaction may start
MAX_FACING_DEG = 40.0    # how squarely the character must face the box
VAULT_MAX_HEIGHT = 1.45
VAULT_MAX_DEPTH = 1.3
MANTLE_MIN_HEIGHT = 0.9
MANTLE_MAX_HEIGHT = 1.75  # above this, mantle_high
MANTLE_HIGH_MAX_HEIGHT = 2.25

#: A box the character can take: the clip to play, one target per phase, the distance to the near face.
Interaction = collections.namedtuple("Interaction", "box clip targets distance")
#: A box in front of the character that no clip can take, and why.
Skip = collections.namedtuple("Skip", "box reason distance")


def choose(box, actor, render):
    """An Interaction or a Skip for `box`, or None when the character is not in front of it, facing it."""
    width, depth, height = box.getPythonTag("size")
    local = box.getRelativePoint(actor, Point3(0, 0, 0))
    facing = (actor.getH(render) - box.getH(render) + 180.0) % 360.0 - 180.0
    distance = -depth / 2 - local.y
    if not (0.0 <= distance <= REACH) or abs(local.x) > width / 2 - 0.2 or abs(facing) > MAX_FACING_DEG:
        return None

    def at(y, z):
        return WarpTarget(render.getRelativePoint(box, Point3(local.x, y, z)), h=box.getH(render))
    if height <= VAULT_MAX_HEIGHT and depth <= VAULT_MAX_DEPTH:
        targets = [at(-depth / 2, height), at(depth / 2, height), at(depth / 2 + LANDING_PAST_FAR_FACE, 0.0)]
        return Interaction(box, "vault", targets, distance)
    if MANTLE_MIN_HEIGHT <= height <= MANTLE_HIGH_MAX_HEIGHT:
        clip = "mantle" if height <= MANTLE_MAX_HEIGHT else "mantle_high"
        return Interaction(box, clip, [at(-depth / 2, height)], distance)
    if height > MANTLE_HIGH_MAX_HEIGHT:
        reason = (f"too high to vault ({height:.1f} m > {VAULT_MAX_HEIGHT} m) "
                  f"or mantle ({height:.1f} m > {MANTLE_HIGH_MAX_HEIGHT} m)")
    else:
        reason = (f"too deep to vault ({depth:.1f} m > {VAULT_MAX_DEPTH} m) "
                  f"and too low to mantle ({height:.1f} m < {MANTLE_MIN_HEIGHT} m)")
    return Skip(box, reason, distance)


def nearest(boxes, actor, render):
    """The Interaction or Skip of the closest box in front of the character, or None."""
    found = [choose(box, actor, render) for box in boxes]
    found = [f for f in found if f is not None]
    return min(found, key=lambda f: f.distance) if found else None
