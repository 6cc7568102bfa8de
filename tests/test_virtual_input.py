"""The demo driven through Panda3D's own mouse and key input on the offscreen window: a VirtualMouse
in the data graph (motionwarp_demo/character/virtual_input.py), the way motionwarp_demo/app/pictures.py makes the editor picture.

Oracles: a window pixel is worked out here from the window's size alone (a2dBottomLeft is
aspect2d's (-aspect, -1), aspect2d is render2d scaled by 1 / aspect across, render2d spans the
window from -1 to 1), and the dragged edge from the pixels moved and the clip's frame rate.
"""
import pytest

from motionwarp_demo.character.virtual_input import VirtualInput

from .conftest import step
from .test_tuner import course_demo

DT = 1 / 60


@pytest.fixture
def hand(base):
    hand = VirtualInput(base)
    yield hand
    hand.remove()


@pytest.fixture
def demo(base, hand, tmp_path, warp_asset_dir):
    """The demo built after the virtual mouse, so it reads its input as it would a window's; F3 pressed
    through it opens the editor (hidden at start)."""
    demo = course_demo(base, tmp_path, warp_asset_dir)
    assert demo.curves.root.isHidden()
    hand.press("f3")
    step(base, DT)
    hand.release("f3")
    assert not demo.curves.root.isHidden()
    yield demo
    demo.destroy()


def window_pixel(base, x, z):
    """The pixel (column, row) of a2dBottomLeft point (x, z) in a window wider than high."""
    width, height = base.win.getXSize(), base.win.getYSize()
    aspect = width / height
    render2d_x, render2d_z = (x - aspect) / aspect, z - 1.0
    return (render2d_x + 1) / 2 * width, (1 - render2d_z) / 2 * height


def test_a_panel_point_maps_to_its_window_pixel(base, hand, demo):
    for x, z in ((0.0, 0.0), (0.5, 0.6), (1.3, 0.36)):
        column, row = window_pixel(base, x, z)
        assert hand.pixel(demo.curves.root, x, z) == (round(column), round(row))


def test_dragging_a_handle_with_the_virtual_mouse_is_one_edit_and_the_camera_stays(base, hand, demo):
    before = demo.assets["vault"]
    fps, duration = before.track.fps, (before.track.num_frames - 1) / before.track.fps
    left, right, bottom, top = demo.curves.box
    end = before.phases[2].end
    grab = [round(v) for v in window_pixel(base, left + (right - left) * end / duration - 0.008, (bottom + top) / 2)]
    step_px = 7  # to the right; 1 panel unit is half the window's height in pixels
    moved_frames = step_px / (base.win.getYSize() / 2) / (right - left) * duration * fps
    assert abs(moved_frames - round(moved_frames)) < 0.4  # the expected frame must not hang on a rounding
    yaw = demo.camera.yaw
    hand.move_to(*grab)
    step(base, DT)
    hand.press("mouse1")
    step(base, DT)
    assert demo.editor.holds_mouse and demo.tuner.phase.name == "landing"
    hand.move_to(grab[0] + step_px, grab[1])
    step(base, DT)
    assert demo.assets["vault"] is before  # nothing committed while the button is held
    assert demo.curves.asset.phases[2].end == pytest.approx(round(end * fps + moved_frames) / fps, abs=1e-6)
    hand.release("mouse1")
    step(base, DT)
    after = demo.assets["vault"]
    assert not demo.editor.holds_mouse
    assert after.phases[2].end == pytest.approx(round(end * fps + moved_frames) / fps, abs=1e-6)
    assert [(p.start, p.end) for p in after.phases[:2]] == [(p.start, p.end) for p in before.phases[:2]]
    assert demo.camera.yaw == yaw  # the drag was the editor's, not the orbit camera's


def test_held_keys_steer_the_character_and_key_events_reach_the_demo(base, hand, demo):
    away = demo.actor.getPos(base.render) - base.camera.getPos(base.render)  # "w" walks away from the camera
    away.z = 0
    away.normalize()
    hand.press("w")
    step(base, DT)
    direction = demo.controller.direction
    assert (direction.x, direction.y) == pytest.approx((away.x, away.y), abs=1e-3)
    hand.release("w")
    step(base, DT)
    assert demo.controller.direction.length() == 0
    assert not demo.time.paused
    hand.press("p")
    step(base, DT)
    hand.release("p")
    assert demo.time.paused

