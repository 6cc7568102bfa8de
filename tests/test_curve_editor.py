"""The curve panel as a mouse editor: what a press grabs, what a drag makes of it, the edit it
commits (undo, save, reload), the rates it foresees, and scrubbing.

Oracles come from the panel box, the clip's frame rate and raw track data, worked out here:
panel x of time t is left + (right - left) * t / duration, duration = (frames - 1) / fps.
"""
import json
import math

import pytest
from direct.showbase.MessengerGlobal import messenger
from panda3d.core import Point3

from motionwarp_demo.editor.panel_map import Grab, dragged, grab_at
from motionwarp import FINISHED, WarpAsset

from .conftest import run_for
from .test_phase_edit import flat, near, vault, windows  # noqa: F401 (vault is a fixture)
from .test_tuner import course_demo, press

@pytest.fixture
def demo(base, tmp_path, warp_asset_dir):
    """The course demo with its editor opened by F3 (the curve panel and the tuner are hidden at start)."""
    demo = course_demo(base, tmp_path, warp_asset_dir)
    assert demo.curves.root.isHidden() and demo.tuner.text.isHidden()
    base.messenger.send("f3")
    yield demo
    demo.destroy()


BOX = (0.1, 1.1, 0.3, 0.8)  # left, right, bottom, top: 1.0 wide, so panel x - 0.1 is the clip fraction
REACH = 0.02


def panel_x(asset, seconds, box=BOX):
    fps = asset.track.fps
    duration = (len(asset.track.positions) - 1) / fps
    return box[0] + (box[1] - box[0]) * seconds / duration


def frames_dx(asset, frames, box=BOX):
    """The panel distance of `frames` frames."""
    return panel_x(asset, frames / asset.track.fps, box) - panel_x(asset, 0.0, box)


MIDDLE = (BOX[2] + BOX[3]) / 2


# -- hit testing --------------------------------------------------------------------------
def test_a_press_takes_an_edge_near_it_the_body_between_and_the_time_elsewhere(vault):
    spans = windows(vault)
    (s0, e0), (s1, e1), (s2, e2) = spans
    at = lambda x, z=MIDDLE: grab_at(BOX, vault.track.duration, spans, x, z, reach=REACH)  # noqa: E731
    assert at(panel_x(vault, (s1 + e1) / 2)) == Grab(1, "body")
    assert at(panel_x(vault, s1) + 0.015) == Grab(1, "start")
    assert at(panel_x(vault, e1) - 0.015) == Grab(1, "end")
    assert at(panel_x(vault, s1) + 0.025) == Grab(1, "body")  # past the reach
    # Where two windows meet, the side of the press picks the window.
    assert at(panel_x(vault, e0) - 0.005) == Grab(0, "end")
    assert at(panel_x(vault, s1) + 0.005) == Grab(1, "start")
    # After the last window: just outside its end grabs the end, farther on scrubs.
    assert at(panel_x(vault, e2) + 0.015) == Grab(2, "end")
    assert at(panel_x(vault, e2) + 0.03) == Grab(None, "time")
    # The ruler under the box scrubs even under a window; above, below or beside the panel is not its.
    assert at(panel_x(vault, (s1 + e1) / 2), BOX[2] - 0.02) == Grab(None, "time")
    assert at(panel_x(vault, (s1 + e1) / 2), BOX[3] + 0.01) is None
    assert at(panel_x(vault, (s1 + e1) / 2), BOX[2] - 0.2) is None
    assert at(BOX[1] + 0.05) is None


def test_a_narrow_window_keeps_a_body_between_its_handles(vault):
    fps = vault.track.fps
    start = vault.phases[2].start
    narrow = [(start, start + 2 / fps)]  # 2 frames: 0.067 s at 30 fps
    width = panel_x(vault, narrow[0][1]) - panel_x(vault, start)
    assert width < 2 * REACH  # the case under test: the full reach from either edge would cover its middle
    middle = panel_x(vault, start) + width / 2
    assert grab_at(BOX, vault.track.duration, narrow, middle, MIDDLE, reach=REACH) == Grab(0, "body")
    assert grab_at(BOX, vault.track.duration, narrow, middle - width / 3 - 1e-4, MIDDLE, reach=REACH) == Grab(0, "start")


# -- drag to edit -------------------------------------------------------------------------
def test_dragging_an_edge_moves_it_by_the_dragged_time_snapped_to_a_frame(vault):
    fps = vault.track.fps
    start, end = windows(vault)[2]
    x = panel_x(vault, end) - 0.005
    grown = dragged(vault, Grab(2, "end"), BOX, x, x + frames_dx(vault, 2.4))
    assert grown.phases[2].end == near(round((end + 2.4 / fps) * fps) / fps)
    assert grown.phases[2].start == near(start) and windows(grown)[:2] == windows(vault)[:2]
    # Dragged past its start, the window stays one frame long.
    shrunk = dragged(vault, Grab(2, "end"), BOX, x, x - 0.9)
    assert shrunk.phases[2].end == near(start + 1 / fps)
    # A start edge dragged left stops at the previous window's end (they meet in these assets).
    held = dragged(vault, Grab(2, "start"), BOX, x, x - frames_dx(vault, 5))
    assert held.phases[2].start == near(windows(vault)[1][1])


def test_dragging_a_body_moves_the_window_by_whole_frames_up_to_the_clips_end(vault):
    fps = vault.track.fps
    duration = (len(vault.track.positions) - 1) / fps
    start, end = windows(vault)[2]
    x = panel_x(vault, (start + end) / 2)
    moved = dragged(vault, Grab(2, "body"), BOX, x, x + frames_dx(vault, 3.3))
    assert [moved.phases[2].start, moved.phases[2].end] == near([start + 3 / fps, end + 3 / fps])
    far = dragged(vault, Grab(2, "body"), BOX, x, x + 5.0)
    assert [far.phases[2].start, far.phases[2].end] == near([duration - (end - start), duration])


# -- the editor in the demo ---------------------------------------------------------------
def drag(editor, asset, grab_x, to_x, z=None):
    z = (editor.panel.box[2] + editor.panel.box[3]) / 2 if z is None else z
    assert editor.press_at(grab_x, z)
    editor.drag_to(to_x)
    editor.release()


def test_a_drag_is_one_undoable_edit_the_next_warp_plays_and_f5_saves(base, demo, tmp_path):
    editor, box = demo.editor, demo.curves.box
    before = demo.assets["vault"]
    fps = before.track.fps
    start, end = windows(before)[2]
    x = panel_x(before, end, box) - 0.005
    assert editor.press_at(x, (box[2] + box[3]) / 2)
    assert editor.holds_mouse and demo.camera.mouse_taken()  # the orbit camera leaves the mouse alone
    assert demo.tuner.phase.name == "landing"  # the pressed window is selected
    editor.drag_to(x + frames_dx(before, 3.2, box))
    assert demo.assets["vault"] is before  # nothing is committed while dragging
    editor.update(None, None)
    assert demo.curves.asset.phases[2].end == near(round((end + 3.2 / fps) * fps) / fps)  # the panel shows it live
    editor.release()
    assert not editor.holds_mouse and not demo.camera.mouse_taken()
    edited = demo.assets["vault"]
    assert edited.phases[2].end == near(round((end + 3.2 / fps) * fps) / fps) and edited.phases[2].start == near(start)
    assert "(unsaved)" in demo.tuner.describe()
    # F5 saves it; reloaded from disk, it is the same asset.
    press(base, "f5")
    reloaded = WarpAsset.load(tmp_path / "vault.warp.json")
    assert reloaded.to_dict() == edited.to_dict() and flat(reloaded) == near(flat(edited))
    # Z undoes the drag in one step; a second Z has nothing left.
    press(base, "z")
    assert demo.assets["vault"] is before
    press(base, "z")
    assert demo.assets["vault"] is before and "nothing to undo" in demo.tuner.describe()
    # The next warp plays the edited asset.
    drag(editor, before, x, x + frames_dx(before, 3.2, box))
    demo.actor.setPos(0, 1.0, 0)  # 0.7 m before the crate's near face, facing it
    assert demo.interact()
    assert demo.warper.current.asset is demo.assets["vault"] and demo.warper.current.asset.phases[2].end > end


def test_z_after_a_drag_says_what_it_undid(base, demo):
    editor, box = demo.editor, demo.curves.box
    before = demo.assets["vault"]
    start, end = windows(before)[2]
    x = panel_x(before, end, box) - 0.005
    drag(editor, before, x, x + frames_dx(before, 3, box))
    later = end + 3 / before.track.fps
    assert demo.status.getText() == f"landing now {start:.2f}-{later:.2f} s (Z undoes, F5 saves)"
    press(base, "z")
    assert demo.assets["vault"] is before
    assert demo.status.getText() == f"Z undid vault: landing {start:.2f}-{later:.2f} s -> {start:.2f}-{end:.2f} s"


def test_dragging_a_window_held_on_both_sides_says_why_it_does_not_move(base, demo):
    editor, box = demo.editor, demo.curves.box
    before = demo.assets["vault"]
    (_, e0), (s1, e1), (s2, _) = windows(before)
    assert (e0, e1) == (s1, s2)   # far_edge touches close_edge and landing
    middle = panel_x(before, (s1 + e1) / 2, box)
    for frames, way, why in ((4, "later", "landing starts where it ends"),
                             (-4, "earlier", "close_edge ends where it starts")):
        drag(editor, before, middle, middle + frames_dx(before, frames, box))
        assert demo.assets["vault"] is before
        assert demo.status.getText() == f"far_edge cannot move {way}: {why} (drag its edge handles to resize it)"
    drag(editor, before, panel_x(before, 0.1, box), panel_x(before, 0.1, box) - frames_dx(before, 2, box))
    assert demo.status.getText().startswith("close_edge cannot move earlier: it starts with the clip")
    landing = panel_x(before, (s2 + windows(before)[2][1]) / 2, box)   # free on its later side: it moves
    demo.say("")
    assert editor.press_at(landing, (box[2] + box[3]) / 2)
    editor.drag_to(landing + frames_dx(before, 2, box))
    assert demo.status.getText() == ""   # nothing holds it: nothing to explain
    editor.release()
    assert demo.assets["vault"].phases[2].start == near(s2 + 2 / before.track.fps)
    assert demo.status.getText().startswith("landing now ")


def test_key_edits_and_drags_undo_in_order(base, demo):
    editor, box = demo.editor, demo.curves.box
    original = demo.assets["vault"]
    press(base, "]", "]", "i")  # the landing's y offset up 1 cm
    keyed = demo.assets["vault"]
    x = panel_x(original, original.phases[2].end, box) - 0.005
    drag(editor, keyed, x, x + frames_dx(original, 2, box))
    assert demo.assets["vault"].phases[2].t_offset[1] == pytest.approx(original.phases[2].t_offset[1] + 0.01)
    press(base, "z")
    assert demo.assets["vault"] is keyed
    press(base, "z")
    assert demo.assets["vault"] is original


def test_a_drag_of_an_asset_deselected_meanwhile_is_dropped(base, demo):
    editor, box = demo.editor, demo.curves.box
    vault, mantle = demo.assets["vault"], demo.assets["mantle"]
    x = panel_x(vault, vault.phases[2].end, box) - 0.005
    assert editor.press_at(x, (box[2] + box[3]) / 2)
    editor.drag_to(x + frames_dx(vault, 3, box))
    press(base, "tab")  # the mantle is selected while the vault's window is held
    editor.release()
    assert demo.assets["vault"] is vault and demo.assets["mantle"] is mantle


class _Mouse:
    """A MouseWatcher's answers for a left button held while the mouse moves right."""

    def __init__(self):
        self.x = 0.0

    def hasMouse(self):
        return True

    def getMouse(self):
        self.x += 0.1
        return Point3(self.x, 0.0, 0.0)

    def isButtonDown(self, button):
        return True


def test_the_orbit_camera_does_not_turn_while_the_editor_holds_the_mouse(demo):
    camera = demo.camera
    camera.watcher = _Mouse()
    box = demo.curves.box
    assert demo.editor.press_at(panel_x(demo.assets["vault"], 0.3, box), (box[2] + box[3]) / 2)
    yaw = camera.yaw
    for _ in range(3):
        camera.update()
    assert camera.yaw == yaw
    demo.editor.release()
    for _ in range(3):
        camera.update()
    assert camera.yaw != yaw  # the same drag turns it once the editor lets go


def test_f3_hides_the_panels_and_a_hidden_panel_takes_no_press(demo):   # opened by F3 (the fixture)
    box = demo.curves.box
    inside = (panel_x(demo.assets["vault"], 0.3, box), (box[2] + box[3]) / 2)
    messenger.send("f3")
    assert demo.curves.root.isHidden() and demo.tuner.text.isHidden()
    assert not demo.editor.press_at(*inside) and not demo.editor.holds_mouse
    messenger.send("f3")
    assert not demo.curves.root.isHidden() and not demo.tuner.text.isHidden()
    assert demo.editor.press_at(*inside)
    demo.editor.release()


def test_a_press_outside_the_panel_or_a_click_that_moves_nothing_edits_nothing(demo):
    editor, box = demo.editor, demo.curves.box
    before = demo.assets["vault"]
    assert not editor.press_at(box[1] + 0.3, box[3] + 0.3)
    assert not editor.holds_mouse
    middle = panel_x(before, sum(windows(before)[0]) / 2, box)
    drag(editor, before, middle, middle)
    assert demo.assets["vault"] is before and not demo.tuner.history["vault"].undo_stack


def test_the_panel_shows_the_phase_motion_and_the_rates_foreseen_for_the_offer(base, demo):
    demo.actor.setPos(0.1, 0.6, 0)  # 1.1 m before the crate's near face: the first phase is not clamped
    demo.actor.setH(5)
    offer = demo.offer()
    assert offer and offer.asset.clip == "vault"
    asset = demo.assets["vault"]
    rates = demo.warper.check(asset, offer.targets)
    demo.editor.update(None, offer)
    track = asset.track
    for index, phase in enumerate(asset.phases):
        demo.tuner.select_phase(index)
        demo.editor.update(None, offer)
        info = demo.curves.info.getText()
        assert f"play rate {rates[index]:.2f} for the vault on offer" in info
        f0, f1 = round(phase.start * track.fps), round(phase.end * track.fps)
        if math.isclose(f0, phase.start * track.fps) and math.isclose(f1, phase.end * track.fps):
            motion = track.positions[f1] - track.positions[f0]  # whole frames: the raw track is the oracle
            assert f"({math.sqrt(float(motion @ motion)):.2f} m)" in info
    # A resized landing changes its rate at once.
    x = panel_x(asset, asset.phases[2].end, demo.curves.box) - 0.005
    demo.editor.press_at(x, 0.5)
    demo.editor.drag_to(x + frames_dx(asset, -4, demo.curves.box))
    demo.editor.update(None, offer)
    preview = demo.curves.asset
    assert preview.phases[2].end < asset.phases[2].end
    assert f"play rate {demo.warper.check(preview, offer.targets)[2]:.2f}" in demo.curves.info.getText()
    demo.editor.release()
    # The close edge starting 6 frames in, the character walks the clip's own motion up to it first.
    start_x = panel_x(asset, 0.0, demo.curves.box) + 0.005
    drag(demo.editor, asset, start_x, start_x + frames_dx(asset, 6, demo.curves.box))
    assert demo.assets["vault"].phases[0].start == near(6 / track.fps)
    # The warper's own rates, when it plays the offer, are the ones foreseen. (A blend-in during the
    # lead-up would mix the idle's motion into it, which the forecast leaves out, as check() does.)
    demo.warper.settings.blend_in = 0.0
    rates = demo.warper.check(demo.assets["vault"], offer.targets)
    assert demo.interact()
    warp = demo.warper.current
    ended = []
    demo.accept(FINISHED, lambda *args: ended.append(args))
    run_for(base, 4.0, 1 / 60)
    assert ended and len(warp.results) == 3
    assert rates[0] < warp.asset.phases[0].max_rate  # a rate the distance chose, not a bound
    assert [result.play_rate for result in warp.results] == pytest.approx(rates, abs=1e-6)


def test_scrubbing_while_paused_shows_the_clips_pose_along_its_root_motion(base, demo):
    editor, box = demo.editor, demo.curves.box
    asset = demo.assets["vault"]
    track = asset.track
    ruler = box[2] - 0.02
    assert editor.press_at(panel_x(asset, 1.0, box), ruler)  # not paused: it says how, and scrubs nothing
    editor.release()
    assert not editor.standin.active and "pause (P)" in demo.status.getText()
    demo.actor.setPos(2.0, 1.0, 0)
    demo.actor.setH(30)
    press(base, "p")
    seconds = 31.3 / track.fps
    assert editor.press_at(panel_x(asset, seconds, box), ruler)
    copy = editor.standin.copy
    assert copy is not None and demo.actor.isHidden()
    assert copy.getCurrentFrame(asset.clip) == 31
    x, y, z = track.positions[31]
    turn = math.radians(30)  # the track's positions and headings are already relative to its frame 0
    expected = (2.0 + math.cos(turn) * x - math.sin(turn) * y, 1.0 + math.sin(turn) * x + math.cos(turn) * y, z)
    assert tuple(copy.getPos(base.render)) == pytest.approx(expected, abs=1e-4)
    assert copy.getH(base.render) % 360 == pytest.approx((30 + track.headings[31]) % 360, abs=1e-3)
    editor.update(None, None)
    assert "frame 31" in demo.curves.info.getText() and not demo.curves.cursor.isHidden()
    editor.drag_to(panel_x(asset, 40 / track.fps, box))
    assert copy.getCurrentFrame(asset.clip) == 40
    editor.release()
    assert editor.standin.active  # the scrubbed pose stays while paused
    press(base, "p")
    editor.update(None, None)
    assert not editor.standin.active and not demo.actor.isHidden() and demo.curves.cursor.isHidden()


def test_the_panel_is_not_edited_while_a_warp_plays(base, demo):
    demo.actor.setPos(0, 1.0, 0)
    assert demo.interact()
    before = demo.assets["vault"]
    x = panel_x(before, before.phases[2].end, demo.curves.box) - 0.005
    drag(demo.editor, before, x, x + 0.2)
    assert demo.assets["vault"] is before and "once the warp has ended" in demo.status.getText()


def test_saved_edits_survive_a_reload_from_a_read_only_copy(base, demo, tmp_path):
    path = tmp_path / "vault.warp.json"
    path.chmod(0o444)
    try:
        before = demo.assets["vault"]
        x = panel_x(before, before.phases[2].end, demo.curves.box) - 0.005
        drag(demo.editor, before, x, x + frames_dx(before, 2, demo.curves.box))
        press(base, "f5")
        copy = WarpAsset.load(tmp_path / "vault.edited.warp.json")
        assert copy.to_dict()["phases"] == demo.assets["vault"].to_dict()["phases"]
        assert json.loads(path.read_text())["phases"][2]["end"] == pytest.approx(before.phases[2].end)
    finally:
        path.chmod(0o644)
