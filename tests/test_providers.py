"""Warp providers (docs/design.md 7) against analytic obstacles: edges, normals and sizes from the geometry itself."""
import dataclasses
import json
import math
import random

import pytest
from panda3d.bullet import BulletRigidBodyNode, BulletTriangleMesh, BulletTriangleMeshShape, BulletWorld
from panda3d.core import BitMask32, NodePath, Point3, Vec3, loadPrcFileData, unloadPrcFile

from motionwarp import (AssetError, Interaction, MantleProvider, MotionWarpSettings, ProviderSettings, Refusal, SceneProbe,
                        TraversalProvider, UsageError, VaultProvider, WarpAsset)
from motionwarp.scene.probe import SHAPE_TAG, SOURCE_TAG

from .warp_helpers import WarpRun
from .obstacles import box_profile, circle_profile, distance_to_edge_line, level, prism, to_local, top, walkable_run

MAX_INCLINE = 35.0  # the provider default the oracle uses for "walkable"
#: A warper that plays any targets found: for tests of what the providers measure, not of what the
#: warper then accepts from where the character stands (tests/test_providers_reach.py).
ANY_REACH = MotionWarpSettings(max_stretch=1000.0, min_stretch=0.0, max_turn_deg=180.0, max_behind_m=1.0)


@pytest.fixture(scope="module")
def assets(warp_assets):
    """The warp assets derived afresh for the tests (never the shipped files the tuner rewrites)."""
    return list(warp_assets.values())


def ground(root, size=40.0):
    return prism(root, "ground", box_profile(size, 0.1), size, pos=(0, 0, -0.1))


def facing_point(path, profile, h_char, distance):
    """A character position `distance` before the profile's front face centre, facing heading `h_char`."""
    front_y = min(y for y, _ in profile) if _from_minus_y(path, h_char) else max(y for y, _ in profile)
    face = path.getTop().getRelativePoint(path, Point3(0, front_y, 0.6))
    forward = Vec3(-math.sin(math.radians(h_char)), math.cos(math.radians(h_char)), 0)
    start = face - forward * distance
    return Point3(start.x, start.y, 0.0)


def _from_minus_y(path, h_char):
    forward = Vec3(-math.sin(math.radians(h_char)), math.cos(math.radians(h_char)), 0)
    return path.getRelativeVector(path.getTop(), forward).y > 0


def expected_edges(path, profile, h_char):
    close, far = walkable_run(profile, MAX_INCLINE)
    return (close, far) if _from_minus_y(path, h_char) else (far, close)


def expected_normal(path, h_char):
    local = Vec3(0, -1, 0) if _from_minus_y(path, h_char) else Vec3(0, 1, 0)
    return path.getTop().getRelativeVector(path, local)


def angle(a, b):
    return math.degrees(math.acos(max(-1.0, min(1.0, a.normalized().dot(b.normalized())))))


def check_measured(found, path, profile, h_char):
    """Edges within 1 cm of the true edge lines, normal within 2 degrees, height and depth within 1 cm."""
    close, far = expected_edges(path, profile, h_char)
    assert isinstance(found, Interaction), found
    assert distance_to_edge_line(path, found.close_edge, close) < 0.01
    assert distance_to_edge_line(path, found.far_edge, far) < 0.01
    assert angle(found.normal, expected_normal(path, h_char)) < 2.0
    assert found.height == pytest.approx(top(profile), abs=0.01)
    assert found.depth == pytest.approx(abs(far[0] - close[0]), abs=0.01)
    for target in found.targets:
        assert abs(to_local(path, target.pos).x) < 1.0  # on this obstacle's span, not beside it


@pytest.mark.parametrize("exact_box", [False, True], ids=["mesh", "box shape"])
@pytest.mark.parametrize("h", [0, 15, 30, 45, 180])
def test_box_edges_at_headings(assets, h, exact_box):
    root = level()
    ground(root)
    profile = box_profile(0.6, 1.0)
    crate = prism(root, "crate", profile, 2.0, pos=(1, 3, 0), h=h)
    if exact_box:
        crate.setTag(SHAPE_TAG, "box")
    start = facing_point(crate, profile, 0.0, 1.1)
    found = VaultProvider(SceneProbe.from_geometry(root), assets).find_at(start, 0.0)
    check_measured(found, crate, profile, 0.0)
    assert found.asset.clip == "vault" and found.node == crate
    assert found.distance == pytest.approx(1.1, abs=0.01)  # along the facing, to the face centre it looks at


@pytest.mark.parametrize("name, profile, width, kind, h", [
    ("log", circle_profile(0.4, 32, 0.4), 2.4, "vault", 0),
    ("log", circle_profile(0.4, 32, 0.4), 2.4, "vault", 25),
    ("wedge", [(-0.4, 0.0), (0.4, 0.0), (0.4, 1.1), (-0.4, 0.9)], 1.6, "vault", 0),
    ("wedge", [(-0.4, 0.0), (0.4, 0.0), (0.4, 1.1), (-0.4, 0.9)], 1.6, "vault", 180),
    ("chamfered block", [(-1.2, 0.0), (1.2, 0.0), (1.2, 1.6), (-1.05, 1.6), (-1.2, 1.45)], 3.0, "mantle", 0),
    ("chamfered block", [(-1.2, 0.0), (1.2, 0.0), (1.2, 1.6), (-1.05, 1.6), (-1.2, 1.45)], 3.0, "mantle", -20),
])
def test_mesh_edges(assets, name, profile, width, kind, h):
    root = level()
    ground(root)
    path = prism(root, name, profile, width, pos=(-2, 5, 0), h=h)
    # a mantle is offered up close, where the warper's stretch limit lets its short clip reach the edge
    start = facing_point(path, profile, 0.0, 0.9 if kind == "vault" else 0.5)
    found = TraversalProvider(SceneProbe.from_geometry(root), assets).find_at(start, 0.0)
    check_measured(found, path, profile, 0.0)
    assert found.kind == kind


def test_a_node_tagged_box_is_probed_as_its_bounds(assets):
    root = level()
    ground(root)
    chamfered = [(-1.2, 0.0), (1.2, 0.0), (1.2, 1.6), (-1.05, 1.6), (-1.2, 1.45)]
    block = prism(root, "block", chamfered, 3.0, pos=(0, 2, 0), h=30)
    block.setTag(SHAPE_TAG, "box")
    found = MantleProvider(SceneProbe.from_geometry(root), assets).find(_standing(root, block, chamfered))
    assert distance_to_edge_line(block, found.close_edge, (-1.2, 1.6)) < 0.01  # the bounds' edge, not the chamfer's


def test_a_box_tagged_node_is_its_own_bounds_not_its_children_s(assets):
    """A child model under a box-tagged node (a plank left behind the crate) is a body of its own: the
    crate's box must not stretch to take it in (its depth stays the crate's)."""
    root = level()
    ground(root)
    profile = box_profile(0.6, 0.9)
    crate = prism(root, "crate", profile, 2.0, pos=(0, 3, 0), h=20)
    crate.setTag(SHAPE_TAG, "box")
    prism(crate, "plank", box_profile(0.3, 0.05), 1.0, pos=(0, 1.6, 0))
    found = VaultProvider(SceneProbe.from_geometry(root), assets).find(_standing(root, crate, profile))
    assert found and found.depth == pytest.approx(0.6, abs=0.01)
    check_measured(found, crate, profile, 20.0)


def _standing(root, path, profile):
    """A character NodePath 0.5 m before the profile's front face, facing it."""
    character = root.attachNewNode("character")
    character.setPos(facing_point(path, profile, path.getH(), 0.5))
    character.setH(path.getH())
    return character


def test_scaled_model_transform_is_baked_in(assets):
    root = level()
    ground(root)
    holder = root.attachNewNode("model")
    holder.setPos(0, 4, 0)
    holder.setScale(1.5)
    log = prism(holder, "log", circle_profile(0.4, 32, 0.4), 2.0)
    found = VaultProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 2.2, 0), 0.0)
    assert isinstance(found, Interaction) and found.node == log
    assert found.height == pytest.approx(1.2, abs=0.01)  # 0.8 m log scaled 1.5 times


def refusal(assets, build, start=Point3(0, 0, 0), h=0.0, provider=TraversalProvider):
    root = level()
    build(root)
    found = provider(SceneProbe.from_geometry(root), assets).find_at(start, h)
    assert isinstance(found, Refusal)
    return found


def test_too_high_names_the_height(assets):
    found = refusal(assets, lambda root: (ground(root), prism(root, "tower", box_profile(2, 3.0), 2, pos=(0, 2, 0))))
    assert found.reason == "too high to vault (3.00 m > 1.50 m) or mantle (3.00 m > 2.30 m)"
    assert found.node.getName() == "tower" and found.numbers["height"] == pytest.approx(3.0, abs=0.01)


def test_too_deep_to_vault(assets):
    found = refusal(assets, lambda root: (ground(root), prism(root, "table", box_profile(2.0, 1.0), 2, pos=(0, 2, 0))),
                    provider=VaultProvider)
    assert found.reason == "too deep to vault (2.00 m > 1.20 m)"


def test_no_landing_ground_over_a_drop(assets):
    def build(root):
        prism(root, "roof", box_profile(6, 3.0), 6, pos=(0, 0, 0))       # standing on a roof 3 m up...
        prism(root, "parapet", box_profile(0.3, 0.9), 6, pos=(0, 2.85, 3.0))  # ...with a parapet at its edge
        ground(root)
    found = refusal(assets, build, start=Point3(0, 1.5, 3.0), provider=VaultProvider)
    assert found.reason.startswith("no landing ground") and found.node.getName() == "parapet"


def test_landing_blocked_by_a_wall_behind(assets):
    def build(root):
        ground(root)
        prism(root, "crate", box_profile(0.6, 1.0), 1.2, pos=(0, 2, 0))
        prism(root, "wall", box_profile(0.3, 2.2), 2.0, pos=(0, 2.9, 0))
    found = refusal(assets, build, provider=VaultProvider)
    assert found.reason.startswith("landing blocked by wall") and found.node.getName() == "crate"


@pytest.mark.parametrize("thickness", [0.1, 0.3])  # the second holds the height the top search starts from
def test_no_head_room_under_a_low_ceiling(assets, thickness):
    def build(root):
        ground(root)
        prism(root, "ledge", box_profile(2.0, 1.4), 3.0, pos=(0, 2, 0))
        prism(root, "ceiling", box_profile(1.8, thickness), 3.0, pos=(0, 1.9, 2.6))  # flush with the face
    found = refusal(assets, build, provider=MantleProvider)
    assert found.reason == "no head room on top (1.20 m < 1.80 m)"


def test_top_too_steep(assets):
    gable = [(-0.5, 0.0), (0.5, 0.0), (0.5, 0.5), (0.0, 1.1), (-0.5, 0.5)]  # roof slopes of 50 degrees
    found = refusal(assets, lambda root: (ground(root), prism(root, "gable", gable, 2, pos=(0, 2, 0))))
    assert found.reason.startswith("top too steep (50°")


def test_not_facing_it(assets):
    found = refusal(assets, lambda root: (ground(root), prism(root, "crate", box_profile(0.6, 1.0), 6, pos=(0, 2, 0), h=65)))
    assert found.reason == "not facing it (65.0° > 50°)"


def crate_beside(start, h, miss, width=1.0):
    """A crate 0.6 m deep, square to heading h, its face 1.2 m ahead of `start` and its right end `miss`
    metres left of the character's line (a negative miss: the line meets its face that far in)."""
    forward = Vec3(-math.sin(math.radians(h)), math.cos(math.radians(h)), 0)
    side = Vec3(forward.y, -forward.x, 0)                      # to the character's right
    corner = start + forward * 1.2 - side * miss               # the crate's near right corner
    return corner - side * (width / 2) + forward * 0.3, corner, side


@pytest.mark.parametrize("h", [0.0, -15.0, 35.0])
@pytest.mark.parametrize("miss", [-0.35, -0.2, -0.1, -0.02])
def test_a_face_met_near_its_end_is_taken_a_capsule_radius_in(assets, miss, h):
    """The line meets the crate's face `-miss` metres from its end: taken, with the targets moved along
    the face to a capsule radius (where the hands go) inside the end, or in line when that far in
    already (design 7)."""
    start = Point3(0.3, -0.2, 0)
    centre, corner, side = crate_beside(start, h, miss)
    root = level()
    ground(root)
    prism(root, "crate", box_profile(0.6, 1.0), 1.0, pos=tuple(centre), h=h)
    found = TraversalProvider(SceneProbe.from_geometry(root), assets).find_at(start, h)
    assert found and found.kind == "vault", found.reason
    inside = (corner - found.targets[0].pos).dot(side)         # how far in from the right end
    radius = ProviderSettings().capsule_radius
    if -miss >= radius:
        assert inside == pytest.approx(-miss, abs=1e-3)          # far enough in already: in line
    else:   # the end is found to a 32nd of a capsule radius, on the top's side of it
        assert radius - 1e-3 <= inside <= radius + radius / 32 + 1e-3


@pytest.mark.parametrize("h", [0.0, -15.0])
@pytest.mark.parametrize("miss", [0.05, 0.1, 0.2])
def test_a_corner_brushed_in_passing_is_passed_by(assets, h, miss):
    """The line passes `miss` metres beside a crate's corner, its body brushing the corner: it walks
    past it, nothing in front, as a wider crate beside the way (design 7)."""
    start = Point3(0, 0, 0)
    centre, _, _ = crate_beside(start, h, miss)
    found = refusal(assets, lambda root: (ground(root), prism(root, "crate", box_profile(0.6, 1.0), 1.0,
                                                              pos=tuple(centre), h=h)), start, h)
    assert found.reason == "nothing to vault or mantle in front" and found.node is None


def test_a_top_narrower_than_the_character_is_taken_at_its_middle(assets):
    start = Point3(0, 0, 0)
    centre, corner, side = crate_beside(start, 0.0, -0.1, width=0.45)   # 0.45 m wide, met 0.1 m from its end
    root = level()
    ground(root)
    prism(root, "crate", box_profile(0.6, 1.0), 0.45, pos=tuple(centre))
    found = TraversalProvider(SceneProbe.from_geometry(root), assets).find_at(start, 0.0)
    assert found and found.kind == "vault", found.reason
    assert (corner - found.targets[0].pos).dot(side) == pytest.approx(0.225, abs=0.012)


def test_a_line_into_the_side_of_a_crate_is_not_facing_it(assets):
    """The line itself meets the crate's side (walking into it at 70 degrees): a refusal naming it."""
    found = refusal(assets, lambda root: (ground(root), prism(root, "crate", box_profile(0.6, 1.0), 2.0,
                                                              pos=(0, 2.3, 0))), Point3(1.51, 0.87, 0), 20.0)
    assert found.reason == "not facing it (70.0° > 50°)" and found.node.getName() == "crate"


@pytest.mark.parametrize("x", [0.12, -0.14])
def test_a_post_touched_beside_the_line_is_measured_in_line_with_it(assets, x):
    """The sweep grazes a post 6 cm square off to the side, within the character's half width: the
    down rays in line with the face miss it, so it is measured again in line with its corner
    (issue 18): its front face, top and depth from the geometry, the vault's targets on it."""
    root = level()
    ground(root)
    prism(root, "post", box_profile(0.06, 1.0), 0.06, pos=(x, 2, 0))
    found = VaultProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0, 0), 0.0)
    assert isinstance(found, Interaction) and found.node.getName() == "post", found
    assert found.close_edge.y == pytest.approx(1.97, abs=0.01) and found.close_edge.z == pytest.approx(1.0, abs=0.01)
    assert abs(found.close_edge.x - x) <= 0.03
    assert found.height == pytest.approx(1.0, abs=0.01) and found.depth == pytest.approx(0.06, abs=0.01)


@pytest.mark.parametrize("h", [0.0, 135.0])
@pytest.mark.parametrize("near_side", [0.2, -0.26, 0.29, 0.31, -0.34])
def test_a_post_within_the_characters_half_width_is_measured_in_line_with_it(assets, near_side, h):
    """A post 6 cm square whose near side is `near_side` m off the character's line, beyond the face
    sweep's reach (`face_radius`, 0.15 m): within the character's half width (`capsule_radius`,
    0.3 m) the body would meet it, so it is measured in line with its near side (issue 18): its
    front face, top and depth from the geometry; further out it is nothing in the way."""
    settings = ProviderSettings()
    root = level()
    ground(root)
    turn = root.attachNewNode("turn")
    turn.setH(h)
    centre = near_side + math.copysign(0.03, near_side)
    prism(turn, "post", box_profile(0.06, 1.0), 0.06, pos=(centre, 2, 0))
    found = VaultProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0, 0), h)
    if abs(near_side) > settings.capsule_radius:
        assert not found and found.reason.startswith("nothing to vault") and found.node is None, found
        return
    assert isinstance(found, Interaction) and found.node.getName() == "post", found
    edge = root.getRelativePoint(turn, Point3(centre, 1.97, 1.0)) - found.close_edge   # the front face's middle
    along = root.getRelativeVector(turn, Vec3(1, 0, 0))
    assert abs(edge.dot(along)) <= 0.03 and edge.length() <= 0.03 + 0.005
    assert found.height == pytest.approx(1.0, abs=0.01) and found.depth == pytest.approx(0.06, abs=0.01)


@pytest.mark.parametrize("near_side, width", [(0.2, 1.0), (-0.25, 0.7)])
def test_a_crate_wider_than_the_character_beside_its_way_is_not_in_front(assets, near_side, width):
    """A 1 m crate `width` m wide (wider than the character, 0.6 m) whose near side is `near_side` m off
    the line, beyond the face sweep's reach: the path passes by it (to be steered clear of), it is
    not a post to take."""
    root = level()
    ground(root)
    prism(root, "crate", box_profile(0.6, 1.0), width, pos=(near_side + math.copysign(width / 2, near_side), 2, 0))
    found = TraversalProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0, 0), 0.0)
    assert not found and found.reason.startswith("nothing to vault") and found.node is None, found


@pytest.mark.parametrize("beside", [0.2, -0.25])
def test_a_wall_along_the_way_within_the_half_width_is_not_in_front(assets, beside):
    """A 2 m wall running along the way from behind the character to 6 m ahead, its face `beside` m
    off the line: the character walks along it, nothing stands in front."""
    root = level()
    ground(root)
    prism(root, "wall", box_profile(7.0, 2.0), 0.4, pos=(beside + math.copysign(0.2, beside), 2.5, 0))
    found = TraversalProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0, 0), 0.0)
    assert not found and found.reason.startswith("nothing to vault") and found.node is None, found


def test_a_thin_fence_is_vaulted(assets):
    root = level()
    ground(root)
    fence = prism(root, "fence", box_profile(0.03, 1.0), 3.0, pos=(0, 2, 0), h=10)
    found = VaultProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0.8, 0), 0.0)
    check_measured(found, fence, box_profile(0.03, 1.0), 0.0)


def test_nothing_in_front(assets):
    found = refusal(assets, ground)
    assert found.reason == "nothing to vault or mantle in front" and found.node is None


def test_a_mantle_needs_room_to_stand(assets):
    found = refusal(assets, lambda root: (ground(root), prism(root, "post", box_profile(0.65, 1.4), 2, pos=(0, 2, 0))),
                    provider=MantleProvider)
    assert found.reason.startswith("no room to stand on top (0.65 m deep")


def test_a_mantle_stands_on_a_sunk_lid_and_a_one_phase_mantle_keeps_one_target(warp_assets, warp_asset_dir):
    """Issue 26: a two-phase mantle's second target is the floor where the clip ends standing: on a crate
    whose panel lies 0.2 m below its rim (the test's geometry), the panel, 0.5 m in (where the shipped
    mantles end: their ground truth's root_end). A mantle of one phase (a file from before) gets the ledge
    top alone, as it did."""
    root = level()
    ground(root)
    prism(root, "front rim", box_profile(0.3, 1.4), 3.0, pos=(0, 0.65, 0))
    prism(root, "panel", box_profile(1.4, 1.2), 3.0, pos=(0, 1.5, 0))
    prism(root, "back rim", box_profile(0.3, 1.4), 3.0, pos=(0, 2.35, 0))
    probe = SceneProbe.from_geometry(root)
    found = MantleProvider(probe, [warp_assets["mantle"]]).find_at(Point3(0, 0, 0), 0.0)
    assert isinstance(found, Interaction), found
    edge, stand = found.targets
    assert tuple(edge.pos) == pytest.approx((0.0, 0.5, 1.4), abs=0.01)
    assert tuple(stand.pos) == pytest.approx((0.0, 1.0, 1.2), abs=0.01) and stand.h == edge.h
    data = json.loads((warp_asset_dir / "mantle.warp.json").read_text())
    data["model"] = str(warp_asset_dir / data["model"])
    data["phases"] = data["phases"][:1]
    del data["phases"][0]["defer_rise"]   # a file from before: no later phase to carry a deferred rise
    data["contacts"] = [contact for contact in data["contacts"] if contact.get("phase") != "stand_on_top"]
    found = MantleProvider(probe, [WarpAsset.from_dict(data, "mantle.warp.json")]).find_at(Point3(0, 0, 0), 0.0)
    assert isinstance(found, Interaction) and len(found.targets) == 1, found
    assert tuple(found.targets[0].pos) == pytest.approx((0.0, 0.5, 1.4), abs=0.01)


def test_a_mantle_needs_its_stand_clear_beside_too(assets):
    """A low crate lying on the ledge along the way, a little to the side of the character's line
    (inside its capsule's radius, not over the line itself): no room to stand; further to the side
    (beyond the radius), the mantle stands. The answer is the ledge's (its node)."""
    def ledge_with(crate_x):
        root = level()
        ground(root)
        prism(root, "ledge", box_profile(3.0, 1.5), 3.0, pos=(0, 2, 0))
        if crate_x is not None:   # 0.2 wide, 1.0 long from 0.1 m behind the close edge, 0.5 high
            prism(root, "small crate", box_profile(1.0, 0.5), 0.2, pos=(crate_x, 1.1, 1.5))
        return MantleProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0, 0), 0.0)
    clear = ledge_with(None)
    assert clear and clear.node.getName() == "ledge"
    blocked = ledge_with(0.3)    # its near side 0.2 m from the line
    assert not blocked and blocked.reason == "no room to stand on top (blocked by small crate)"
    assert ledge_with(0.45)      # its near side 0.35 m from the line: beyond the radius (0.3)


def test_a_mantle_needs_room_for_the_feet_it_plants_before_the_face(assets):
    """Issue 26: the shipped mantle plants its feet 0.40 and 0.44 m before the edge as its hands grab it (its
    ground truth: feet at y 0.10 and 0.06, the edge at 0.50). Before a 1.5 m ledge with a flat face they stand
    on the ground, and on a kerb 5 cm high (under the 8 cm ankle) along its foot; on a low rock's 50-degree
    slope, or inside the face where it bulges out 0.45 m over them (as real rocks do), they have no room:
    refused, saying so (real rocks: tests/test_real_contacts.py)."""
    def ledge_with(profile=box_profile(3.0, 1.5), before=None):
        root = level()
        ground(root)
        prism(root, "ledge", profile, 3.0, pos=(0, 2, 0))
        if before is not None:   # (name, its profile) in front of the ledge, under the knee
            prism(root, before[0], before[1], 3.0)
        return MantleProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0, 0), 0.0)
    assert ledge_with() and ledge_with(before=("kerb", [(-0.1, 0.0), (0.5, 0.0), (0.5, 0.05), (-0.1, 0.05)]))
    # a rock 0.3 m high rising at 50 degrees under the feet: they would stand on its slope
    wedge = ledge_with(before=("wedge", [(-0.05, 0.0), (0.2, 0.0), (0.2, 0.3)]))
    assert not wedge, "mantle offered"
    assert wedge.reason == "no room for the feet before it (a 50° slope where the mantle plants them, 0.40 m " \
                           "before the edge)", wedge.reason
    assert wedge.numbers["feet_incline_deg"] == pytest.approx(50.2, abs=0.1)
    # the face bulging out as a real rock's does (rock_largeB at x3): from 0.26 m before the edge on the ground
    # out to 0.45 m before it 0.4 m up, then back to the edge at the top
    bulge = ledge_with([(-1.76, 0.0), (1.5, 0.0), (1.5, 1.5), (-1.5, 1.5), (-1.95, 0.4)])
    assert not bulge, "mantle offered"
    assert bulge.reason.startswith("no room for the feet before it ("), bulge.reason
    assert bulge.reason.endswith("where the mantle plants them, 0.40 m before the edge)"), bulge.reason
    assert bulge.numbers["feet_before_edge"] == pytest.approx(0.40, abs=0.01)


def test_clip_choice_follows_the_traversal_ranges(assets):
    """mantle for 1.5 m, mantle_high for 2.0 m: the asset centred nearest the measured height."""
    chosen = {}
    for height in (1.2, 1.5, 1.8, 2.0, 2.2):
        root = level()
        ground(root)
        prism(root, "ledge", box_profile(3.0, height), 3.0, pos=(0, 2, 0))
        found = MantleProvider(SceneProbe.from_geometry(root), assets).find_at(Point3(0, 0, 0), 0.0)
        chosen[height] = found.asset.clip
    assert chosen == {1.2: "mantle", 1.5: "mantle", 1.8: "mantle_high", 2.0: "mantle_high", 2.2: "mantle_high"}


def test_a_provider_needs_an_asset_of_its_kind(assets):
    with pytest.raises(UsageError, match="no vault asset"):
        VaultProvider(SceneProbe.from_geometry(level()), assets[1:])


@pytest.mark.parametrize("fps", [30, 144])
@pytest.mark.parametrize("kind, profile, h, y", [
    ("vault", box_profile(0.7, 1.1), 20, 1.8),
    ("vault", circle_profile(0.45, 32, 0.45), -10, 1.6),
    ("mantle", [(-1.2, 0.0), (1.2, 0.0), (1.2, 1.6), (-1.05, 1.6), (-1.2, 1.45)], -15, 1.75),
])
def test_played_through_the_warper_ends_over_or_on_top(base, rig, assets, kind, profile, h, y, fps):
    """The real MotionWarper on the found targets: a vault ends past the far face on the ground, a mantle on top."""
    actor, warper = rig
    root = level()
    ground(root)
    path = prism(root, "obstacle", profile, 3.0, pos=(0.3, y, 0), h=h)  # about where each clip was authored
    found = TraversalProvider(SceneProbe.from_geometry(root), assets).find(actor)
    assert isinstance(found, Interaction) and found.kind == kind
    run = WarpRun(base, warper, found.asset, found.targets, fps=fps)
    assert run.finished
    final = to_local(path, actor.getPos(base.render))
    assert abs(final.x) < 1.5
    back = max(y for y, _ in profile)
    if kind == "vault":
        assert final.y > back + 0.3  # past the far face by more than the capsule's radius
        assert actor.getZ(base.render) == pytest.approx(0.0, abs=1e-3)
    else:
        assert min(y for y, _ in profile) < final.y < back
        assert actor.getZ(base.render) == pytest.approx(top(profile), abs=1e-3)


def inside(path, profile, width, point):
    """True when a world point lies inside a prism (the test's own geometry, not the probe's)."""
    local = to_local(path, point)
    if abs(local.x) >= width / 2 or local.z <= 0.0:
        return False
    count = len(profile)
    return all((profile[(i + 1) % count][0] - profile[i][0]) * (local.z - profile[i][1])
               - (profile[(i + 1) % count][1] - profile[i][1]) * (local.y - profile[i][0]) > 0 for i in range(count))


def random_scene(rng):
    """A character facing an obstacle (box, log or wedge) at a random size, heading and distance, maybe
    with a wall behind it or a slab over it; returns (root, prisms, start, h)."""
    root = level()
    ground(root)
    shape = rng.choice(["box", "box", "log", "wedge"])
    depth, height = rng.uniform(0.2, 2.6), rng.uniform(0.3, 2.8)
    profile = {"box": box_profile(depth, height),
               "log": circle_profile(height / 2, 24, height / 2),
               "wedge": [(-depth / 2, 0.0), (depth / 2, 0.0), (depth / 2, height), (-depth / 2, height * rng.uniform(0.3, 1.0))],
               }[shape]
    width = rng.uniform(0.8, 3.0)
    heading = rng.uniform(0, 360)
    obstacle = prism(root, "obstacle", profile, width, pos=(0, 0, 0), h=heading)
    prisms = [(obstacle, profile, width)]
    if rng.random() < 0.3:
        gap = rng.uniform(0.0, 1.6)
        wall = box_profile(0.3, rng.uniform(0.5, 3.0))
        back = max(y for y, _ in profile)
        prisms.append((prism(obstacle, "wall", wall, width + 1, pos=(0, back + gap + 0.15, 0)), wall, width + 1))
    if rng.random() < 0.3:
        slab = box_profile(depth + 1.0, 0.2)
        prisms.append((prism(obstacle, "slab", slab, width, pos=(0, 0, height + rng.uniform(0.3, 2.0))), slab, width))
    side = rng.choice([-1, 1])
    local_dir = Vec3(0, side, 0)
    front = (min if side > 0 else max)(y for y, _ in profile)
    aim = root.getRelativePoint(obstacle, Point3(rng.uniform(-width / 3, width / 3), front, 0))
    approach = root.getRelativeVector(obstacle, local_dir)
    start_h = math.degrees(math.atan2(-approach.x, approach.y)) + rng.uniform(-60, 60)
    forward = Vec3(-math.sin(math.radians(start_h)), math.cos(math.radians(start_h)), 0)
    start = aim - forward * rng.uniform(0.4, 2.2)
    return root, prisms, Point3(start.x, start.y, 0), start_h


def test_random_scenes_never_land_inside_geometry(assets):
    rng = random.Random(7)
    kinds = {"vault": 0, "mantle": 0, "refused": 0}
    for _ in range(300):
        root, prisms, start, h = random_scene(rng)
        found = TraversalProvider(SceneProbe.from_geometry(root), assets, warp_settings=ANY_REACH).find_at(start, h)
        forward = Vec3(-math.sin(math.radians(h)), math.cos(math.radians(h)), 0)
        if isinstance(found, Refusal):
            kinds["refused"] += 1
            assert found.reason and all(math.isfinite(v) for v in found.numbers.values())
            continue
        kinds[found.kind] += 1
        for target in found.targets:
            assert target.is_finite()
            assert (target.pos - start).dot(forward) > 0, "a target behind the character"
        assert all(math.isfinite(v) for v in (found.height, found.depth, found.distance))
        feet = found.landing if found.kind == "vault" else found.targets[0].pos
        for path, profile, width in prisms:
            assert not inside(path, profile, width, feet + Vec3(0, 0, 0.02)), "a target inside geometry"
            if found.kind == "vault":  # the standing capsule at the landing is clear too
                for z in (0.35, 0.9, 1.5):
                    for angle_deg in range(0, 360, 45):
                        a = math.radians(angle_deg)
                        probe_point = found.landing + Vec3(0.28 * math.cos(a), 0.28 * math.sin(a), z)
                        assert not inside(path, profile, width, probe_point), "landing blocked by geometry"
    assert min(kinds.values()) >= 20, kinds  # the generator exercises every outcome


@pytest.mark.parametrize("traversal, field, expected", [
    ({"kind": "hop", "height": [0, 1], "depth": [0, 1]}, "traversal.kind", "expected one of 'vault', 'mantle'"),
    ({"kind": "mantle", "height": [0, 1], "depth": [0, 1]}, "traversal.kind",
     "a mantle needs 1 phase(s) (ledge top), or up to 2 with stand on top, the asset has 3"),
    ({"kind": "vault", "height": [1.5, 0.5], "depth": [0, 1]}, "traversal.height", "0 <= low <= high"),
    ({"kind": "vault", "height": [0.5], "depth": [0, 1]}, "traversal.height", "a list of two finite numbers"),
    ({"kind": "vault", "height": [0.5, 1.5]}, "traversal.depth", "missing (required)"),
    ({"kind": "vault", "height": [0.5, 1.5], "depth": [0, 1], "speed": 2}, "traversal.speed", "unknown key"),
])
def test_traversal_key_errors_name_the_field(warp_asset_dir, traversal, field, expected):
    data = json.loads((warp_asset_dir / "vault.warp.json").read_text())
    data["model"] = str(warp_asset_dir / data["model"])
    data["traversal"] = traversal
    with pytest.raises(AssetError) as error:
        WarpAsset.from_dict(data, "vault.warp.json")
    assert error.value.field == field and expected in error.value.expected


def test_traversal_survives_saving(warp_asset_dir, tmp_path):
    path = tmp_path / "vault.warp.json"
    WarpAsset.load(warp_asset_dir / "vault.warp.json").save(path)
    saved = json.loads(path.read_text())
    assert saved["traversal"] == {"kind": "vault", "height": [0.5, 1.5], "depth": [0.0, 1.2]}


def test_settings_come_from_prc_and_keywords(assets):
    root = level()
    ground(root)
    prism(root, "crate", box_profile(0.6, 1.0), 3, pos=(0, 2, 0), h=40)
    probe = SceneProbe.from_geometry(root)
    page = loadPrcFileData("provider-settings", "motionwarp-max-approach-deg 30")
    try:
        assert VaultProvider(probe, assets).find_at(Point3(0, 0.5, 0), 0.0).reason == "not facing it (40.0° > 30°)"
        assert VaultProvider(probe, assets, max_approach_deg=45).find_at(Point3(0, 0.5, 0), 0.0)
    finally:
        unloadPrcFile(page)
    assert VaultProvider(probe, assets).settings.max_approach_deg == 50.0
    with pytest.raises(UsageError, match="setting reach: expected a number from 0.1 to 50, got -1"):
        VaultProvider(probe, assets, reach=-1)


def test_a_games_own_bullet_world_and_mask(assets):
    """A game passes its BulletWorld: only bodies whose into-mask meets the probe's mask count, and a
    body tagged motionwarp-source names the game's scene node."""
    world, root = BulletWorld(), level()
    for name, profile, width, pos, mask in (("ground", box_profile(40, 0.1), 40, (0, 0, -0.1), 1),
                                            ("crate", box_profile(0.6, 1.0), 2, (0, 2, 0), 1),
                                            ("trigger", box_profile(0.2, 2.0), 3, (0, 1.2, 0), 2)):
        shape_node = prism(root, name, profile, width, pos=pos)
        mesh = BulletTriangleMesh()
        mesh.addGeom(shape_node.node().getGeom(0), True, shape_node.getTransform(root))
        body = BulletRigidBodyNode(f"{name}-body")
        body.addShape(BulletTriangleMeshShape(mesh, dynamic=False))
        body.setIntoCollideMask(BitMask32.bit(mask))
        body.setPythonTag(SOURCE_TAG, shape_node)
        world.attachRigidBody(body)
    found = VaultProvider(SceneProbe(world, BitMask32.bit(1)), assets).find_at(Point3(0, 0.5, 0), 0.0)
    assert isinstance(found, Interaction) and found.node.getName() == "crate"
    seen = VaultProvider(SceneProbe(world, BitMask32.bit(1) | BitMask32.bit(2)), assets).find_at(Point3(0, 0.5, 0), 0.0)
    assert seen.node.getName() == "trigger"  # the same world, the trigger volume now counts


def _body(world, root, name, profile, width, pos):
    """A static Bullet body for a prism built in the test, tagged with its scene node."""
    shape_node = prism(root, name, profile, width, pos=pos)
    mesh = BulletTriangleMesh()
    mesh.addGeom(shape_node.node().getGeom(0), True, shape_node.getTransform(root))
    body = BulletRigidBodyNode(f"{name}-body")
    body.addShape(BulletTriangleMeshShape(mesh, dynamic=False))
    body.setPythonTag(SOURCE_TAG, shape_node)
    world.attachRigidBody(body)
    return body


def test_a_static_probe_keeps_the_answer_for_a_character_standing_still(assets):
    """Asked again from the same place, a provider on a static probe returns its last answer; a move,
    other assets, other settings or probe.changed() make it measure afresh."""
    world, root = BulletWorld(), level()
    _body(world, root, "ground", box_profile(40, 0.1), 40, (0, 0, -0.1))
    _body(world, root, "crate", box_profile(0.6, 1.0), 2, (0, 2, 0))
    probe = SceneProbe(world, static=True)
    provider = TraversalProvider(probe, assets)
    first = provider.find_at(Point3(0, 0.5, 0), 0.0)
    assert isinstance(first, Interaction) and first.kind == "vault"
    assert provider.find_at(Point3(0, 0.5, 0), 0.0) is first
    assert provider.find_at((0.00005, 0.5, 0), 0.0005) is first  # within SAME_POS and SAME_H
    moved = provider.find_at(Point3(0, 0.6, 0), 0.0)
    assert moved is not first and moved.distance == pytest.approx(first.distance - 0.1, abs=1e-3)
    assert provider.find_at(Point3(0, 0.6, 0), 0.0) is moved
    provider.providers[0].settings.max_approach_deg = 40.0
    assert provider.find_at(Point3(0, 0.6, 0), 0.0) is not moved
    # A wall put up behind the crate: the landing is blocked once the probe is told.
    _body(world, root, "wall", box_profile(0.3, 2.2), 2.0, (0, 2.9, 0))
    kept = provider.find_at(Point3(0, 0.6, 0), 0.0)
    assert provider.find_at(Point3(0, 0.6, 0), 0.0) is kept
    probe.changed()
    blocked = provider.find_at(Point3(0, 0.6, 0), 0.0)
    assert not blocked and blocked.reason.startswith("landing blocked by wall")


def test_a_kept_answer_follows_replaced_assets(assets):
    root = level()
    ground(root)
    prism(root, "crate", box_profile(0.6, 1.0), 2, pos=(0, 2, 0))
    given = {asset.clip: asset for asset in assets}
    provider = TraversalProvider(SceneProbe.from_geometry(root), given.values())  # a live view
    first = provider.find_at(Point3(0, 0.5, 0), 0.0)
    assert first.asset is given["vault"]
    given["vault"] = dataclasses.replace(given["vault"])  # what the tuner does on an edit
    again = provider.find_at(Point3(0, 0.5, 0), 0.0)
    assert again is not first and again.asset is given["vault"]


def test_a_games_own_world_is_measured_at_every_query(assets):
    """SceneProbe(world) does not assume the world static: a body moved between two queries from the
    same place is seen."""
    world, root = BulletWorld(), level()
    _body(world, root, "ground", box_profile(40, 0.1), 40, (0, 0, -0.1))
    crate = _body(world, root, "crate", box_profile(0.6, 1.0), 2, (0, 2, 0))
    provider = VaultProvider(SceneProbe(world), assets)
    assert provider.find_at(Point3(0, 0.5, 0), 0.0).distance == pytest.approx(1.2, abs=0.01)
    NodePath(crate).setY(0.5)  # the crate's front face now 1.7 m ahead
    assert provider.find_at(Point3(0, 0.5, 0), 0.0).distance == pytest.approx(1.7, abs=0.01)
    assert SceneProbe.from_geometry(root).static and not SceneProbe(world).static


def test_a_phase_offset_edited_in_place_moves_the_landing(assets):
    """The clip's run is kept per asset, but read again when a phase's offset changes."""
    root = level()
    ground(root)
    prism(root, "crate", box_profile(0.6, 1.0), 2, pos=(0, 2, 0))
    vault = dataclasses.replace(next(a for a in assets if a.traversal.kind == "vault"))
    vault.phases = [dataclasses.replace(phase) for phase in vault.phases]
    provider = VaultProvider(SceneProbe.from_geometry(root), [vault])
    before = provider.find_at(Point3(0, 0.5, 0), 0.0)
    x, y, z = vault.phases[2].t_offset
    vault.phases[2].t_offset = (x, y + 0.2, z)  # the landing target 0.2 m further back in the clip's frame
    after = provider.find_at(Point3(0, 0.51, 0), 0.0)
    assert after.landing.y == pytest.approx(before.landing.y - 0.2, abs=0.01)
