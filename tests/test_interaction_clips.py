"""The mannequin's interaction clips on markers and gaps (issue 17's done-when), from the providers'
answers to where the Actor's joints really end.

Oracles: each marker node's own world transform; the contact ground truth (mannequin.contacts.json:
the seated hips above the seat); the test's own slabs for the jumps. A joint is read where the
warper put the Actor when the phase ended, composed with that joint's pose at the phase's end frame
read from a second Actor of the same file (not from the warper's record). At 30 and 144 fps, from
approaches at several angles and distances.
"""
import json
import math

import pytest
from panda3d.core import NodePath, Point3, Vec3

from motionwarp import JumpProvider, MarkerProvider, SceneProbe, WarpAsset, load_actor
from motionwarp.scene.markers import MARKER_TAG

from .conftest import CONTACTS, INTERACTION_ASSETS, MANNEQUIN
from .marker_rigs import read_at_phase_ends
from .obstacles import box_profile, level, prism

TRUTH = json.loads(CONTACTS.read_text())["clips"]


@pytest.fixture(scope="module")
def assets(warp_asset_dir):
    return {name: WarpAsset.load(warp_asset_dir / f"{name}.warp.json") for name in INTERACTION_ASSETS}


@pytest.fixture(scope="module")
def posed(showbase):
    """A second mannequin, posed at a clip frame to read a joint relative to the model frame."""
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(NodePath("posed"))

    def joint_at(clip, frame, joint):
        actor.pose(clip, frame)
        actor.update(force=True)
        return actor.exposeJoint(None, "modelRoot", joint).getPos(actor)
    return joint_at


def ahead(h, distance):
    return Vec3(-math.sin(math.radians(h)) * distance, math.cos(math.radians(h)) * distance, 0)


def wrap(degrees):
    return (degrees + 180.0) % 360.0 - 180.0


def run_on_marker(base, assets, posed, kind_asset, marker, start, h, fps, joint, probe_root=None):
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    actor.setPos(start)
    actor.setH(h)
    probe = SceneProbe.from_geometry(probe_root if probe_root is not None else level())
    found = MarkerProvider(probe, base.render, list(assets.values()), reach=2.5).find(actor)
    assert found and found.node == marker and found.asset is assets[kind_asset], getattr(found, "reason", None)
    mats = read_at_phase_ends(base, actor, found.asset, found.targets, fps, lambda: actor.getMat(base.render))
    phase = found.asset.phases[0]
    frame = int(round(phase.end * 30))
    assert abs(frame - phase.end * 30) < 1e-6   # the phase ends on a baked frame: the joint is posed exactly there
    local = posed(found.asset.clip, frame, joint)
    return mats[phase.name].xformPoint(local), mats


# (distance to the marker, bearing of the marker off the facing, the marker's own turn off the approach line)
APPROACHES = [(0.8, 0.0, 0.0), (1.25, -25.0, 15.0), (0.6, 30.0, -20.0)]


@pytest.mark.parametrize("fps", [30, 144])
@pytest.mark.parametrize("distance, bearing, twist", APPROACHES)
@pytest.mark.parametrize("asset, height", [("pick_up", 0.14), ("use", 1.15)])
def test_the_hand_ends_on_the_item_or_the_button(base, assets, posed, fps, distance, bearing, twist, asset, height):
    h = 30.0
    at = Point3(2.0, -1.0, 0.0) + ahead(h + bearing, distance)
    at.z = height
    marker = base.render.attachNewNode(asset)
    marker.setPos(at)
    marker.setH(h + bearing + twist)
    marker.setTag(MARKER_TAG, "use" if asset == "use" else "pick_up")
    hand, _ = run_on_marker(base, assets, posed, asset, marker, Point3(2.0, -1.0, 0.0), h, fps, "hand_r")
    assert (hand - marker.getPos(base.render)).length() < 0.01


@pytest.mark.parametrize("fps", [30, 144])
@pytest.mark.parametrize("distance, bearing, twist", APPROACHES)
def test_the_hand_ends_on_an_item_on_a_table(base, assets, posed, fps, distance, bearing, twist):
    root = level()
    root.reparentTo(base.render)
    table_h = 10.0 + bearing + twist
    frame = root.attachNewNode("table_frame")
    frame.setPos(Point3(0, 0, 0) + ahead(10.0 + bearing, distance + 0.3 + 0.0))
    frame.setH(table_h)
    table = prism(frame, "table", box_profile(0.6, 0.76), 1.0)
    item = table.attachNewNode("item")            # the marker on the prop: the table may be touched
    item.setPos(0, -0.22, 0.90)
    item.setTag(MARKER_TAG, "pick_up")
    hand, _ = run_on_marker(base, assets, posed, "pick_up_table", item, Point3(0, 0, 0), 10.0 + bearing, fps, "hand_r",
                            probe_root=root)
    assert (hand - item.getPos(base.render)).length() < 0.01


@pytest.mark.parametrize("fps", [30, 144])
@pytest.mark.parametrize("distance, bearing, twist", [(1.12, 0.0, 0.0), (1.4, -20.0, 30.0), (0.9, 25.0, -15.0)])
def test_the_seat_ends_on_the_marker_facing_its_way(base, assets, posed, fps, distance, bearing, twist):
    h = -40.0
    seat = base.render.attachNewNode("seat")
    seat.setPos(Point3(0, 0, 0.45) + ahead(h + bearing, distance))
    seat.setH(h + bearing + 180.0 + twist)        # a seat faces the one who comes to sit
    seat.setTag(MARKER_TAG, "sit")
    hips, mats = run_on_marker(base, assets, posed, "sit", seat, Point3(0, 0, 0), h, fps, "hips")
    seated = [c for c in TRUTH["sit"]["contacts"] if c["joint"] == "hips"][0]
    above = Vec3(*seated["pos"]) - Vec3(*seated["surface"])      # the hips above the seat, as authored
    assert abs(above.x) < 1e-6 and abs(above.y) < 1e-6            # straight above: the same in any seat's frame
    assert (hips - above - seat.getPos(base.render)).length() < 0.01
    facing = mats["seat"].getRow3(1)
    assert abs(wrap(math.degrees(math.atan2(-facing.x, facing.y)) - seat.getH(base.render))) < 0.5


def slab(root, name, near, far, top, h):
    frame = root.attachNewNode(name + "_frame")
    frame.setH(h)
    prism(frame, name, box_profile(far - near, 1.0 + top), 8.0, pos=(0, (near + far) / 2, -1.0))


@pytest.mark.parametrize("fps", [30, 144])
@pytest.mark.parametrize("gap, rise, turn, start", [(1.5, 0.0, 0.0, 1.5), (1.5, 0.0, 20.0, 1.8), (1.2, 0.25, -15.0, 1.6),
                                                    (2.0, -0.3, 0.0, 1.5)])
def test_a_running_jump_lands_across_the_gap(base, assets, fps, gap, rise, turn, start):
    root = level()
    slab(root, "near", -8.0, start, 0.0, turn)
    slab(root, "far", start + gap, start + gap + 8.0, rise, turn)
    found = JumpProvider(SceneProbe.from_geometry(root), [assets["jump_gap"], assets["jump_onto"]]).find_at(
        Point3(0, 0, 0), 0.0)
    assert found and found.kind == "jump_gap", getattr(found, "reason", None)
    landing = found.targets[1].pos
    # On the far slab, in its own frame: past its edge by at least a capsule radius, at its height.
    c, s = math.cos(math.radians(-turn)), math.sin(math.radians(-turn))
    assert c * landing.y + s * landing.x > start + gap + 0.3 and landing.z == pytest.approx(rise, abs=1e-3)
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    seen = read_at_phase_ends(base, actor, found.asset, found.targets, fps, lambda: actor.getPos(base.render))
    assert (seen["landing"] - landing).length() < 0.01


@pytest.mark.parametrize("fps", [30, 144])
@pytest.mark.parametrize("height, turn", [(0.6, 0.0), (0.8, 25.0)])
def test_a_running_jump_lands_on_a_ledge(base, assets, fps, height, turn):
    root = level()
    slab(root, "ground", -8.0, 8.0, 0.0, 0.0)
    frame = root.attachNewNode("ledge_frame")
    frame.setH(turn)
    prism(frame, "ledge", box_profile(3.0, height), 6.0, pos=(0, 2.0 + 1.5, 0))
    found = JumpProvider(SceneProbe.from_geometry(root), [assets["jump_gap"], assets["jump_onto"]],
                         reach=2.5).find_at(Point3(0, 0, 0), 0.0)
    assert found and found.kind == "jump_onto", getattr(found, "reason", None)
    landing = found.targets[1].pos
    assert landing.z == pytest.approx(height, abs=1e-3)
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    seen = read_at_phase_ends(base, actor, found.asset, found.targets, fps, lambda: actor.getPos(base.render))
    assert (seen["landing"] - landing).length() < 0.01
