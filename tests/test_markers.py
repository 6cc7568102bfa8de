"""MarkerProvider (docs/design.md 7): a node tagged `motionwarp-interaction=<kind>` is a target.

The oracle is the marker node's own transform and the test's geometry: after the warp, the bone
the asset aligns (a hand, the hips) is read from the Actor's joint and compared with the marker
node's world position, at 30 and 144 fps and from several approaches.
"""
import json
import math

import pytest
from panda3d.core import NodePath, Point3, Vec3

from authoring.gltf_writer import GltfBuilder
from motionwarp import SceneProbe, UsageError, WarpAsset, WarpTarget, load_actor
from motionwarp.animation.motion import Motion
from motionwarp.scene.markers import MARKER_TAG, NO_MARKER, MarkerProvider

from .marker_rigs import BONE_UP, REACH_END, read_at_phase_ends, write_rigs
from .obstacles import box_profile, level, prism


@pytest.fixture(scope="module")
def rigs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("marker_rigs")
    return folder, write_rigs(folder)


def marker(parent, kind, pos, h=0.0, name="marker"):
    node = parent.attachNewNode(name)
    node.setPos(*pos)
    node.setH(h)
    node.setTag(MARKER_TAG, kind)
    return node


def ahead(h, distance):
    """The point `distance` ahead of heading h (degrees), from the origin."""
    return Vec3(-math.sin(math.radians(h)) * distance, math.cos(math.radians(h)) * distance, 0)


def place(base, model, pos, h):
    actor = load_actor(model)
    actor.reparentTo(base.render)
    actor.setPos(pos)
    actor.setH(h)
    return actor


def play_to_phase_ends(base, actor, asset, targets, fps):
    """{phase: (bone pos, root pos, root h)} read from the Actor when each phase ends."""
    bone = actor.exposeJoint(None, "modelRoot", "bone")
    return read_at_phase_ends(base, actor, asset, targets, fps, lambda: (
        bone.getPos(base.render), actor.getPos(base.render), actor.getH(base.render)))


def wrap(degrees):
    return (degrees + 180.0) % 360.0 - 180.0


@pytest.mark.parametrize("fps", [30, 144])
@pytest.mark.parametrize("bearing", [-35.0, 0.0, 40.0])
def test_the_hand_ends_on_a_lever_marker_from_several_approaches(base, rigs, fps, bearing):
    folder, assets = rigs
    lever = marker(base.render, "use", (1.0, 3.0, 1.2), h=200.0, name="lever")
    # The character stands 1.6 m from the lever, `bearing` degrees round it, facing it.
    start = lever.getPos() + ahead(200.0 + 180.0 + bearing, 1.6)
    start.z = 0.0
    h = 200.0 + bearing
    actor = place(base, folder / "reach.glb", start, h)
    provider = MarkerProvider(SceneProbe.from_geometry(level()), base.render, list(assets.values()))
    found = provider.find(actor)
    assert found, found.reason
    assert found.kind == "use" and found.node == lever
    assert found.height == pytest.approx(1.2, abs=1e-4) and found.distance == pytest.approx(1.6, abs=1e-4)
    seen = play_to_phase_ends(base, actor, found.asset, found.targets, fps)
    bone = seen["hand"][0]
    assert (bone - lever.getPos(base.render)).length() < 0.01


@pytest.mark.parametrize("fps", [30, 144])
@pytest.mark.parametrize("bearing, chair_h", [(0.0, 0.0), (-30.0, 30.0), (25.0, 30.0)])
def test_the_seat_ends_on_the_marker_and_stands_up_where_the_clip_goes(base, rigs, fps, bearing, chair_h):
    folder, assets = rigs
    seat = marker(base.render, "sit", (-2.0, 4.0, 1.0), h=chair_h, name="seat")
    start = seat.getPos() + ahead(chair_h + bearing, 1.3)   # in front of the seat (it faces +Y)
    start.z = 0.0
    actor = place(base, folder / "sit.glb", start, chair_h + bearing + 180.0)
    found = MarkerProvider(SceneProbe.from_geometry(level()), base.render, list(assets.values())).find(actor)
    assert found, found.reason
    seen = play_to_phase_ends(base, actor, found.asset, found.targets, fps)
    bone, _, root_h = seen["seat"]
    assert (bone - seat.getPos(base.render)).length() < 0.01
    assert abs(wrap(root_h - chair_h)) < 0.5      # seated facing the way the marker faces
    # No child named "stand": the clip's own 0.5 m walk away from the seat, on the ground, in the seat's frame.
    expected = seat.getPos(base.render) + ahead(chair_h, 0.5) - Vec3(0, 0, BONE_UP)
    assert (seen["stand"][1] - expected).length() < 0.01


@pytest.mark.parametrize("fps", [30, 144])
def test_a_child_named_like_a_phase_is_that_phase_target(base, rigs, fps):
    folder, assets = rigs
    seat = marker(base.render, "sit", (0.0, 2.0, 1.0), h=180.0, name="bench_seat")
    stand = seat.attachNewNode("stand")
    stand.setPos(0.3, 0.4, -1.0)   # a stand-up point to the side of the seat's front
    actor = place(base, folder / "sit.glb", Point3(0, 0.8, 0), 0.0)
    found = MarkerProvider(SceneProbe.from_geometry(level()), base.render, list(assets.values())).find(actor)
    assert found, found.reason
    seen = play_to_phase_ends(base, actor, found.asset, found.targets, fps)
    assert (seen["stand"][1] - stand.getPos(base.render)).length() < 0.01


def test_a_marker_in_a_gltf_file_made_elsewhere_works_with_no_code(base, rigs, tmp_path):
    """A Blender empty with the custom property `motionwarp-interaction`: glTF node extras, which
    panda3d-gltf turns into tags. Written here by the project's glTF writer, loaded by Panda3D's loader."""
    folder, assets = rigs
    builder = GltfBuilder("yard")
    wood = builder.add_material("wood", (0.5, 0.3, 0.2, 1))
    builder.add_static_mesh("post", [[0, 3.5, 0], [0.2, 3.5, 0], [0.2, 3.5, 2], [0, 3.5, 2]], [[0, -1, 0]] * 4,
                            [[0, 1, 2], [0, 2, 3]], wood)
    turn = math.radians(10.0) / 2   # arrive facing the lever, turned 10 degrees
    builder.add_empty("lever", (0.1, 2.8, 1.1), (math.cos(turn), 0, 0, math.sin(turn)),
                      extras={MARKER_TAG: "use"})
    builder.write_glb(str(tmp_path / "yard.glb"))
    yard = base.loader.loadModel(str(tmp_path / "yard.glb"), noCache=True)
    yard.reparentTo(base.render)
    lever = yard.find("**/lever")
    assert lever.getTag(MARKER_TAG) == "use"
    actor = place(base, folder / "reach.glb", Point3(0.1, 1.2, 0), 0.0)
    found = MarkerProvider(SceneProbe.from_geometry(yard), base.render, list(assets.values())).find(actor)
    assert found and found.node == lever, getattr(found, "reason", None)
    assert (found.targets[0].pos - Point3(0.1, 2.8, 1.1)).length() < 1e-5
    assert abs(wrap(found.targets[0].h - 10.0)) < 1e-3
    seen = play_to_phase_ends(base, actor, found.asset, found.targets, 60)
    assert (seen["hand"][0] - Point3(0.1, 2.8, 1.1)).length() < 0.01


def test_the_nearest_reachable_marker_is_chosen_and_a_moved_marker_is_seen(base, rigs):
    folder, assets = rigs
    far = marker(base.render, "use", (0, 2.2, 1.0), name="far")
    near = marker(base.render, "use", (0.3, 1.5, 1.0), name="near")
    actor = place(base, folder / "reach.glb", Point3(0, 0, 0), 0.0)
    provider = MarkerProvider(SceneProbe.from_geometry(level()), base.render, list(assets.values()), reach=3.0)
    assert provider.find(actor).node == near
    near.setPos(0.3, 2.6, 1.0)       # now farther than `far`: the kept answer must not be reused
    assert provider.find(actor).node == far


def scene_with_seat(base, bench=False, wall=False):
    root = level()
    root.reparentTo(base.render)   # markers are searched under render, the probe only sees the level
    seat = marker(base.render, "sit", (0, 2.0, 1.0), h=180.0, name="seat")
    if bench:   # the prop the marker is placed on: the marker becomes its child
        prop = prism(root, "bench", box_profile(0.5, 0.8), 1.2, pos=(0, 2.15, 0))
        seat.wrtReparentTo(prop)
    if wall:
        prism(root, "wall", box_profile(0.2, 2.5), 3.0, pos=(0, 1.0, 0))
    return root, seat


@pytest.mark.parametrize("case, reason, numbers", [
    ("behind", NO_MARKER, {}),
    ("too_far", "too far to use (2.70 m > 2.50 m)", {"distance": 2.7}),
    ("too_high", "too high to use (1.80 m > 1.50 m)", {"height": 1.8}),
    ("too_close", "too close to use (0.20 m < 0.30 m)", {"distance": 0.2}),
    ("wrong_side", "wrong side to sit (approach 180° off the marker's > 50°)", {"approach_deg": 180.0}),
    ("turned_seat", "wrong side to sit (approach 60° off the marker's > 50°)", {"approach_deg": 60.0}),
    ("unknown_kind", "marker dance has motionwarp-interaction='dance': expected one of sit, pick_up, use", {}),
    ("no_clip", "no pick up clip", {"distance": 1.5}),   # a pick_up marker, and no pick_up asset given
])
def test_refusals_say_why_with_the_numbers(base, rigs, case, reason, numbers):
    folder, assets = rigs
    actor_pos, actor_h = Point3(0, 0, 0), 0.0
    if case == "behind":
        marker(base.render, "use", (0, -1.5, 1.0), h=0.0)
    elif case == "too_far":
        marker(base.render, "use", (0, 2.7, 1.0))
    elif case == "too_high":
        marker(base.render, "use", (0, 1.5, 1.8))
    elif case == "too_close":
        marker(base.render, "use", (0, 0.2, 1.0))
    elif case == "wrong_side":
        marker(base.render, "sit", (0, 1.5, 1.0), h=0.0)   # the seat faces away: its back is to the character
    elif case == "turned_seat":
        marker(base.render, "sit", (0, 1.5, 1.0), h=240.0)  # facing the character turned 60 degrees
    elif case == "no_clip":
        marker(base.render, "pick_up", (0, 1.5, 1.0), h=180.0)
    else:
        marker(base.render, "dance", (0, 1.5, 1.0), h=180.0, name="dance")
    actor = place(base, folder / "reach.glb", actor_pos, actor_h)
    found = MarkerProvider(SceneProbe.from_geometry(level()), base.render, list(assets.values()),
                           reach=3.0).find(actor)
    assert not found and found.reason == reason
    for key, value in numbers.items():
        assert found.numbers[key] == pytest.approx(value, abs=1e-3)


def test_a_wall_in_the_way_is_no_room_but_the_prop_the_marker_sits_on_is(base, rigs):
    folder, assets = rigs
    actor = place(base, folder / "sit.glb", Point3(0, 0, 0), 0.0)
    root, _ = scene_with_seat(base, bench=True)
    found = MarkerProvider(SceneProbe.from_geometry(root), base.render, list(assets.values())).find(actor)
    assert found, found.reason
    base.render.find("**/seat").removeNode()
    root, _ = scene_with_seat(base, wall=True)
    found = MarkerProvider(SceneProbe.from_geometry(root), base.render, list(assets.values())).find(actor)
    assert not found and found.reason == "no room to sit (blocked by wall)"


@pytest.mark.parametrize("name, bottom, top, blocks", [
    ("curb", 0.0, 0.2, False),       # under the knee (face_low 0.35 m): the feet step over it
    ("beam", 1.3, 1.7, True),        # chest to head height, up to the capsule's top (1.8 m)
    ("sign", 1.9, 2.4, False),       # above the head
])
def test_on_the_way_to_a_marker_only_what_the_body_meets_from_the_knee_up_is_in_the_way(base, rigs, name, bottom,
                                                                                         top, blocks):
    """A bar across the way, between the character and where the clip ends its first phase (away from
    both ends, so only the sweep along the way can meet it)."""
    folder, assets = rigs
    actor = place(base, folder / "sit.glb", Point3(0, 0, 0), 0.0)
    root, _ = scene_with_seat(base)
    prism(root, name, box_profile(0.1, top - bottom), 3.0, pos=(0, 0.8, bottom))
    found = MarkerProvider(SceneProbe.from_geometry(root), base.render, list(assets.values())).find(actor)
    if blocks:
        assert not found and found.reason == f"no room to sit (blocked by {name})"
    else:
        assert found and found.kind == "sit", found.reason


@pytest.mark.parametrize("bearing, seen", [(45.0, True), (-45.0, True), (55.0, False), (-55.0, False)])
def test_a_marker_off_a_turned_heading_counts_within_the_approach_and_its_offer_faces_the_character(
        base, rigs, bearing, seen):
    """Facing 30 degrees, a lever `bearing` degrees off that heading: seen within max_approach_deg (50),
    and then the offer's point is the lever, its normal points from the lever back to the character."""
    folder, assets = rigs
    h = 30.0
    at = ahead(h + bearing, 1.6) + Vec3(0.4, -0.3, 1.2)
    lever = marker(base.render, "use", at, h=h + bearing, name="lever")
    actor = place(base, folder / "reach.glb", Point3(0.4, -0.3, 0.0), h)
    found = MarkerProvider(SceneProbe.from_geometry(level()), base.render, list(assets.values())).find(actor)
    if not seen:
        assert not found and found.reason == NO_MARKER
        return
    assert found and found.node == lever, found.reason
    assert found.distance == pytest.approx(1.6, abs=1e-4) and found.height == pytest.approx(1.2, abs=1e-4)
    assert (found.close_edge - at).length() < 1e-4 and found.depth == 0.0
    back = ahead(h + bearing + 180.0, 1.0)
    assert (found.normal - back).length() < 1e-4


def test_a_marker_provider_answers_as_the_game_s_warper_would(base, rigs):
    """With the game's warper settings (a stretch limit tighter than the default), the offer the
    default would make is refused with the warper's own reason."""
    from motionwarp import MotionWarpSettings
    folder, assets = rigs
    lever = marker(base.render, "use", (0.0, 1.6, 1.2), h=0.0, name="lever")
    actor = place(base, folder / "reach.glb", Point3(0, 0, 0), 0.0)
    probe = SceneProbe.from_geometry(level())
    assert MarkerProvider(probe, base.render, list(assets.values())).find(actor).node == lever
    tight = MotionWarpSettings(max_stretch=1.001, min_stretch=0.999)
    found = MarkerProvider(probe, base.render, list(assets.values()), warp_settings=tight).find(actor)
    assert not found and found.node == lever and "allowed 0.999 to 1.001" in found.reason, found.reason


def test_bad_arguments_are_usage_errors(base, rigs):
    _, assets = rigs
    probe = SceneProbe.from_geometry(level())
    with pytest.raises(UsageError, match="expected a NodePath"):
        MarkerProvider(probe, "render", list(assets.values()))
    with pytest.raises(UsageError, match="no marker asset"):
        MarkerProvider(probe, base.render, [])
    assert MarkerProvider(probe, NodePath("empty"), list(assets.values())).find_at(Point3(0, 0, 0), 0.0).reason == NO_MARKER


def test_only_markers_within_reach_and_the_height_above_the_feet_count(base, rigs):
    folder, assets = rigs
    marker(base.render, "use", (0, 2.2, 1.7), name="high_up")
    provider = MarkerProvider(SceneProbe.from_geometry(level()), base.render, list(assets.values()))
    assert provider.find_at(Point3(0, 0, 0.5), 0.0).reason == NO_MARKER          # 2.2 m > reach 2.0 m
    found = provider.find_at(Point3(0, 0.5, 0.5), 0.0)                             # feet 0.5 m up: 1.2 m below it
    assert found and found.height == pytest.approx(1.2, abs=1e-4) and found.distance == pytest.approx(1.7, abs=1e-4)


def test_the_asset_whose_height_range_is_centred_nearest_is_chosen(base, rigs, tmp_path):
    folder, assets = rigs
    data = assets["use"].to_dict()
    data["model"] = str(folder / "reach.glb")
    data["traversal"] = {"kind": "use", "height": [0.9, 2.0]}                     # centred on 1.45 (the other: 1.0)
    high = WarpAsset.from_dict(data, str(tmp_path / "high.warp.json"))
    provider = MarkerProvider(SceneProbe.from_geometry(level()), base.render, [assets["use"], high])
    lever = marker(base.render, "use", (0, 1.5, 1.1), name="lever")
    assert provider.find_at(Point3(0, 0, 0), 0.0).reason == NO_MARKER   # placed after the search...
    provider.refresh()                                                  # ... found once searched again
    assert provider.find_at(Point3(0, 0, 0), 0.0).asset is assets["use"]
    lever.setZ(1.4)
    assert provider.find_at(Point3(0, 0, 0), 0.0).asset is high


@pytest.mark.parametrize("fps", [30, 144])
def test_targets_on_the_authored_anchors_replay_the_clip_unwarped(base, rigs, tmp_path, fps):
    """docs/design.md 4 read backwards (warp/authored.py): a phase aimed where the clip itself meets its
    target is the identity, with a turned clip, an aligned joint and offsets in the target's frame."""
    from motionwarp.warp.authored import authored_anchor
    folder, assets = rigs
    data = assets["sit"].to_dict()
    data["model"] = str(folder / "sit.glb")
    data["phases"][0]["t_offset"] = [0.15, -0.25, 0.1]
    data["phases"][1]["t_offset"] = [-0.2, 0.3, 0.0]
    asset = WarpAsset.from_dict(data, str(tmp_path / "offset.warp.json"))
    start_pos, start_h = Point3(1.0, -2.0, 0.0), 35.0
    start = Motion(tuple(start_pos), start_h)
    targets = []
    for index in range(len(asset.phases)):
        anchor = start * authored_anchor(asset, index)
        targets.append(WarpTarget(Point3(*anchor.pos), h=anchor.h))
    actor = place(base, folder / "sit.glb", start_pos, start_h)
    seen = read_at_phase_ends(base, actor, asset, targets, fps, lambda: actor.getPos(base.render))
    # The unwarped clip, from the raw keys (marker_rigs): it walks 1 m in along the start heading by the
    # seat's end, turns round, and at the stand's end is 0.5 m back toward where it came from.
    assert (seen["seat"] - (start_pos + ahead(start_h, 1.0))).length() < 0.005
    assert (seen["stand"] - (start_pos + ahead(start_h, 0.5))).length() < 0.005


@pytest.mark.parametrize("pos, h, wall, reason", [
    ((0, 2.7, 1.0), 0.0, False, "too far to pick up (2.70 m > 2.50 m)"),
    ((0, 1.5, 1.8), 0.0, False, "too high to pick up (1.80 m > 1.50 m)"),
    ((0, 1.5, 0.2), 0.0, False, "too low to pick up (0.20 m < 0.50 m)"),
    ((0, 0.2, 1.0), 0.0, False, "too close to pick up (0.20 m < 0.30 m)"),
    ((0, 1.5, 1.0), 180.0, False, "wrong side to pick up (approach 180° off the marker's > 50°)"),
    ((0, 2.0, 1.0), 0.0, True, "no room to pick up (blocked by wall)"),
])
def test_reasons_say_pick_up_in_words(base, rigs, tmp_path, pos, h, wall, reason):
    """A player reads "pick up" (design 5.1); the kind stays `pick_up` in the asset and the answer."""
    folder, _ = rigs
    path = tmp_path / "pick_up.warp.json"
    path.write_text(json.dumps({"format": "motionwarp.asset/1", "model": str(folder / "reach.glb"), "clip": "reach",
                                "root_joint": "root", "phases": [{"name": "grab", "start": 0.0, "end": REACH_END}],
                                "traversal": {"kind": "pick_up", "height": [0.5, 1.5], "distance": [0.3, 2.5]}}))
    root = level()
    if wall:
        prism(root, "wall", box_profile(0.2, 2.5), 3.0, pos=(0, 1.0, 0))
    marker(base.render, "pick_up", pos, h=h)
    actor = place(base, folder / "reach.glb", Point3(0, 0, 0), 0.0)
    found = MarkerProvider(SceneProbe.from_geometry(root), base.render, [WarpAsset.load(path)], reach=3.0).find(actor)
    assert not found and found.reason == reason and found.kind == "pick_up"


@pytest.mark.parametrize("name", ["pick_up", "pick_up_table", "use", "sit"])
def test_a_shipped_marker_asset_is_offered_over_its_whole_distance_range(warp_asset_dir, name):
    """Straight on, the marker at the middle of the asset's height range: at both ends of its
    `traversal.distance` (the range a chooser reads as "comes closer and it is offered") the
    provider offers it, the warper taking the stretch; 5 cm past the far end it is too far. The
    pick-ups and use said 1.6 m, where the warper refused them (a 3.28x stretch at 1.5 m)."""
    asset = WarpAsset.load(warp_asset_dir / f"{name}.warp.json")
    root = level()
    marker = root.attachNewNode(name)
    marker.setTag(MARKER_TAG, asset.traversal.kind)
    marker.setH(180.0 if asset.traversal.kind == "sit" else 0.0)   # a seat faces the sitter
    provider = MarkerProvider(SceneProbe.from_geometry(root), root, [asset], reach=3.0)
    near, far = asset.traversal.distance
    for distance, offered in ((near, True), (far, True), (far + 0.05, False)):
        marker.setPos(0.0, distance, sum(asset.traversal.height) / 2)
        provider.refresh()
        found = provider.find_at(Point3(0, 0, 0), 0.0)
        assert bool(found) == offered, (distance, getattr(found, "reason", None))
        assert offered or found.too_far


def test_an_asset_edited_in_place_is_seen_once_the_character_moves(base, rigs):
    """What the clip says of the marker (the stand-up point) is read once per asset, and again after an edit
    of its phases in place; the oracle is a provider made after the edit, which has read nothing before."""
    import copy
    import dataclasses
    folder, assets = rigs
    sit = copy.copy(assets["sit"])
    sit.phases = [dataclasses.replace(phase) for phase in sit.phases]   # the module's asset stays as it was
    marker(base.render, "sit", (0.0, 2.0, 1.0), h=180.0, name="edited_seat")
    probe = SceneProbe.from_geometry(level())
    provider = MarkerProvider(probe, base.render, [sit])
    before = provider.find_at(Point3(0, 0.8, 0), 0.0)
    assert before, before.reason
    x, y, z = sit.phases[1].t_offset
    sit.phases[1].t_offset = (x, y + 0.2, z)
    after = provider.find_at(Point3(0, 0.801, 0), 0.0)
    fresh = MarkerProvider(probe, base.render, [sit]).find_at(Point3(0, 0.801, 0), 0.0)
    assert after and fresh
    assert [(t.pos, t.h) for t in after.targets] == [(t.pos, t.h) for t in fresh.targets]
    assert (after.targets[1].pos - before.targets[1].pos).length() > 0.1
