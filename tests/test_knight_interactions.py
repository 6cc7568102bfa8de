"""The Knight's own Sit_Chair_Down, PickUp and Interact, authored by `author` (issue 30), found on
markers of this test's own level and played by the real MotionWarper.

Oracles: each marker node's world position; the Knight's joint (hips, the reaching hand) read from a
second Knight posed at the phase's end frame, placed where the warper put the played one when the
phase ended. Refusals: a clip whose hips or hands never reach anywhere (Idle).
"""
import math

import pytest
from panda3d.core import Point3

from motionwarp import MarkerProvider, SceneProbe
from motionwarp.base.errors import UsageError
from motionwarp.scene.markers import MARKER_TAG
from motionwarp.tools import author
from motionwarp.tools.inspector import Model

from .marker_rigs import read_at_phase_ends
from .obstacles import level
from .pose_oracle import KNIGHT, ROOT

pytestmark = pytest.mark.skipif(KNIGHT is None, reason="../shared/rigs/Knight.glb is not beside the project")

#: (clip, kind, joint that lands on the marker, the marker's height)
CLIPS = [("Sit_Chair_Down", "sit", "hips", 0.48), ("PickUp", "pick_up", "hand.r", 0.28),
         ("Interact", "use", "hand.r", 0.9)]


@pytest.fixture(scope="module")
def knight():
    from motionwarp_demo.character.character_file import Character
    return Character.load(str(ROOT / "characters" / "knight.json"))


@pytest.fixture(scope="module")
def model():
    return Model(str(KNIGHT))


@pytest.mark.parametrize("clip, kind, joint, height", CLIPS)
def test_the_authored_joint_ends_on_the_marker(base, knight, model, tmp_path, clip, kind, joint, height):
    asset = author.write(model, clip, kind, str(tmp_path / f"{kind}.warp.json"))
    h = 25.0
    marker = base.render.attachNewNode(kind)
    marker.setPos(Point3(-math.sin(math.radians(h)) * 0.9, math.cos(math.radians(h)) * 0.9, height))
    marker.setH(h)
    marker.setTag(MARKER_TAG, kind)
    actor = knight.load_actor()
    actor.reparentTo(base.render)
    actor.setH(h)
    found = MarkerProvider(SceneProbe.from_geometry(level()), base.render, [asset], reach=2.5).find(actor)
    assert found and found.node == marker, getattr(found, "reason", None)
    mats = read_at_phase_ends(base, actor, found.asset, found.targets, 30,
                              lambda: actor.getMat(base.render))
    phase = found.asset.phases[0]
    posed = knight.load_actor()
    posed.reparentTo(base.render)
    posed.pose(clip, round(phase.end * 30))
    posed.update(force=True)
    local = posed.exposeJoint(None, "modelRoot", joint).getPos(posed)
    end = mats[phase.name].xformPoint(local)
    assert (end - marker.getPos(base.render)).length() < 0.02


@pytest.mark.parametrize("kind, why", [("sit", "hips never move"), ("pick_up", "no hand reaches"),
                                       ("use", "no hand reaches")])
def test_a_clip_with_no_contact_is_refused_with_why(model, tmp_path, kind, why):
    with pytest.raises(UsageError, match=why):
        author.write(model, "Idle", kind, str(tmp_path / "idle.warp.json"))


def test_the_knight_presses_the_yards_button_once_and_walks_on(tmp_path):
    """The Knight's Interact ends where it stood, 0.58 m from the yard's waypoint at the button: the
    autopilot moves on once the interaction a marker names has played there (it pressed the button
    7 times in 30 s and never reached the ledge before)."""
    import json
    import subprocess
    import sys
    report = tmp_path / "yard.json"
    subprocess.run([sys.executable, str(ROOT / "main.py"), "--headless", "--autopilot", "--scene",
                    str(ROOT / "motionwarp" / "samples" / "scenes" / "yard.json"), "--character",
                    str(ROOT / "characters" / "knight.json"), "--report", str(report), "--max-seconds", "60"],
                   check=True, capture_output=True, cwd=tmp_path)
    kinds = [i["kind"] for i in json.loads(report.read_text())["interactions"]]
    assert kinds.count("use") == 1 and "jump_onto" in kinds[kinds.index("use"):], kinds
