"""The orbit camera as a player meets it: walking along a tall crate with A held, the camera stays
out of the crate and the character and keeps the character in view, and the wheel still zooms.

The crate is the test's own box; positions are the real camera's, checked with plain geometry
(a point's distance to a box, a segment against a box's slabs) and the near plane's half-diagonal.
"""
import math

import pytest
from panda3d.core import KeyboardButton, Point3, Vec3

from .conftest import step
from .test_controller import DT, box, keyboard, world  # noqa: F401 (fixtures)

#: The tall crate: centre of its bottom face, size (x, y, z). Its +X face is at x = 0.5.
CRATE_POS, CRATE_SIZE = (0.0, 3.0, 0.0), (1.0, 8.0, 2.0)
LOW = Point3(CRATE_POS[0] - CRATE_SIZE[0] / 2, CRATE_POS[1] - CRATE_SIZE[1] / 2, 0.0)
HIGH = Point3(CRATE_POS[0] + CRATE_SIZE[0] / 2, CRATE_POS[1] + CRATE_SIZE[1] / 2, CRATE_SIZE[2])
LOOK_HEIGHT = 1.0        # the demo's camera looks 1 m above the feet
CHARACTER_RADIUS = 0.3   # the character's capsule


def distance_to_box(point, low=LOW, high=HIGH):
    """Euclidean distance from `point` to the box (0 inside)."""
    return math.sqrt(sum(max(lo - p, 0.0, p - hi) ** 2 for p, lo, hi in zip(point, low, high)))


def segment_hits_box(a, b, low=LOW, high=HIGH):
    """Whether the segment a-b passes through the box (slab test)."""
    t0, t1 = 0.0, 1.0
    for axis in range(3):
        d = b[axis] - a[axis]
        if abs(d) < 1e-12:
            if not low[axis] <= a[axis] <= high[axis]:
                return False
            continue
        near, far = sorted(((low[axis] - a[axis]) / d, (high[axis] - a[axis]) / d))
        t0, t1 = max(t0, near), min(t1, far)
        if t0 > t1:
            return False
    return True


def near_clearance(base):
    """How far the near plane's corners reach from the camera: closer than this, a wall is cut open."""
    lens = base.camLens
    near = lens.getNear()
    half_w = near * math.tan(math.radians(lens.getFov()[0] / 2))
    half_h = near * math.tan(math.radians(lens.getFov()[1] / 2))
    return math.sqrt(near * near + half_w * half_w + half_h * half_h)


def test_walking_along_a_tall_crate_keeps_the_camera_out_of_it_and_the_wheel_zooms(base, world, keyboard):
    demo = world([box("tall crate", CRATE_POS, CRATE_SIZE)], spawn=(0.85, -0.5, 0), h=0.0)
    camera = demo.camera
    camera.yaw = -90.0   # turned (as by a drag) to the crate's -X side, looking along +X past it
    keyboard.pressButton(KeyboardButton.asciiKey("a"))   # left of that view is +Y: along the crate's +X face
    distances = []
    start_y = demo.actor.getY(base.render)
    for frame in range(round(5.0 / DT)):
        if frame == round(2.5 / DT):
            for _ in range(4):
                base.messenger.send("wheel_down")   # 4 x 0.5 m farther
        step(base, DT)
        feet = demo.actor.getPos(base.render)
        look = feet + Vec3(0, 0, LOOK_HEIGHT)
        eye = base.camera.getPos(base.render)
        assert distance_to_box(eye) > near_clearance(base), (frame, eye)        # not inside the crate
        assert math.hypot(eye.x - feet.x, eye.y - feet.y) > CHARACTER_RADIUS + near_clearance(base), (frame, eye)
        assert not segment_hits_box(eye, look), (frame, eye, look)              # the character in view
        distances.append((eye - look).length())
    keyboard.releaseButton(KeyboardButton.asciiKey("a"))
    assert demo.actor.getY(base.render) > start_y + 4.0                          # it did walk along the crate
    assert abs(demo.actor.getX(base.render) - 0.85) < 0.2
    before, after = distances[round(2.0 / DT)], distances[-1]
    assert after == pytest.approx(before + 2.0, abs=0.3)                        # the wheel zoomed out


def test_in_front_of_a_wall_the_lens_does_not_cut_into_it(base, world):
    """A wall right behind the character: the camera comes in front of it, outside the character, and
    far enough from the wall for the lens's near plane."""
    low, high = Point3(-3.0, -2.15, 0.0), Point3(3.0, -1.85, 3.0)
    demo = world([box("wall", (0, -2.0, 0), (6.0, 0.3, 3.0))], spawn=(0, 0, 0), h=0.0)
    for _ in range(30):
        step(base, DT)
        eye, look = base.camera.getPos(base.render), demo.actor.getPos(base.render) + Vec3(0, 0, LOOK_HEIGHT)
        assert distance_to_box(eye, low, high) > near_clearance(base)
        assert eye.y > high.y and (eye - look).length() > 1.0 and not segment_hits_box(eye, look, low, high)


def test_a_pillar_passing_between_never_hides_the_character(base, world, keyboard):
    """Walking right (D) past a pillar between the character and the camera: the camera is never behind
    it, though it moves smoothly elsewhere (it jumps rather than glide through the hidden places)."""
    low, high = Point3(1.75, -3.25, 0.0), Point3(2.25, -2.75, 3.0)
    demo = world([box("pillar", (2.0, -3.0, 0), (0.5, 0.5, 3.0))], spawn=(0, 0, 0), h=90.0)
    demo.camera.yaw = 0.0
    demo.camera.update(snap=True)
    keyboard.pressButton(KeyboardButton.asciiKey("d"))
    for frame in range(round(3.5 / DT)):
        step(base, DT)
        eye, look = base.camera.getPos(base.render), demo.actor.getPos(base.render) + Vec3(0, 0, LOOK_HEIGHT)
        assert not segment_hits_box(eye, look, low, high), (frame, eye, look)
        assert distance_to_box(eye, low, high) > near_clearance(base)
    keyboard.releaseButton(KeyboardButton.asciiKey("d"))
    assert demo.actor.getX(base.render) > 3.5   # it walked past the pillar


def test_boxed_in_the_camera_stays_in_the_room(base, world):
    """Walls 0.8 m round the character and a roof 2.2 m up: no pitch sees it from 1.2 m, so the camera
    comes as close as it must, inside the room."""
    walls = [box("north", (0, 1.0, 0), (3.0, 0.4, 3.0)), box("south", (0, -1.0, 0), (3.0, 0.4, 3.0)),
             box("east", (1.0, 0, 0), (0.4, 3.0, 3.0)), box("west", (-1.0, 0, 0), (0.4, 3.0, 3.0)),
             box("roof", (0, 0, 2.2), (3.0, 3.0, 0.3))]
    demo = world(walls, spawn=(0, 0, 0), h=0.0)
    for _ in range(20):
        step(base, DT)
        eye = base.camera.getPos(base.render)
        assert abs(eye.x) < 0.8 and abs(eye.y) < 0.8 and eye.z < 2.2, eye
    assert demo.camera.wanted()[1] is None   # no pitch has a place 1.2 m out


def test_at_two_frames_a_second_the_camera_keeps_up(base, world):
    """Software GL gives 1 to 3 fps: the camera closes the same share of the way per second as at 60 fps
    (15% per 1/60 s), so one 0.5 s frame brings it within 1% of its place, not 15% of the way."""
    demo = world([], spawn=(0, 0, 0), h=0.0)
    camera = demo.camera
    camera.update(snap=True)
    demo.actor.setPos(0, 5.0, 0)
    look, wanted = camera.wanted()
    before = (base.camera.getPos() - wanted).length()
    camera.update(dt=1 / 60)
    assert (base.camera.getPos() - wanted).length() == pytest.approx(before * 0.85, rel=1e-3)
    camera.update(dt=0.5)
    assert (base.camera.getPos() - wanted).length() == pytest.approx(before * 0.85 ** 31, rel=1e-2)
    assert (base.camera.getPos() - wanted).length() < 0.01 * before


def test_paused_the_camera_still_turns(base, world):
    """Paused (P) on a real-time clock, the game's dt is 0; the camera follows a drag in real time anyway."""
    from panda3d.core import ClockObject
    demo = world([], spawn=(0, 0, 0), h=0.0)
    step(base, DT)
    clock = ClockObject.getGlobalClock()
    mode = clock.getMode()
    clock.setMode(ClockObject.MDegrade)   # what TimeControl does to a window's clock when paused
    clock.setDegradeFactor(0.0)
    try:
        base.taskMgr.step()   # the frame the clock was paused in still has its dt
        demo.camera.yaw += 90.0
        eye = base.camera.getPos(base.render)
        for _ in range(3):
            base.taskMgr.step()
            assert clock.getDt() == 0.0
        assert (base.camera.getPos(base.render) - eye).length() > 0.0
    finally:
        clock.setMode(mode)
        clock.setDegradeFactor(1.0)
