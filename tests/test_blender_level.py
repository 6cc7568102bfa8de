"""The level Blender made of the real props (issue 26): props/real/blender_level.glb, written by
Blender's own glTF exporter (authoring/make_blender_level.py), carries its marker empties' custom
properties, Panda3D's loader puts the tagged nodes where the file says, and the MarkerProvider offers
each marker to a character come to it.

The oracle is the GLB's own JSON, read here with tests/glb.py: its nodes' extras, and each node's
world transform composed from the node tree (translation, rotation, scale or matrix), turned from
glTF's y-up into Panda3D's z-up as (x, y, z) -> (x, -z, y).
"""
import math

import numpy
import pytest
from panda3d.core import Filename, NodePath, Point3, Vec3

from motionwarp import SceneProbe, WarpAsset
from motionwarp.scene.markers import MARKER_TAG, MarkerProvider

from .conftest import SAMPLES
from .glb import read_glb, world_matrices

LEVEL = SAMPLES / "scenes" / "props" / "real" / "blender_level.glb"
#: The marker empties the script adds: {node name: kind}.
MARKERS = {"seat": "sit", "cup_grab": "pick_up", "latch": "use"}


def to_panda(vector):
    """glTF y-up to Panda3D z-up."""
    x, y, z = vector
    return Point3(x, -z, y)


@pytest.fixture(scope="module")
def doc():
    return read_glb(LEVEL)[0]


@pytest.fixture(scope="module")
def level(showbase):
    """The level as the demo loads it, under a root of its own, apart from render (which each test's
    `base` empties); no ground: the markers stand on props."""
    root = NodePath("blender level")
    model = showbase.loader.loadModel(Filename.fromOsSpecific(str(LEVEL)))
    model.reparentTo(root)
    yield root
    root.removeNode()


def test_the_level_is_small_and_every_marker_empty_carries_its_extras(doc):
    assert LEVEL.stat().st_size < 2_000_000
    assert "Khronos glTF Blender I/O" in doc["asset"].get("generator", "")
    tagged = {node["name"]: node["extras"] for node in doc["nodes"] if MARKER_TAG in node.get("extras", {})}
    assert tagged == {name: {MARKER_TAG: kind} for name, kind in MARKERS.items()}
    parents = {child: node["name"] for node in doc["nodes"] for child in node.get("children", ())}
    by_name = {node["name"]: index for index, node in enumerate(doc["nodes"])}
    for name in MARKERS:   # each marker is a child of its prop's mesh node, as the provider needs
        parent = doc["nodes"][by_name[parents[by_name[name]]]]
        assert "mesh" in parent, (name, parent["name"])


def test_the_loaded_markers_stand_where_the_gltf_node_tree_puts_them(doc, level):
    worlds = world_matrices(doc)
    loaded = {node.getName(): node for node in level.findAllMatches(f"**/={MARKER_TAG}")}
    assert {name: node.getTag(MARKER_TAG) for name, node in loaded.items()} == MARKERS
    for index, node in enumerate(doc["nodes"]):
        if node["name"] not in MARKERS:
            continue
        world = worlds[index]
        expected = to_panda(world[:3, 3])
        marker = loaded[node["name"]]
        assert (marker.getPos(level) - expected).length() < 1e-3, node["name"]
        # Panda3D's +Y (the way the character faces on arrival) is glTF's -Z.
        forward = to_panda(world[:3, :3] @ numpy.array((0.0, 0.0, -1.0)))
        forward.normalize()
        assert (marker.getQuat(level).getForward() - forward).length() < 1e-3, node["name"]
    # Blender's +Y is Panda3D's +Y: the cup's grab faces +Y, the walking line, 0.94 m up beside the cup.
    grab = loaded["cup_grab"]
    assert grab.getH(level) == pytest.approx(0.0, abs=0.01)
    assert grab.getZ(level) == pytest.approx(0.94, abs=1e-3)
    assert not level.find("**/cup").isEmpty()


@pytest.fixture(scope="module")
def markers(level, warp_asset_dir):
    assets = [WarpAsset.load(path) for path in sorted(warp_asset_dir.glob("*.warp.json"))]
    return MarkerProvider(SceneProbe.from_geometry(level), level, assets)


@pytest.mark.parametrize("name, clip", [("cup_grab", "pick_up_table"), ("seat", "sit"), ("latch", "use")])
def test_a_character_1_m_in_front_of_a_marker_facing_it_is_offered_it(level, markers, name, clip):
    """1 m from the marker on its ground, facing it: for pick_up and use the marker's own heading (the
    character faces its +Y), for sit the opposite (it arrives facing the marker's -Y and turns round)."""
    assert markers.problems == []
    marker = level.find(f"**/{name}")
    h = marker.getH(level) + (180.0 if clip == "sit" else 0.0)
    facing = Vec3(-math.sin(math.radians(h)), math.cos(math.radians(h)), 0.0)
    character = level.attachNewNode("character")
    try:
        at = marker.getPos(level) - facing * 1.0
        character.setPos(at.x, at.y, 0.0)
        character.setH(h)
        found = markers.find(character)
        assert found, found.reason
        assert found.node == marker and found.kind == MARKERS[name] and found.asset.clip == clip
        assert found.distance == pytest.approx(1.0, abs=1e-3)
        assert found.height == pytest.approx(marker.getZ(level), abs=1e-3)
    finally:
        character.removeNode()



def test_walking_straight_at_the_table_the_cup_is_offered_before_jumping_onto_the_table(showbase, level, warp_asset_dir):
    """The demo's chooser, walking up x = 0 toward the table whose cup carries a pick_up marker (the
    table 0.8 m high, 1.56 m deep: a jump onto it fits): from 3.4 m to 0.9 m of the marker every
    answer about the table is the pick-up (too far until 1.4 m, then offered), never jump onto or
    mantling the cup (with the markers looked for within 2 m only, jump onto was offered 2.08 m
    from the marker; with no Interaction the nearer "too far to mantle" the cup won)."""
    from motionwarp_demo.app.app import _providers
    from motionwarp.base.config import MotionWarpSettings
    from .obstacles import box_profile, prism
    assets = {path.name: WarpAsset.load(path) for path in sorted(warp_asset_dir.glob("*.warp.json"))}
    world = NodePath("world")
    level.instanceTo(world)
    prism(world, "ground", box_profile(80.0, 0.1), 40.0, pos=(0, 0, -0.1))
    chooser = _providers(SceneProbe.from_geometry(world), assets, world, MotionWarpSettings())
    grab = world.find("**/cup_grab").getPos(world)
    kinds = set()
    for step in range(26):
        distance = 3.4 - 0.1 * step
        found = chooser.find_at(Point3(0.0, grab.y - distance, 0.0), 0.0)
        assert found.kind == "pick_up", (distance, found.kind, getattr(found, "reason", None))
        if abs(distance - 1.4) > 0.05:   # the asset's distance range ends at 1.4 m (the marker is off the line)
            assert bool(found) == (distance < 1.4), (distance, getattr(found, "reason", None))
        kinds.add(bool(found))
    assert kinds == {True, False}
    world.removeNode()
