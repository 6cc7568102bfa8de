"""The demo's HUD: the F1 panel names every key the demo listens to, the info panel the last warp's arrival."""
import numpy as np
import pytest

from motionwarp_demo.app.app import Demo
from motionwarp_demo.level.scene import Scene

from .conftest import ROOT, SAMPLES, run_for, step

#: Panda3D event names whose key the help spells differently.
SPELLED = {"space": "Space", "tab": "Tab", "escape": "Esc", "wheel_up": "wheel", "wheel_down": "wheel"}


@pytest.fixture
def demo(base, warp_asset_dir):
    demo = Demo(base, Scene.load(SAMPLES / "scenes" / "course.json"), asset_dir=warp_asset_dir)
    yield demo
    demo.destroy()


def help_keys(text):
    """Every key token in the help panel's key column (the text before each tab)."""
    tokens = set()
    for row in text.splitlines()[1:]:
        key, _, action = row.partition("\t")
        assert action, f"help row without a tab: {row!r}"
        tokens.update(key.replace("/", " ").split())
    return tokens


def test_f1_lists_every_key_the_demo_accepts(base, demo):
    assert demo.hud.help.isHidden()
    base.messenger.send("f1")
    assert not demo.hud.help.isHidden()
    listed = help_keys(demo.hud.help.getText())
    accepted = [event for listener in (demo, demo.tuner) for event in listener.getAllAccepting()
                if not event.startswith("motionwarp-")]
    assert accepted
    missing = [e for e in accepted if SPELLED.get(e, e.upper()) not in listed]
    assert not missing, f"keys the help does not list: {missing}"
    base.messenger.send("f1")
    assert demo.hud.help.isHidden()


def test_the_info_panel_shows_the_clip_and_the_last_warps_arrival(base, demo):
    demo.controller.place((0, 0.2, 0), 0)  # before the crate, facing it
    step(base, 1 / 60)
    assert demo.hud.info.getText().splitlines()[1] == "no warp playing"
    assert demo.interact()
    step(base, 1 / 60)
    assert "clip vault" in demo.hud.info.getText() and "warp vault: " in demo.hud.info.getText()
    warp = demo.last_warp
    run_for(base, 4.0, 1 / 60)
    assert not demo.warper.is_warping and len(warp.results) == len(warp.asset.phases)
    lines = demo.hud.info.getText().splitlines()
    assert lines[2] == "last vault arrived:"
    for line, result in zip(lines[3:], warp.results, strict=True):
        centimetres = np.linalg.norm(np.subtract(result.arrived, result.target)) * 100
        assert line.startswith(f"  {result.name}: {centimetres:.1f} cm, ")


@pytest.fixture
def window_size(base):
    """Resize the offscreen window as a player resizes theirs (the HUD hears aspectRatioChanged); restored after."""
    before = (base.win.getXSize(), base.win.getYSize())

    def resize(width, height):
        base.win.setSize(width, height)
        base.adjustWindowAspectRatio(base.getAspectRatio())
    yield resize
    resize(*before)


def card_box(text, base):
    """(left, right, bottom, top) of a HUD text's card in aspect2d units, as drawn."""
    low, high = text.getTightBounds(base.aspect2d)
    return low.x, high.x, low.z, high.z


def hud_boxes(base, demo):
    """The cards of the prompt, status, info and tuner panels, checked to lie inside the window, the
    status above the prompt, the curve panel above both and the top corners in their halves."""
    left, right, bottom, top = base.a2dLeft, base.a2dRight, base.a2dBottom, base.a2dTop
    boxes = {name: card_box(text, base) for name, text in (("prompt", demo.prompt), ("status", demo.status),
                                                          ("info", demo.hud.info), ("tuner", demo.tuner.text))}
    for name, (x0, x1, z0, z1) in boxes.items():
        assert left < x0 < x1 < right and bottom < z0 < z1 < top, (name, boxes[name], (left, right))
    assert boxes["status"][2] > boxes["prompt"][3]                    # stacked, not overlapping
    middle = (left + right) / 2
    assert boxes["info"][1] < middle < boxes["tuner"][0]               # the top corners keep to their halves
    panel_bottom = demo.curves.plot.getTightBounds(base.aspect2d)[0].z   # its card, ruler included
    assert panel_bottom > boxes["status"][3]
    return boxes


@pytest.mark.parametrize("size", [(800, 600), (1920, 1080)])
def test_long_refusals_wrap_inside_the_window(base, warp_asset_dir, window_size, size):
    """The roofed ledge's two reasons (prompt) and the high ledge's refusals with the warper's numbers
    (status, after Space from too far for mantle_high) stay inside the window at 800x600 and 1920x1080 (the demo started in a window
    of the other shape, then resized), one above the other and under the curve panel, a wrapped line in
    rows of about equal length; the corner panels stay in their halves."""
    window_size(*(1920, 1080) if size == (800, 600) else (800, 600))
    demo = Demo(base, Scene.load(SAMPLES / "scenes" / "course.json"), asset_dir=warp_asset_dir)
    try:
        base.messenger.send("f3")   # the curve panel and the tuner, hidden at start: their cards are checked too
        step(base, 1 / 60)
        window_size(*size)
        missing = ROOT / "out" / "a folder that is not there, with a long name" / "vault.warp.json"
        demo.tuner.asset.path = str(missing)
        base.messenger.send("f5")   # F5 into a missing folder: a long message on the tuner's panel
        assert demo.tuner.message.startswith(f"could not save {missing}: ")
        demo.controller.place((0, 25.3, 0), 0)    # the roofed ledge's face is at y = 26
        step(base, 1 / 60)
        two_reasons = demo.prompt.getText()
        assert "too deep to vault" in two_reasons and "no head room on top" in two_reasons
        demo.controller.place((0, 36.0, 0), 0)    # 1.25 m before the high ledge: too far for mantle_high
        step(base, 1 / 60)
        assert not demo.interact()
        numbers = demo.status.getText()
        # the provider answers the warper's own refusal (design 7), so Space refuses as the prompt did
        assert numbers.startswith("high ledge: ") and "phase 'ledge_top' needs " in numbers and "ratio" in numbers
        width = base.a2dRight - base.a2dLeft
        assert width == pytest.approx(2 * size[0] / size[1])
        if size == (800, 600):   # unwrapped, the status and the tuner's line would not fit: this size tests wrapping
            assert demo.status.textNode.calcWidth(numbers) * demo.status.getScale()[0] > width
            tuner = demo.tuner.text
            assert tuner.textNode.calcWidth(demo.tuner.message) * tuner.getScale()[0] > width / 2
        step(base, 1 / 60)
        assert demo.prompt.getText().startswith("high ledge: ") and "ratio" in demo.prompt.getText()   # the prompt too
        boxes = hud_boxes(base, demo)
        # balanced rows, not a full row and a word: each row about the unwrapped line over the rows
        status = demo.status
        line = status.textNode.calcWidth(status.getText()) * status.getScale()[0]
        assert status.textNode.getNumRows() >= 2
        assert boxes["status"][1] - boxes["status"][0] < 1.15 * line / status.textNode.getNumRows() + 0.1
        demo.controller.place((0, 25.3, 0), 0)
        step(base, 1 / 60)
        assert demo.prompt.getText() == two_reasons and demo.status.getText() == numbers
        hud_boxes(base, demo)
    finally:
        demo.destroy()


def test_the_debug_view_draws_the_offer_and_the_trails_of_a_warp(base, demo):
    demo.controller.place((0, 0.2, 0), 0)  # before the crate, facing it
    step(base, 1 / 60)
    assert demo.debug.root.isHidden() and demo.debug.root.findAllMatches("**/+GeomNode").getNumPaths() == 0
    base.messenger.send("f2")
    step(base, 1 / 60)
    drawn = demo.debug.root.findAllMatches("**/+GeomNode")
    assert drawn.getNumPaths() == 1 and drawn[0].node().getGeom(0).getVertexData().getNumRows() > 0
    start = demo.actor.getPos(base.render)
    assert demo.interact()
    run_for(base, 4.0, 1 / 60)
    track = demo.last_warp.track
    unwarped, warped = demo.debug.unwarped, demo.debug.warped
    # The unwarped trail is the clip's own root path moved rigidly to the start: same length and endpoints apart.
    assert len(unwarped) == track.num_frames
    assert np.allclose(unwarped[0], start, atol=1e-4)
    own = np.linalg.norm(np.asarray(track.positions[-1]) - np.asarray(track.positions[0]))
    assert np.linalg.norm(np.subtract(unwarped[-1], unwarped[0])) == pytest.approx(own, abs=1e-4)
    # The warped trail is where the character went, frame by frame, until the warp ended.
    assert np.allclose(warped[0], start, atol=1e-4) and len(warped) > track.num_frames / 2
    for result in demo.last_warp.results:  # it passes where each phase ended
        assert min(np.linalg.norm(np.subtract(p, result.arrived)) for p in warped) < 0.02, result.name


def test_compare_plays_the_offer_with_its_own_root_motion(base, demo):
    demo.controller.place((0, 0.2, 0), 0)  # before the crate, facing it
    step(base, 1 / 60)
    start = np.array(demo.actor.getPos(base.render))
    assert demo.compare()
    warp = demo.last_warp
    run_for(base, 4.0, 1 / 60)
    assert len(warp.results) == len(warp.asset.phases)
    positions = np.asarray(warp.track.positions)
    for phase, result in zip(warp.asset.phases, warp.results, strict=True):
        assert result.play_rate == pytest.approx(1.0, abs=1e-3), phase.name
        frame = phase.end * warp.track.fps   # the clip's root there, interpolated from the raw track
        own = np.array([np.interp(frame, np.arange(len(positions)), positions[:, axis]) for axis in range(3)])
        own -= positions[0]
        moved = np.asarray(result.arrived) - start
        assert np.linalg.norm(moved) == pytest.approx(np.linalg.norm(own), abs=0.01), phase.name
        assert moved[2] == pytest.approx(own[2], abs=0.01), phase.name


def test_compare_says_the_clip_plays_unwarped_and_how_far_from_the_targets_it_ended(base, demo):
    demo.controller.place((0, 0.2, 0), 0)  # before the crate, facing it (heading 0)
    step(base, 1 / 60)
    found = demo.offer()
    assert found and found.asset.clip == "vault"
    assert demo.compare()
    step(base, 1 / 60)
    assert demo.hud.info.getText().splitlines()[1].startswith("vault plays unwarped (C): phase 1/3 ")
    warp = demo.last_warp
    run_for(base, 4.0, 1 / 60)
    assert len(warp.results) == len(warp.asset.phases)
    lines = demo.hud.info.getText().splitlines()
    assert lines[2] == "last vault unwarped ended from the targets:"
    far = 0.0
    for line, phase, target, result in zip(lines[3:], found.asset.phases, found.targets, warp.results, strict=True):
        goal = np.add(target.pos, phase.t_offset)   # heading 0: the offset is not turned
        centimetres = np.linalg.norm(np.subtract(tuple(result.arrived), goal)) * 100
        assert line.startswith(f"  {phase.name}: {centimetres:.1f} cm, "), line
        far = max(far, centimetres)
    assert far > 1.0   # unwarped, the clip misses the crate it was not placed for


def test_the_phase_line_goes_when_the_warp_ends_and_a_cancel_says_why(base, demo):
    demo.controller.place((0, 0.2, 0), 0)
    step(base, 1 / 60)
    assert demo.interact()
    run_for(base, 0.5, 1 / 60)
    assert demo.status.getText().startswith("vault: phase close_edge at play rate ")
    run_for(base, 4.0, 1 / 60)
    assert not demo.warper.is_warping and demo.status.getText() == ""
    demo.controller.place((0, 0.2, 0), 0)
    step(base, 1 / 60)
    assert demo.interact()
    run_for(base, 0.5, 1 / 60)
    demo.warper.cancel("the test stopped it")
    run_for(base, 0.5, 1 / 60)   # it fades out (the demo's blend_out), then says why it ended
    assert not demo.warper.is_warping and demo.status.getText() == "vault cancelled: the test stopped it"


def test_e_without_a_dodge_clip_says_so(base, demo):
    assert "dodge" not in demo.character.clips
    base.messenger.send("e")
    assert not demo.warper.is_warping
    assert demo.status.getText() == f"E dodges, but {demo.character.path} names no dodge clip (clips.dodge)"


def test_pause_stops_a_real_time_clock_and_a_step_lets_one_frame_through():
    from panda3d.core import ClockObject

    from motionwarp_demo.editor.compare import TimeControl
    clock = ClockObject(ClockObject.MNormal)
    time = TimeControl(clock)
    time.toggle_pause()
    before = clock.getFrameTime()
    for _ in range(3):
        clock.tick()
        time.frame_done()
        assert clock.getDt() == 0.0 and clock.getFrameTime() == before
    time.step()          # pressed during a frame: that frame ends, the next one runs
    time.frame_done()
    clock.tick()
    time.frame_done()
    stepped = clock.getFrameTime()
    clock.tick()
    assert stepped >= before and clock.getFrameTime() == stepped  # paused again after the one frame
    time.toggle_pause()
    assert clock.getMode() == ClockObject.MNormal
    time.next_speed()
    assert clock.getMode() == ClockObject.MDegrade and clock.getDegradeFactor() == 0.25 and "x0.25" in time.describe()
