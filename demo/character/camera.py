"""A camera orbiting the character that never goes through walls.

Drag with a mouse button held to turn it around the character, the wheel moves it nearer or
farther. A ray from the character's head to the camera (the plugin's scene probe) brings it in
front of whatever is in between.
"""
import math

from panda3d.core import MouseButton, Point3, Vec3

#: Degrees the camera turns for a drag across the whole window.
DRAG_DEG = (240.0, 120.0)
PITCH_RANGE = (-15.0, 75.0)
DISTANCE_RANGE = (1.5, 20.0)
#: Gap kept between the camera and a wall in the way (metres).
WALL_GAP = 0.2


class OrbitCamera:
    """Places `camera` around `target`, looking at a point `look_height` above its feet.

    `view` is the camera's start offset from that point in the target's frame. With `follow`
    the orbit turns with the target (the autopilot's view); otherwise it stays put in the
    world while the character turns, and movement keys are read relative to it.
    """

    def __init__(self, camera, target, probe, watcher=None, view=Vec3(0, -6.5, 1.8), follow=False,
                 look_height=1.0, smoothing=0.15):
        self.camera, self.target, self.probe, self.watcher = camera, target, probe, watcher
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

    def wanted(self):
        """(the point looked at, where the camera would be with nothing in the way)."""
        look = self.target.getPos(self.camera.getParent()) + Vec3(0, 0, self.look_height)
        h, p = math.radians(self.heading), math.radians(self.pitch)
        back = Vec3(math.sin(h) * math.cos(p), -math.cos(h) * math.cos(p), math.sin(p)) * self.distance
        return look, look + back

    def update(self, snap=False):
        """Move the camera toward its place, in front of any wall between it and the character."""
        self._read_mouse()
        look, wanted = self.wanted()
        pos = wanted if snap else self.camera.getPos() + (wanted - self.camera.getPos()) * self.smoothing
        hit = self.probe.ray(look, pos)
        if hit is not None:
            ray = pos - look
            reach = max(0.0, hit.fraction * ray.length() - WALL_GAP)
            ray.normalize()
            pos = look + ray * reach
        self.camera.setPos(pos)
        self.camera.lookAt(look)
