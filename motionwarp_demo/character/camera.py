"""A camera orbiting the character that never goes through walls nor into the character.

Drag with a mouse button held to turn it around the character, the wheel moves it nearer or
farther. When something hides the character, the camera comes in front of it (the plugin's
scene probe: a ray for the view, a sphere for room around the lens's near plane), unless that
is nearer than MIN_VIEW_M (walking along a tall crate with the camera on its far side): then it
rises over it to the lowest pitch from which the character is in view, instead of going into
the character, so the wheel still moves it. Only when no pitch sees the character is it
pulled in as close as it must.
"""
import math

from panda3d.core import MouseButton, Point3, Vec3

#: Degrees the camera turns for a drag across the whole window.
DRAG_DEG = (240.0, 120.0)
PITCH_RANGE = (-15.0, 75.0)
DISTANCE_RANGE = (1.5, 20.0)
#: The lens's near distance (metres): Panda3D's default, 1 m, cuts open walls and the character up close.
NEAR = 0.1
#: Radius of the sphere swept from the head to the camera: the near plane's corners stay out of walls.
CLEARANCE = 0.2
#: Nearest the camera comes to the point it looks at, in front of a wall; nearer, it rises instead (metres).
MIN_VIEW_M = 1.2
#: Pitch steps tried above the player's when something hides the character (degrees).
PITCH_STEP = 10.0
#: The character height the demo's views are set for (the mannequin's, metres): a taller or smaller
#: character gets them scaled by its height over this, so it takes as much of the window as the
#: mannequin does and what it walks up to stays in view.
VIEW_HEIGHT_M = 1.8
#: The height the camera looks at, as a share of the character's (1 m on the mannequin).
LOOK_SHARE = 0.55


def model_height(actor, space):
    """How tall `actor` is in `space` (metres, its scale included): the height of its geometry's tight
    bounds as loaded (the bind pose), 0 for an actor with no geometry."""
    bounds = actor.getTightBounds(space)
    return 0.0 if bounds is None else float(bounds[1].z - bounds[0].z)


def framed(view, height):
    """(camera offset, look height) of a view set for a VIEW_HEIGHT_M character, for one `height` metres
    tall (the mannequin's framing for a character with no measurable height)."""
    scale = height / VIEW_HEIGHT_M if height > 0 else 1.0
    return Vec3(view) * scale, LOOK_SHARE * VIEW_HEIGHT_M * scale


class OrbitCamera:
    """Places `camera` around `target`, looking at a point `look_height` above its feet.

    `view` is the camera's start offset from that point in the target's frame. With `follow`
    the orbit turns with the target (the autopilot's view); otherwise it stays put in the
    world while the character turns, and movement keys are read relative to it.
    """

    def __init__(self, camera, target, probe, watcher=None, view=Vec3(0, -6.5, 1.8), follow=False,
                 look_height=1.0, smoothing=0.15, lens=None):
        self.camera, self.target, self.probe, self.watcher = camera, target, probe, watcher
        if lens is not None:
            lens.setNear(NEAR)
        self.follow, self.look_height, self.smoothing = follow, look_height, smoothing
        self.distance = view.length()
        self.pitch = math.degrees(math.asin(view.z / self.distance))
        self.yaw = math.degrees(math.atan2(view.x, -view.y)) + (0.0 if follow else target.getH())
        self._drag = None
        #: True while something else (the curve editor) holds the mouse: the camera does not turn then.
        self.mouse_taken = lambda: False

    @property
    def heading(self):
        """The world heading the camera looks along (degrees)."""
        return self.yaw + (self.target.getH() if self.follow else 0.0)

    def zoom(self, metres):
        self.distance = min(max(self.distance + metres, DISTANCE_RANGE[0]), DISTANCE_RANGE[1])

    def _read_mouse(self):
        watcher = self.watcher
        if watcher is None or not watcher.hasMouse() or self.mouse_taken():
            self._drag = None
            return
        mouse = watcher.getMouse()
        held = watcher.isButtonDown(MouseButton.one()) or watcher.isButtonDown(MouseButton.three())
        if held and self._drag is not None:
            self.yaw -= (mouse.x - self._drag.x) / 2 * DRAG_DEG[0]
            self.pitch = min(max(self.pitch - (mouse.y - self._drag.y) / 2 * DRAG_DEG[1], PITCH_RANGE[0]),
                             PITCH_RANGE[1])
        self._drag = Point3(mouse.x, mouse.y, 0) if held else None

    def look_point(self):
        return self.target.getPos(self.camera.getParent()) + Vec3(0, 0, self.look_height)

    def orbit_place(self, look, pitch):
        """Where the camera is at `pitch` (degrees) with nothing in the way."""
        h, p = math.radians(self.heading), math.radians(pitch)
        return look + Vec3(math.sin(h) * math.cos(p), -math.cos(h) * math.cos(p), math.sin(p)) * self.distance

    def sees(self, look, place):
        """Whether a camera at `place` sees `look` with nothing in between and no wall within its near plane."""
        return (not self.probe.blocked(look, place)
                and self.probe.capsule_overlaps(CLEARANCE, 2 * CLEARANCE, place) is None)

    def place_at(self, look, pitch):
        """Where the camera can be at `pitch`: its orbit place, or in front of what hides the character from
        there; None when that is nearer than MIN_VIEW_M (inside the character) or has no room for the lens."""
        place = self.orbit_place(look, pitch)
        hit = self.probe.ray(look, place)
        if hit is not None:
            ray = place - look
            length = ray.length()
            ray /= length
            # Back along the view far enough to be CLEARANCE off the surface hit (more at a glancing angle).
            normal = Vec3(hit.normal)
            normal.normalize()
            reach = hit.fraction * length - CLEARANCE * 1.05 / max(abs(ray.dot(normal)), 0.25)
            if reach < MIN_VIEW_M:
                return None
            place = look + ray * reach
        return place if self.probe.capsule_overlaps(CLEARANCE, 2 * CLEARANCE, place) is None else None

    def wanted(self):
        """(the point looked at, where the camera goes): its place at the player's pitch or, when there is
        none there, at the lowest pitch above it that has one (None when no pitch has)."""
        look = self.look_point()
        pitch = self.pitch
        while True:
            place = self.place_at(look, pitch)
            if place is not None or pitch >= PITCH_RANGE[1]:
                return look, place
            pitch = min(pitch + PITCH_STEP, PITCH_RANGE[1])

    def update(self, snap=False, dt=1 / 60):
        """Move the camera toward its place (`smoothing` of the way each 1/60 s, so it follows as closely
        at 2 fps as at 60), or straight there when the way would hide the character; with no place that
        sees the character, pull it in front of what is in the way."""
        self._read_mouse()
        look, wanted = self.wanted()
        if wanted is None:
            pos = self._pulled_in(look, self.orbit_place(look, self.pitch))
        else:
            share = 1.0 if snap else 1.0 - (1.0 - self.smoothing) ** (max(dt, 0.0) * 60.0)
            pos = self.camera.getPos() + (wanted - self.camera.getPos()) * share
            if not self.sees(look, pos):
                pos = wanted
        self.camera.setPos(pos)
        self.camera.lookAt(look)

    def _pulled_in(self, look, place):
        """`place` brought toward `look` until a sphere of CLEARANCE swept from `look` stops short of the scene."""
        hit = self.probe.sweep_sphere(CLEARANCE, look, place)
        return place if hit is None else look + (place - look) * hit.fraction
