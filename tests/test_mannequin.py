"""The authored character: reproducible, a person-sized skeleton, and contacts that really touch."""
import json
import math
import subprocess
import sys

import numpy as np
import pytest

from motionwarp import load_actor
from motionwarp.animation.actor_clips import clip_control

from .conftest import ASSETS, MANNEQUIN, ROOT
from .glb import accessor, read_glb

CONTACTS = json.loads((ASSETS / "mannequin.contacts.json").read_text())


# What "reproducible" means (README, "The character and its clips"): the contacts file is
# identical, the glTF JSON has the same structure, and every stored number is within this
# tolerance of the shipped one (the writer rounds to 1e-7; numpy builds and CPUs differ in
# the last bits of values near zero).
TOLERANCE = 1e-6


def assert_same_structure(new, old, where="glTF"):
    """Same keys, lengths, strings and integers; floats within TOLERANCE."""
    if isinstance(old, float) or isinstance(new, float):
        assert new == pytest.approx(old, abs=TOLERANCE), where
    elif isinstance(old, dict):
        assert isinstance(new, dict) and sorted(new) == sorted(old), where
        for key in old:
            assert_same_structure(new[key], old[key], f"{where}.{key}")
    elif isinstance(old, list):
        assert isinstance(new, list) and len(new) == len(old), where
        for i, (a, b) in enumerate(zip(new, old)):
            assert_same_structure(a, b, f"{where}[{i}]")
    else:
        assert new == old, where


def test_regenerating_gives_the_same_files(tmp_path):
    subprocess.run([sys.executable, "-m", "authoring.generate_mannequin", str(tmp_path)], cwd=ROOT,
                   check=True, capture_output=True, timeout=120)
    assert (tmp_path / "mannequin.contacts.json").read_text() == (ASSETS / "mannequin.contacts.json").read_text()
    new_doc, new_blob = read_glb(tmp_path / "mannequin.glb")
    old_doc, old_blob = read_glb(MANNEQUIN)
    assert_same_structure(new_doc, old_doc)
    assert len(new_blob) == len(old_blob)
    for index, info in enumerate(old_doc["accessors"]):
        new, old = accessor(new_doc, new_blob, index), accessor(old_doc, old_blob, index)
        if info["componentType"] == 5126:
            worst = float(np.max(np.abs(new.astype(np.float64) - old)))
            assert worst <= TOLERANCE, f"accessor {index}: a value moved by {worst:g}"
        else:
            assert np.array_equal(new, old), f"accessor {index}: integers differ"


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
    assert set(actor.getAnimNames()) == {"idle", "walk", "run", "vault", "mantle", "mantle_high", "fall", "land",
                                         "pick_up", "pick_up_table", "use", "sit", "running_jump"}
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
