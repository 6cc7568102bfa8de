"""Walking off the ground's edge (issue 19): the fall stops at the kill plane, 10 m under the
level's lowest point, the character is put back where it started, as a game respawns it, and
the autopilot stops and the report's `stopped` says why (design 8)."""
import json

import numpy as np
import pytest
from panda3d.core import Vec3

from motionwarp import SceneProbe

from motionwarp_demo.app.app import Demo
from motionwarp_demo.character.body import CharacterBody
from motionwarp_demo.level.scene import KILL_DEPTH_M, Scene, SceneError
from motionwarp_demo.views.report import RunReport

from .conftest import SAMPLES, step

GROUND = 6.0   # a 6 m square around the origin: its north edge is at y = 3


@pytest.fixture
def edge_demo(base, tmp_path, warp_asset_dir):
    scene = json.loads((SAMPLES / "scenes" / "course.json").read_text())
    scene.update(ground={"size": [GROUND, GROUND]}, spawn={"pos": [0, 0, 0], "h": 0}, autopilot=[[0, 0], [0, 30]],
                 obstacles=[{"name": "stool", "shape": "box", "pos": [-2.5, -2.5, 0], "size": [0.4, 0.4, 0.4]}])
    path = tmp_path / "edge.json"
    path.write_text(json.dumps(scene))
    demo = Demo(base, Scene.load(path), autopilot=True, asset_dir=warp_asset_dir)
    yield demo, path
    demo.destroy()


def test_walking_off_the_edge_stops_at_the_kill_plane_and_respawns(base, edge_demo):
    demo, path = edge_demo
    assert demo.kill_z == pytest.approx(0.0 - KILL_DEPTH_M)   # the ground (z = 0) is the level's lowest point
    lowest, frames = 0.0, 0
    while not demo.done and frames < 12 * 60:
        step(base, 1 / 60)
        frames += 1
        lowest = min(lowest, demo.actor.getZ(base.render))
    assert demo.done, "the run never ended"
    assert lowest >= demo.kill_z - 1e-6, f"fell to {lowest:.1f} m, past the kill plane at {demo.kill_z} m"
    [where] = demo.controller.left_world
    assert where.z == pytest.approx(demo.kill_z) and where.y > GROUND / 2 and abs(where.x) < 0.2
    pos = demo.actor.getPos(base.render)
    assert (pos.x, pos.y, pos.z) == pytest.approx((0.0, 0.0, 0.0), abs=0.05), "not put back at the start"
    assert not demo.controller.airborne
    stopped = RunReport(demo, str(path), 60).to_dict(frames)["stopped"]
    assert stopped == {"obstacle": None, "reason": f"fell off the world at ({where.x:.1f}, {where.y:.1f}) and was "
                                                   "put back at the start"}


def test_a_spawn_under_the_kill_plane_is_a_scene_error_naming_spawn_pos(base, tmp_path, warp_asset_dir):
    """Issue 28: the character fell from the spawn, was put back there and fell again, forever (exit 0)."""
    scene = {"format": "motionwarp.scene/1", "ground": {"size": [GROUND, GROUND]},   # the ground (z = 0) is lowest
             "spawn": {"pos": [0, 0, -KILL_DEPTH_M - 0.5]},
             "obstacles": [{"name": "stool", "shape": "box", "pos": [-2.5, -2.5, 0], "size": [0.4, 0.4, 0.4]}]}
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(scene))
    before = set(base.render.getChildren())
    with pytest.raises(SceneError) as raised:
        Demo(base, Scene.load(path), asset_dir=warp_asset_dir)
    assert str(raised.value) == (f"{path}: spawn.pos: expected a point above the kill plane at z = -10 (10 m under "
                                 "the level's lowest point), got z = -10.5")
    assert set(base.render.getChildren()) == before   # what the demo had built is taken down


def test_a_fall_far_from_the_origin_moves_by_what_float32_can_tell_apart(base):
    """100 km up, float32 points lie 7.8 mm apart: the first frames of a fall move less than that, so
    the capsule's sweep from a point to the same point was a raw ValueError in the demo's task. Each
    frame the feet now go down by the frame's fall rounded to float32 (skipped while it rounds to no
    move), and reach the drop gravity gives to float32 resolution."""
    far = base.render.attachNewNode("far")
    far.setPos(0, 0, 1e5)
    probe = SceneProbe.from_geometry(base.render.attachNewNode("nothing"))   # nothing to land on
    body = CharacterBody(far, probe, space=base.render)
    g, dt, z, vz = body.settings.gravity, 1 / 60, np.float32(1e5), 0.0
    for frame in range(1, 61):
        body.update(dt, Vec3(0, 0, 0))
        vz -= g * dt
        z = np.float32(float(z) + vz * dt)   # the frame's fall, from where float32 has the feet
        assert far.getZ() == z, frame
    assert 1e5 - far.getZ() == pytest.approx(0.5 * g * 1.0 ** 2, abs=0.3)   # about the 4.9 m of a second's fall
