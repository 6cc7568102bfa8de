"""Real rigs from other exporters (tests/data/rigs/README.md) load as their glTF says: skins sharing
one skeleton root (RobotExpressive's 4, BrainStem's 59, which panda3d-gltf 1.3.0 fails on with
KeyError 0) and a morph-target face inside the skeleton (RobotExpressive: its clips listed once);
skeletons under turned and scaled nodes stand up, and `inspect` finds their feet by shape.
Oracle: the GLB's own JSON (its clips, the joints its skins name, and the nodes' rest transforms
composed here with numpy)."""
import json
import pathlib
import struct

import numpy as np
import pytest

from motionwarp import load_actor
from motionwarp.tools.inspector import Model

from .test_inspect import tool_in_process

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


def _local(node):
    """A glTF node's local transform (column vectors, glTF axes), from its JSON."""
    if "matrix" in node:
        return np.array(node["matrix"], dtype=float).reshape(4, 4).T
    x, y, z, w = node.get("rotation", (0.0, 0.0, 0.0, 1.0))
    turn = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    mat = np.eye(4)
    mat[:3, :3] = turn * np.asarray(node.get("scale", (1.0, 1.0, 1.0)))
    mat[:3, 3] = node.get("translation", (0.0, 0.0, 0.0))
    return mat


def world_rest(doc):
    """{node index: world position (glTF axes, Y up)} of every node of the default scene at rest."""
    found = {}
    stack = [(i, np.eye(4)) for i in doc["scenes"][doc.get("scene", 0)]["nodes"]]
    while stack:
        index, above = stack.pop()
        mat = above @ _local(doc["nodes"][index])
        found[index] = mat[:3, 3]
        stack.extend((child, mat) for child in doc["nodes"][index].get("children", []))
    return found


def lowest_leaf_joints(doc):
    """Names of the two skin joints with no skin joint below them that stand lowest at rest."""
    joints = {j for skin in doc["skins"] for j in skin["joints"]}
    leaves = [j for j in joints if not joints.intersection(doc["nodes"][j].get("children", []))]
    where = world_rest(doc)
    return {doc["nodes"][j]["name"] for j in sorted(leaves, key=lambda j: where[j][1])[:2]}, where


@pytest.mark.parametrize("name", ["RobotExpressive", "BrainStem"])
def test_a_real_rigs_feet_are_its_two_lowest_chain_ends(name):
    """RobotExpressive's feet hang from its root bone under an armature scaled 100 and turned; BrainStem's
    joints are GUIDs under two turned nodes. Each foot found carries one of the two lowest leaf joints
    of the file's rest pose, and stands upright near that joint's height (Panda3D's Z is glTF's Y; the
    skeleton stands in its bind pose, from the inverse binds, which BrainStem's nodes leave by 5% of
    the height: lying down, the feet were 0.6 heights off)."""
    doc = gltf(RIGS / f"{name}.glb")
    lowest, where = lowest_leaf_joints(doc)
    model = Model(RIGS / f"{name}.glb")
    feet = [model.skeleton.limbs[role] for role in ("foot_l", "foot_r")]
    assert {point for foot in feet for point in foot.points} >= lowest, (feet, lowest)
    assert all(len(lowest.intersection(foot.points)) == 1 for foot in feet), feet
    height = model.skeleton.height
    by_name = {doc["nodes"][i].get("name"): p for i, p in where.items()}
    for joint in lowest:
        assert model.skeleton.rest[joint][2] == pytest.approx(by_name[joint][1], abs=0.1 * height), joint
    assert model.skeleton.how["feet"].startswith(("sure", "likely")), model.skeleton.how


def test_robot_expressive_gets_a_character_file_with_a_walk(tmp_path, capsys):
    """Its `Walking` steps at 1.1 heights a second (a run by speed alone): the name tells the gait."""
    out = tmp_path / "characters" / "robot.json"
    status, stderr = tool_in_process(capsys, "inspect", RIGS / "RobotExpressive.glb", "--write-character", out)
    assert status == 0, stderr
    data = json.loads(out.read_text())
    assert data["clips"]["walk"] == "Walking" and data["clips"]["run"] == "Running" and data["clips"]["idle"] == "Idle"
    assert data["turn"] == 180.0 and data["contact_ik"] is False


@pytest.mark.parametrize("name, cause", [
    ("BrainStem", "no clip looks like an idle (roles guessed: jump); no clip looks like a walk (roles guessed: jump)"),
    ("CesiumMan", "no clip looks like an idle (roles guessed: walk)")])
def test_a_real_rig_without_the_clips_to_play_is_refused_in_one_line(tmp_path, capsys, name, cause):
    """BrainStem's one clip is 34.9 s of moves that never loop; CesiumMan has a walk and no idle. Their
    feet are found, so the line names the clips, once each."""
    out = tmp_path / f"{name}.json"
    status, stderr = tool_in_process(capsys, "inspect", RIGS / f"{name}.glb", "--write-character", out)
    assert status == 2 and stderr.count("\n") == 1, stderr
    assert f"could not play: {cause} (--write-anyway" in stderr and "feet" not in stderr
    assert not out.exists()
