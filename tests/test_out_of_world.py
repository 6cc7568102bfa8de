"""Walking off the ground's edge (issue 19): the fall stops at the kill plane, 10 m under the
level's lowest point, the character is put back where it started, as a game respawns it, and
the autopilot stops and the report's `stopped` says why (design 8)."""
import json

import pytest

from demo.app.app import KILL_DEPTH_M, Demo
from demo.level.scene import Scene
from demo.views.report import RunReport

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
