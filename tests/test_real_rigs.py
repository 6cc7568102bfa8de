"""Real rigs from other exporters (tests/data/rigs/README.md) load as their glTF says: skins sharing
one skeleton root (RobotExpressive's 4, BrainStem's 59, which panda3d-gltf 1.3.0 fails on with
KeyError 0) and a morph-target face inside the skeleton (RobotExpressive: its clips listed once);
skeletons under turned and scaled nodes stand up, and `inspect` finds their feet by shape.
Oracle: the GLB's own JSON (its clips, the joints its skins name, and the nodes' rest transforms
composed here with numpy)."""
import json
import pathlib

import numpy as np
import pytest

from motionwarp import load_actor
from motionwarp.tools.inspector import Model

from .glb import accessor, read_glb, world_matrices
from .test_inspect import tool_in_process

RIGS = pathlib.Path(__file__).parent / "data" / "rigs"


def gltf(path):
    return read_glb(path)[0]


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


def world_rest(doc):
    """{node index: world position (glTF axes, Y up)} of every node of the default scene at rest."""
    return {index: mat[:3, 3] for index, mat in world_matrices(doc).items()}


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
    skeleton rests at its nodes' transforms, which BrainStem's inverse binds leave by 5% of the height:
    lying down, the feet were 0.6 heights off)."""
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


def spec_skinned_bounds(doc, binary):
    """(low, high) of every skinned vertex at rest by the glTF spec (sum of weight * joint world * inverse
    bind * vertex; the mesh node's own transform ignored), in Panda3D axes (x, -z, y)."""
    world = world_matrices(doc)
    points = []
    for nodeid, node in enumerate(doc["nodes"]):
        if "skin" not in node or nodeid not in world:
            continue
        skin = doc["skins"][node["skin"]]
        binds = (accessor(doc, binary, skin["inverseBindMatrices"]).reshape(-1, 4, 4).transpose(0, 2, 1)
                 if "inverseBindMatrices" in skin else np.tile(np.eye(4), (len(skin["joints"]), 1, 1)))
        joints = np.array([world[j] for j in skin["joints"]]) @ binds
        for primitive in doc["meshes"][node["mesh"]]["primitives"]:
            where = accessor(doc, binary, primitive["attributes"]["POSITION"])
            which = accessor(doc, binary, primitive["attributes"]["JOINTS_0"]).astype(int)
            weights = accessor(doc, binary, primitive["attributes"]["WEIGHTS_0"])
            skinning = np.einsum("vk,vkij->vij", weights, joints[which])
            moved = np.einsum("vij,vj->vi", skinning, np.c_[where, np.ones(len(where))])[:, :3]
            points.append(moved)
    points = np.concatenate(points)
    points = np.stack([points[:, 0], -points[:, 2], points[:, 1]], axis=1)
    return points.min(axis=0), points.max(axis=0)


def drawn_skinned_bounds(actor, render):
    """(low, high) of the Actor's skinned vertices as Panda3D draws them at rest."""
    from panda3d.core import GeomVertexReader, Thread
    points = []
    for geom_np in actor.findAllMatches("**/+GeomNode"):
        to_render = geom_np.getMat(render)
        for geom in geom_np.node().getGeoms():
            data = geom.getVertexData()
            if data.getTransformBlendTable() is None:
                continue
            reader = GeomVertexReader(data.animateVertices(True, Thread.getCurrentThread()), "vertex")
            while not reader.isAtEnd():
                points.append(tuple(to_render.xformPoint(reader.getData3())))
    points = np.array(points)
    return points.min(axis=0), points.max(axis=0)


@pytest.mark.parametrize("name", ["RobotExpressive", "BrainStem", "CesiumMan"])
def test_a_real_rig_rests_where_the_gltf_spec_puts_it(base, name):
    """At rest every skin joint stands at its node's world transform (every ancestor node's TRS composed
    from the scene's roots, numpy over the GLB's JSON) to 1 mm, and the skinned vertices are drawn as the
    spec's formula moves them. Before: CesiumMan lay along -Y (its `Z_UP` node, above the Character,
    dropped: 1.17 m median error), RobotExpressive and BrainStem stood in the pose of their inverse binds
    (2.13 m and 0.29 m median error)."""
    path = RIGS / f"{name}.glb"
    doc, binary = read_glb(path)
    where = world_rest(doc)
    actor = load_actor(path)
    try:
        actor.reparentTo(base.render)
        actor.update(force=True)
        worst = []
        for index in sorted({j for skin in doc["skins"] for j in skin["joints"]}):
            joint = doc["nodes"][index].get("name", f"node{index}")
            drawn = np.array(actor.exposeJoint(None, "modelRoot", joint).getPos(base.render))
            spec = np.array([where[index][0], -where[index][2], where[index][1]])
            worst.append((float(np.linalg.norm(drawn - spec)), joint, tuple(drawn), tuple(spec)))
        assert max(worst)[0] < 1e-3, max(worst)
        low, high = drawn_skinned_bounds(actor, base.render)
        spec_low, spec_high = spec_skinned_bounds(doc, binary)
        assert np.abs(low - spec_low).max() < 1e-3 and np.abs(high - spec_high).max() < 1e-3, (
            low, spec_low, high, spec_high)
    finally:
        actor.cleanup()
        actor.removeNode()
