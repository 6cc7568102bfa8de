"""The authored character: reproducible, a person-sized skeleton, and contacts that really touch."""
import json
import math
import subprocess
import sys

import pytest

from motionwarp import load_actor
from motionwarp.loader import clip_control

from .conftest import ASSETS, MANNEQUIN, ROOT

CONTACTS = json.loads((ASSETS / "mannequin.contacts.json").read_text())


def test_regenerating_gives_the_same_files(tmp_path):
    subprocess.run([sys.executable, str(ASSETS / "generate_mannequin.py"), str(tmp_path)], cwd=ROOT,
                   check=True, capture_output=True, timeout=120)
    assert (tmp_path / "mannequin.glb").read_bytes() == MANNEQUIN.read_bytes()
    assert (tmp_path / "mannequin.contacts.json").read_text() == (ASSETS / "mannequin.contacts.json").read_text()


@pytest.fixture
def actor(base, tmp_path):
    """An Actor on a private copy of the model: its clips still hold their root motion
    (other tests' warpers strip the shared clips of assets/mannequin.glb)."""
    copy = tmp_path / "mannequin.glb"
    copy.write_bytes(MANNEQUIN.read_bytes())
    actor = load_actor(copy)
    actor.reparentTo(base.render)
    yield actor
    actor.cleanup()
    actor.removeNode()


def test_skeleton_and_clips(actor):
    joints = [j.getName() for j in actor.getJoints()]
    assert len(joints) >= 17
    assert {"root", "hips", "hand_l", "hand_r", "foot_l", "foot_r", "head"} <= set(joints)
    assert set(actor.getAnimNames()) == {"idle", "walk", "run", "vault", "mantle", "mantle_high"}
    assert clip_control(actor, "walk").getFrameRate() == 30


def test_about_1_8_m_tall_standing_on_the_ground(actor):
    actor.pose("idle", 0)
    actor.update(force=True)
    low, high = actor.getTightBounds()
    assert high.z - low.z == pytest.approx(1.8, abs=0.08)
    assert abs(low.z) < 0.03


@pytest.mark.parametrize("clip", sorted(CONTACTS["clips"]))
def test_hands_and_feet_touch_where_the_ground_truth_says(actor, clip):
    fps = CONTACTS["fps"]
    exposed = {}
    for contact in CONTACTS["clips"][clip]["contacts"]:
        joint = exposed.setdefault(contact["joint"], actor.exposeJoint(None, "modelRoot", contact["joint"]))
        for frame in range(math.ceil(contact["start"] * fps - 1e-6), math.floor(contact["end"] * fps + 1e-6) + 1):
            actor.pose(clip, frame)
            actor.update(force=True)
            error = (joint.getPos(actor) - tuple(contact["pos"])).length()
            assert error < 0.01, f"{clip} {contact['joint']} frame {frame}: {error * 1000:.1f} mm off"
