"""The demo's yard (scenes/yard.json): the autopilot takes every interaction a level marks or its
geometry offers, through the same chooser a player's Space uses, and each ends where the level says.

Oracles: the marker nodes the yard's glTF props carry (their world transforms, read from the scene
graph), the contact ground truth (the seated hips above the seat), and the platforms' own boxes
in the scene file. Joints are read from the live Actor when each phase ends.
"""
import json

import pytest
from direct.showbase.DirectObject import DirectObject
from panda3d.core import ClockObject, Vec3

from motionwarp_demo.app.app import Demo
from motionwarp_demo.level.scene import Scene
from motionwarp import PHASE_END
from motionwarp.scene.markers import MARKER_TAG

from .conftest import CONTACTS, SAMPLES

YARD = SAMPLES / "scenes" / "yard.json"
SEATED = next(c for c in json.loads(CONTACTS.read_text())["clips"]["sit"]["contacts"] if c["joint"] == "hips")
#: What the autopilot takes, in order: (obstacle, kind). The sled slides its item away (its `motion`).
EXPECTED = [("item", "pick_up"), ("table", "pick_up"), ("button wall", "use"), ("bench", "sit"), ("chair", "sit"),
            ("ledge", "jump_onto"), ("platform", "jump_gap"), ("side crate", "vault"), ("sled", "pick_up")]


@pytest.mark.parametrize("fps", [30, 144])
def test_the_autopilot_takes_everything_in_the_yard_and_arrives_on_each_marker(base, warp_asset_dir, fps):
    scene = Scene.load(YARD)
    demo = Demo(base, scene, autopilot=True, asset_dir=warp_asset_dir)
    taken, arrivals, starts, warps, listener = [], [], {}, {}, DirectObject()

    def started(name, found, warp):
        taken.append((name, found))
        starts[name], warps[name] = demo.actor.getPos(base.render), warp
    demo.on_start = started
    demo.on_skip = lambda name, reason: pytest.fail(f"{name} skipped: {reason}")
    joints = {name: demo.actor.exposeJoint(None, "modelRoot", name) for name in ("hand_r", "hips")}

    def phase_end(warper, name, index):
        obstacle, found = taken[-1]
        arrivals.append((obstacle, found, name, {j: node.getPos(base.render) for j, node in joints.items()},
                         demo.actor.getPos(base.render)))
    listener.accept(PHASE_END, phase_end)
    clock = ClockObject.getGlobalClock()
    clock.setFrameRate(fps)
    try:
        for _ in range(int(70 * fps)):
            base.taskMgr.step()
            if demo.done:
                break
        assert demo.done and demo.autopilot.stopped is None
        assert [(name, found.kind) for name, found in taken] == EXPECTED
        markers = {node.getParent(): node for node in base.render.findAllMatches(f"**/={MARKER_TAG}")}
        # The sled's item slides away as the reach starts: the grab's switch-off rule ends the warp before
        # the hand gets there (tests/test_moving_target.py measures when), and the autopilot walks on.
        assert warps["sled"].switched_off.startswith("the target of phase 'grab' moved")
        assert not any(obstacle == "sled" for obstacle, *_ in arrivals)
        checked = {"sled"}
        for obstacle, found, phase, joint, root in arrivals:
            if found.kind in ("pick_up", "use") and phase in ("grab", "hand"):
                marker = markers[found.node.getParent()]
                assert (joint["hand_r"] - marker.getPos(base.render)).length() < 0.01, (found.kind, phase)
            elif found.kind == "sit" and phase == "seat":
                marker = markers[found.node.getParent()]
                above = Vec3(*SEATED["pos"]) - Vec3(*SEATED["surface"])
                assert (joint["hips"] - above - marker.getPos(base.render)).length() < 0.01, phase
            elif found.kind == "vault" and phase == "landing":
                # The side crate's right end is nearer the character's line than its left (the scene
                # file's box, from where the vault started): the mirrored vault, leading with the left
                # hand, plays, and lands on the ground beyond the crate.
                crate = next(o for o in scene.obstacles if o.name == obstacle)
                x = starts[obstacle].x
                right, left = crate.pos[0] + crate.size[0] / 2 - x, x - (crate.pos[0] - crate.size[0] / 2)
                assert right + 0.1 <= left and found.asset.clip == "vault.mirrored"
                assert root.z == pytest.approx(0.0, abs=0.01) and root.y > crate.pos[1] + crate.size[1] / 2
            elif phase == "landing":
                platform = next(o for o in scene.obstacles if o.name == ("ledge" if found.kind == "jump_onto" else "platform"))
                assert root.z == pytest.approx(platform.size[2], abs=0.01)        # on top of it
                assert platform.pos[1] - platform.size[1] / 2 + 0.3 < root.y < platform.pos[1] + platform.size[1] / 2
                assert (root - found.targets[1].pos).length() < 0.01
            else:
                continue
            checked.add(obstacle)
        assert checked == {name for name, _ in EXPECTED}
    finally:
        listener.ignoreAll()
        demo.destroy()
        clock.setFrameRate(60)
