"""Real rigs from other exporters (tests/data/rigs/README.md) load as their glTF says: skins sharing
one skeleton root (RobotExpressive's 4, BrainStem's 59, which panda3d-gltf 1.3.0 fails on with
KeyError 0) and a morph-target face inside the skeleton (RobotExpressive: its clips listed once).
Oracle: the GLB's own JSON (its clips and the joints its skins name)."""
import json
import pathlib
import struct

import pytest

from motionwarp import load_actor

RIGS = pathlib.Path(__file__).parent / "data" / "rigs"


def gltf(path):
    data = path.read_bytes()
    length = struct.unpack("<I", data[12:16])[0]
    return json.loads(data[20:20 + length])


def joint_names(doc):
    return {doc["nodes"][j].get("name", f"node{j}") for skin in doc["skins"] for j in skin["joints"]}


@pytest.mark.parametrize("name", ["RobotExpressive", "BrainStem", "CesiumMan"])
def test_a_real_rig_loads_with_each_clip_once_and_every_joint_its_skins_name(base, name):
    path = RIGS / f"{name}.glb"
    doc = gltf(path)
    actor = load_actor(path)
    try:
        actor.reparentTo(base.render)
        clips = actor.getAnimNames()
        assert len(clips) == len(doc["animations"]), clips
        named = [a["name"] for a in doc["animations"] if a.get("name")]
        assert set(named) <= set(clips), (named, clips)
        for joint in joint_names(doc):
            assert not actor.exposeJoint(None, "modelRoot", joint).isEmpty(), joint
    finally:
        actor.cleanup()
        actor.removeNode()
