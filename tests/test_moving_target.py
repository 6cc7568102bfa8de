"""A moving target in the demo (issue 30): a scene obstacle with a `motion` (docs/design.md 6) carries a
marker; the autopilot's pick-up follows it, and the phase's switch-off rule (design 4) ends the warp once
the marker has moved past its limit.

Oracles, none of them the code under test: the marker node's world position read from the scene graph
every frame, the phase's own `switch_off_distance` in the asset file, and the clip's ground truth
(mannequin.contacts.json: where the wrist grabs and where the root ends).
"""
import json

import pytest
from direct.showbase.DirectObject import DirectObject
from panda3d.core import ClockObject, Vec3

from motionwarp import BLEND_OUT, CANCELLED, FINISHED, PHASE_END
from motionwarp.scene.markers import MARKER_TAG
from motionwarp_demo.app.app import Demo
from motionwarp_demo.level.scene import Scene
from motionwarp_demo.views.report import RunReport

from .conftest import CONTACTS, SAMPLES

SLED = SAMPLES / "scenes" / "props" / "sled.glb"
TRUTH = json.loads(CONTACTS.read_text())["clips"]["pick_up"]
GRAB = next(c for c in TRUTH["contacts"] if c["joint"] == "hand_r")


def sled_scene(tmp_path, motion, then=([2.5, 2.0],)):
    """The yard's sled alone, 2 m ahead of the spawn, with `motion`; the autopilot walks at it, then on to `then`."""
    path = tmp_path / "sled.json"
    path.write_text(json.dumps({
        "format": "motionwarp.scene/1", "ground": {"size": [20, 20]}, "spawn": {"pos": [0, -1, 0], "h": 0},
        "obstacles": [{"name": "sled", "shape": "model", "path": str(SLED), "pos": [0, 1.0, 0], "motion": motion}],
        "autopilot": [[0, -1], [0, 0.9], *then]}))
    return Scene.load(path)


def run(base, demo, fps, seconds=20):
    """Step the demo at `fps` until the autopilot is done; per frame (after it) the marker's world position,
    the frame indices of the warp's start and of each event, and the status line when the warp began to fade."""
    marker = demo.level.find(f"**/={MARKER_TAG}")
    seen = {"positions": [], "events": []}
    frame, before = [0], demo.on_start   # a RunReport's hook, if one listens

    def started(name, found, warp):
        seen["start"] = (frame[0], marker.getPos(base.render), warp)
        if before is not None:
            before(name, found, warp)
    demo.on_start = started
    listener = DirectObject()
    listener.accept(BLEND_OUT, lambda *args: seen.update(fading=(frame[0], demo.status.getText())))
    for event in (CANCELLED, FINISHED, PHASE_END):
        listener.accept(event, lambda *args, event=event: seen["events"].append(
            (frame[0], event, args, demo.actor.getPos(base.render), hand.getPos(base.render),
             marker.getPos(base.render))))
    hand = demo.actor.exposeJoint(None, "modelRoot", GRAB["joint"])
    clock = ClockObject.getGlobalClock()
    clock.setFrameRate(fps)
    try:
        for frame[0] in range(int(seconds * fps)):
            base.taskMgr.step()
            seen["positions"].append(marker.getPos(base.render))
            if demo.done:
                break
    finally:
        listener.ignoreAll()
        clock.setFrameRate(60)
    return seen


@pytest.mark.parametrize("fps", [30, 144])
def test_a_sled_sliding_past_the_limit_switches_the_pick_up_off_within_a_frame(base, warp_asset_dir, tmp_path, fps):
    limit = json.loads((warp_asset_dir / "pick_up.warp.json").read_text())["phases"][0]["switch_off_distance"]
    scene = sled_scene(tmp_path, {"offset": [-1.5, 0, 0], "seconds": 2.5, "delay": 0.2, "start": "interaction"})
    demo = Demo(base, scene, autopilot=True, asset_dir=warp_asset_dir)
    report = RunReport(demo, scene.path, fps)
    try:
        seen = run(base, demo, fps)
        start_frame, start_pos, warp = seen["start"]
        # The first frame the node stood farther than the limit from where it was when the warp started.
        crossed = next(i for i, pos in enumerate(seen["positions"]) if i > start_frame and (pos - start_pos).length() > limit)
        # The rule fired then (the warp starts its fade-out) and said so at once; CANCELLED, with the same
        # reason, comes when the 0.2 s fade ends.
        switched, status = seen["fading"]
        assert 0 <= switched - crossed <= 1, (crossed, switched)
        [(frame, event, (_, clip, reason), *_)] = seen["events"]
        assert event == CANCELLED and 0 < frame - switched <= round(0.2 * fps) + 1
        assert reason.startswith("the target of phase 'grab' moved ") and f"(switch_off_distance {limit:g} m)" in reason
        assert warp.switched_off == reason and warp.results == []   # ended before the grab
        assert status == demo.status.getText() == f"pick_up switched off: {reason}"
        record = report.interactions[0]
        assert (record["obstacle"], record["completed"], record["switched_off"], record["reason"]) == \
            ("sled", False, True, reason)
        # The autopilot went on to its last waypoint, and nothing stopped it.
        assert demo.done and demo.autopilot.stopped is None and report.refusals == []
        assert (demo.actor.getPos(base.render).getXy() - Vec3(2.5, 2.0, 0).getXy()).length() < 0.5
    finally:
        report.ignoreAll()
        demo.destroy()


@pytest.mark.parametrize("fps", [30, 144])
def test_a_sled_that_stays_within_the_limit_is_followed_to_the_end(base, warp_asset_dir, tmp_path, fps):
    """0.15 m in 0.5 s, under the 0.25 m limit and done before the grab: the wrist ends on the marker where
    the node then is, and the root where the clip's ground truth ends it from that grab (the sled is the
    last waypoint: the character stands while the clip fades out, no walk carries it on)."""
    scene = sled_scene(tmp_path, {"offset": [-0.15, 0, 0], "seconds": 0.5, "delay": 0.1, "start": "interaction"},
                       then=())
    demo = Demo(base, scene, autopilot=True, asset_dir=warp_asset_dir)
    try:
        seen = run(base, demo, fps)
        _, start_pos, warp = seen["start"]
        ends = {event: rest for _, event, *rest in seen["events"]}
        assert set(ends) == {PHASE_END, FINISHED} and warp.switched_off is None
        _, _, hand, marker = ends[PHASE_END]
        assert (marker - start_pos).length() == pytest.approx(0.15, abs=1e-6)   # it had slid all the way
        assert (hand - marker).length() < 0.01
        _, root, _, marker = ends[FINISHED]
        expected = marker + Vec3(*TRUTH["root_end"][:3]) - Vec3(*GRAB["pos"])   # the sled faces +Y, as the clip
        assert (root - expected).length() < 0.01, (root, expected)
    finally:
        demo.destroy()
