"""The character's body in the world: a capsule that stands on what is under it, steps up and
down small heights, falls with gravity off anything higher, and slides along what it meets.

Everything it knows of the level comes from the plugin's scene probe (Bullet rays and sweeps),
the same geometry the warp providers measure.
"""
import dataclasses
import math

from panda3d.core import Point3, Vec3

GROUNDED, FALLING = "grounded", "falling"
#: How fast an edge under the capsule's rim pushes a falling character off it (m/s).
EDGE_PUSH_SPEED = 3.0
#: How far back (steps of FREE_STEP_M) a capsule left inside something is moved out.
FREE_STEP_M, FREE_STEPS = 0.05, 40


@dataclasses.dataclass
class BodySettings:
    """The capsule and how it meets the ground (metres, seconds, degrees)."""

    radius: float = 0.3
    height: float = 1.8
    #: Highest step walked up without a vault, and lowest walked down without falling.
    step_up: float = 0.35
    step_down: float = 0.35
    #: Steepest ground walked on; steeper ground is a wall going up and a slide going down.
    max_slope_deg: float = 45.0
    gravity: float = 9.81
    #: Gap kept between the capsule and what it slides along.
    skin: float = 0.02
    #: Slide iterations per frame (a corner needs two).
    slides: int = 3
    #: The kill plane: a fall that passes below this height has left the world (nothing under it
    #: will ever come); the body stops there and reports it (`left_world`) for a respawn.
    kill_z: float = -math.inf


class CharacterBody:
    """Moves `node` (the character's feet) by what its clips asked for, as the world allows.

    `update(dt)` is called each frame after the root motion moved the node: the move since the
    last update is taken again with the capsule, so it stops at walls and slides along them.
    While falling, the horizontal velocity it had when it left the ground carries it.
    The capsule's lower end is `step_up` above the feet: what is lower is stepped onto.
    """

    def __init__(self, node, probe, settings=None, space=None):
        self.node, self.probe = node, probe
        self.settings = settings or BodySettings()
        self.space = space if space is not None else node.getParent()
        self.state = GROUNDED
        self.vz = 0.0
        self.velocity = Vec3(0, 0, 0)   # horizontal, carried into a fall
        self.fall_from = None           # height where the current fall began
        #: Set by each landing: (height fallen, where); a reader clears it.
        self.landed = None
        #: Set where a fall passed the kill plane (BodySettings.kill_z); a reader clears it.
        self.left_world = None
        self.last = None
        self.resume()

    # -- the capsule ----------------------------------------------------------------------
    @property
    def capsule_length(self):
        return self.settings.height - self.settings.step_up

    def capsule_centre(self, feet):
        """Centre of the collision capsule of a character whose feet are at `feet`."""
        return Point3(feet.x, feet.y, feet.z + self.settings.step_up + self.capsule_length / 2)

    def _sweep(self, feet, move):
        """The first hit of the capsule moved by `move` from `feet`, or None."""
        start = self.capsule_centre(feet)
        end = start + move
        # float32: far from the origin (100 km: 8 mm apart) a short move may not move the point at all, and
        # a sweep between two equal points is refused; there is nothing to meet on a move that short
        if move.lengthSquared() < 1e-10 or (end - start).lengthSquared() < 1e-12:
            return None
        return self.probe.sweep_capsule(self.settings.radius, self.capsule_length, start, end)

    def _slide(self, feet, move, horizontal):
        """Move `feet` by `move`, stopping `skin` short of what is hit and sliding along it."""
        feet = Point3(feet)
        for _ in range(self.settings.slides):
            length = move.length()
            if length < 1e-6:
                break
            hit = self._sweep(feet, move)
            if hit is None:
                return feet + move
            along = max(0.0, hit.fraction * length - self.settings.skin)
            feet += move * (along / length)
            normal = Vec3(hit.normal.x, hit.normal.y, 0 if horizontal else hit.normal.z)
            if normal.lengthSquared() < 1e-8:
                break
            normal.normalize()
            rest = move * (1.0 - along / length)
            move = rest - normal * min(0.0, rest.dot(normal))
        return feet

    # -- the ground -----------------------------------------------------------------------
    def ground(self, feet, above, below):
        """(height, incline in degrees) of what is under `feet` from `above` to `below` it, or None."""
        found = self.probe.drop(feet.x, feet.y, feet.z + above, feet.z - below)
        if found is None:
            return None
        z, cos = found
        return z, math.degrees(math.acos(min(1.0, cos)))

    def walkable(self, incline):
        return incline <= self.settings.max_slope_deg

    # -- per frame ------------------------------------------------------------------------
    def overlaps(self, feet):
        """The scene node the capsule of a character with feet at `feet` is inside, or None."""
        return self.probe.capsule_overlaps(self.settings.radius, self.capsule_length, self.capsule_centre(feet))

    def _free(self, feet):
        """Out of whatever a cancelled warp left the capsule in: onto its top when that is less
        than half the body above the feet, else back the way the character faces."""
        if self.overlaps(feet) is None:
            return feet
        height = self.settings.height
        top = self.probe.drop(feet.x, feet.y, feet.z + height, feet.z)
        if top is not None and top[0] - feet.z < height / 2 and self.overlaps(Point3(feet.x, feet.y, top[0])) is None:
            return Point3(feet.x, feet.y, top[0])
        back = self.space.getRelativeVector(self.node, Vec3(0, -1, 0))
        back.z = 0
        back.normalize()
        for step in range(1, FREE_STEPS + 1):
            out = feet + back * (FREE_STEP_M * step)
            if self.overlaps(out) is None:
                return out
        return feet

    def resume(self):
        """Take the node where it is now (at start, and when a warp hands the motion back)."""
        self.last = self._free(self.node.getPos(self.space))
        self.node.setPos(self.space, self.last)
        self.velocity = Vec3(0, 0, 0)
        # From half the body up: a cancelled warp can leave the feet under a top, or the ground.
        under = self.ground(self.last, self.settings.height / 2, self.settings.step_down)
        if under is not None and self.walkable(under[1]):
            self.state, self.vz = GROUNDED, 0.0
            self.node.setZ(self.space, under[0])
            self.last.z = under[0]
        else:
            self._start_fall(self.last)

    def update(self, dt, velocity):
        """Redo this frame's move with the capsule, then stand on the ground or fall.

        `velocity` is the horizontal velocity the clips move the character at now: a fall
        carries it (a frame's move over the frame's time would not: Panda3D's animation time
        and frame time can disagree for a frame around a hitch).
        """
        if dt <= 0.0:
            self.node.setPos(self.space, self.last)
            return
        start = self.last
        asked = self.node.getPos(self.space) - start
        move = Vec3(asked.x, asked.y, 0) if self.state == GROUNDED else self.velocity * dt
        feet = self._slide(start, move, horizontal=True)
        if self.state == GROUNDED:
            self.velocity = Vec3(velocity.x, velocity.y, 0)
            feet = self._stand(start, feet)
        if self.state == FALLING:
            feet = self._fall(feet, dt)
            if feet.z < self.settings.kill_z:
                feet = self._leave_world(feet)
        self.node.setPos(self.space, feet)
        self.last = Point3(feet)

    def _stand(self, start, feet):
        """Step up or down onto walkable ground; a steep rise blocks, a drop starts a fall."""
        settings = self.settings
        under = self.ground(feet, settings.step_up, settings.step_down)
        if under is not None and not self.walkable(under[1]) and under[0] > start.z + 1e-3:
            feet = Point3(start)   # a slope too steep to walk up: a wall
            under = self.ground(feet, settings.step_up, settings.step_down)
        if under is None or not self.walkable(under[1]):
            self._start_fall(feet)
            return feet
        return Point3(feet.x, feet.y, under[0])

    def _start_fall(self, feet):
        self.state, self.vz, self.fall_from = FALLING, 0.0, feet.z

    def _fall(self, feet, dt):
        """Fall for `dt`: land on walkable ground, slide down steep ground, slip off edges."""
        settings = self.settings
        self.vz -= settings.gravity * dt
        drop = -self.vz * dt
        under = self.ground(feet, 0.0, drop + 1e-4)
        if under is not None and self.walkable(under[1]):
            self._land(under[0], feet)
            return Point3(feet.x, feet.y, under[0])
        if under is not None:  # steep ground: follow it down, pushed off along its slope
            downhill = self.probe.ray(Point3(feet.x, feet.y, feet.z + 1e-3), Point3(feet.x, feet.y, feet.z - drop - 1e-3))
            if downhill is not None:
                push = Vec3(downhill.normal.x, downhill.normal.y, 0)
                feet = self._slide(feet, push * drop, horizontal=True)
        return self._down(feet, drop, dt)

    def _down(self, feet, drop, dt):
        """Lower the capsule by `drop`; an edge under its rim pushes it off sideways."""
        settings = self.settings
        hit = self._sweep(feet, Vec3(0, 0, -drop))
        if hit is None:
            return Point3(feet.x, feet.y, feet.z - drop)
        feet = Point3(feet.x, feet.y, feet.z - max(0.0, hit.fraction * drop - settings.skin))
        away = Vec3(feet.x - hit.pos.x, feet.y - hit.pos.y, 0)
        if away.lengthSquared() < 1e-8:
            away = Vec3(hit.normal.x, hit.normal.y, 0)
        if away.lengthSquared() < 1e-8:
            return feet
        clear = settings.radius + settings.skin - away.length()
        away.normalize()
        return self._slide(feet, away * min(max(clear, 0.0), max(drop, EDGE_PUSH_SPEED * dt)), horizontal=True)

    def _leave_world(self, feet):
        """Stop a fall at the kill plane: the body holds still there until it is placed anew."""
        feet = Point3(feet.x, feet.y, self.settings.kill_z)
        self.left_world = Point3(feet)
        self.vz, self.velocity = 0.0, Vec3(0, 0, 0)
        return feet

    def _land(self, z, feet):
        self.landed = (self.fall_from - z, Point3(feet.x, feet.y, z))
        self.state, self.vz, self.fall_from = GROUNDED, 0.0, None
        self.velocity = Vec3(0, 0, 0)
