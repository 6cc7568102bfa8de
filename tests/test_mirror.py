"""Mirrored clips (issue 30; docs/design.md 3.4): the mirror table, the mirrored pose against the
source's own joints reflected (x -> -x), the root motion a driver extracts from the mirrored clip,
and mirrored warps landing the other hand where the source lands its own.

Oracles: joint positions of real Actors posed by Panda3D (the source clip's, reflected by the test),
each phase's target and the contact offsets of the source asset file, reflected by the test."""
import json
import math

import numpy as np
import pytest
from panda3d.core import LMatrix4f, NodePath, Point3, Vec3

from motionwarp import RootMotionDriver, UsageError, WarpAsset, WarpTarget, load_actor, mirror_clip
from motionwarp.animation.mirror import mirror_table, mirrored_track
from motionwarp.animation.rootmotion import character_base
from motionwarp.warp.asset import joint_parents

from .conftest import MANNEQUIN, ROOT
from .marker_rigs import read_at_phase_ends
from .warp_helpers import clip_rise, vault_targets

REFLECT = np.array([-1.0, 1.0, 1.0])
REFLECT4 = np.diag([-1.0, 1.0, 1.0, 1.0])
JOINTS = ("root", "hips", "head", "hand_l", "hand_r", "forearm_l", "forearm_r", "foot_l", "foot_r", "shin_l", "shin_r")
PARTNER = {"hand_l": "hand_r", "hand_r": "hand_l", "forearm_l": "forearm_r", "foot_l": "foot_r",
           "foot_r": "foot_l", "shin_r": "shin_l", "shin_l": "shin_r", "forearm_r": "forearm_l"}


@pytest.mark.parametrize("names, found", [
    (["root", "hand_l", "hand_r"], {"root": "root", "hand_l": "hand_r", "hand_r": "hand_l"}),
    (["spine", "upperarm.L", "upperarm.R"], {"spine": "spine", "upperarm.L": "upperarm.R", "upperarm.R": "upperarm.L"}),
    (["Hips", "LeftHand", "RightHand", "mixamorig:LeftFoot", "mixamorig:RightFoot"],
     {"Hips": "Hips", "LeftHand": "RightHand", "RightHand": "LeftHand",
      "mixamorig:LeftFoot": "mixamorig:RightFoot", "mixamorig:RightFoot": "mixamorig:LeftFoot"}),
    (["Arm_L", "Arm_R"], {"Arm_L": "Arm_R", "Arm_R": "Arm_L"}),
])
def test_the_mirror_table_is_found_from_the_names(names, found):
    assert mirror_table(names) == found


def test_a_given_table_pairs_both_ways_and_keeps_the_rest():
    assert mirror_table(["a", "b", "c"], {"a": "b"}) == {"a": "b", "b": "a", "c": "c"}


@pytest.mark.parametrize("names, given, message", [
    (["hand_l", "root"], None, r"joint 'hand_l' has no partner 'hand_r' in the skeleton; give the table"),
    (["a", "b"], {"a": "z"}, r"'z' is not a joint of the skeleton; it has: a, b"),
    (["a", "b", "c"], {"a": "b", "c": "a"}, r"joint 'a' is paired with both 'b' and 'c'"),
    (["a"], ["a"], r"expected \{joint: partner\}, got \['a'\]"),
])
def test_bad_tables_are_named(names, given, message):
    with pytest.raises(UsageError, match=message):
        mirror_table(names, given)


@pytest.fixture(scope="module")
def mirrored_actor(showbase):
    """A mannequin with `use` and `vault` mirrored, driven (so both clips are stripped, as in play)."""
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(NodePath("posed"))
    for clip in ("use", "vault"):
        mirror_clip(actor, clip)
    driver = RootMotionDriver(actor, task=False)
    exposed = {joint: actor.exposeJoint(None, "modelRoot", joint) for joint in JOINTS}

    def joints_at(clip, frame):
        actor.pose(clip, frame)
        actor.update(force=True)
        return {joint: np.array(node.getPos(actor)) for joint, node in exposed.items()}
    yield actor, driver, joints_at
    driver.destroy()
    actor.cleanup()


@pytest.mark.parametrize("clip", ["use", "vault"])
def test_every_joint_of_the_mirrored_pose_is_its_partner_reflected(mirrored_actor, clip):
    _, _, joints_at = mirrored_actor
    for frame in range(0, 70, 7):
        source, mirrored = joints_at(clip, frame), joints_at(f"{clip}.mirrored", frame)
        for joint in JOINTS:
            expected = source[PARTNER.get(joint, joint)] * REFLECT
            assert np.abs(mirrored[joint] - expected).max() < 1e-4, (frame, joint)
    # `use` reaches with the right hand: the mirror really swaps sides (the left one now reaches).
    if clip == "use":
        assert abs(joints_at(clip, 33)["hand_r"][2] - joints_at(clip, 33)["hand_l"][2]) > 0.2


@pytest.mark.parametrize("clip", ["use", "vault"])
def test_the_driver_reads_the_mirrored_root_motion(mirrored_actor, clip):
    """The track a driver extracts from the mirrored clip is the source's reflected: x and heading negated."""
    _, driver, _ = mirrored_actor
    source, mirrored = driver.tracks[clip], driver.tracks[f"{clip}.mirrored"]
    assert np.abs(mirrored.positions - source.positions * REFLECT).max() < 1e-5
    assert np.abs(mirrored.headings + source.headings).max() < 1e-4
    computed = mirrored_track(source, "x")
    assert np.abs(computed.positions - mirrored.positions).max() < 1e-5


def test_a_mirrored_asset_mirrors_what_it_says(warp_asset_dir):
    source_file = json.loads((warp_asset_dir / "use.warp.json").read_text())
    mirrored = WarpAsset.load(warp_asset_dir / "use.warp.json").mirrored()
    assert mirrored.clip == "use.mirrored"
    assert [phase.align_joint for phase in mirrored.phases] == ["hand_l"]
    for contact, written in zip(mirrored.contacts, source_file["contacts"]):
        assert contact.joint == PARTNER.get(written["joint"], written["joint"])
        assert list(contact.offset) == pytest.approx([-written["offset"][0], *written["offset"][1:]])
    with pytest.raises(UsageError, match=r"WarpAsset.save: 'use.mirrored' is mirrored from .*use.warp.json; "
                                         r"save the source asset and mirror it again"):
        mirrored.save()
    with pytest.raises(UsageError, match="WarpAsset.rebind"):
        mirrored.rebind(source_file)


def play_and_read(base, asset, targets, joint, fps, joints_at, start_h=0.0):
    """The joint's world position at each phase's end: the Actor's transform when the phase ends (the
    warper's), composed with the joint at the phase's end frame on the posed Actor."""
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    actor.setH(start_h)
    if asset.mirror is not None:
        mirror_clip(actor, asset.clip[:-len(".mirrored")], asset.mirror)
    mats = read_at_phase_ends(base, actor, asset, targets, fps, lambda: actor.getMat(base.render))
    try:
        return {phase.name: mats[phase.name].xformPoint(Point3(*joints_at(asset.clip, phase.end * 30)[joint]))
                for phase in asset.phases if phase.name in mats}
    finally:
        actor.cleanup()
        actor.removeNode()


@pytest.mark.parametrize("fps", [30, 144])
@pytest.mark.parametrize("height, depth, distance, h", [(1.0, 0.6, 1.0, 0.0), (1.25, 0.4, 1.3, 20.0)])
def test_the_mirrored_vault_lands_its_left_palm_as_the_vault_lands_its_right(base, warp_asset_dir, mirrored_actor,
                                                                           fps, height, depth, distance, h):
    _, _, joints_at = mirrored_actor
    vault = WarpAsset.load(warp_asset_dir / "vault.warp.json")
    written = json.loads((warp_asset_dir / "vault.warp.json").read_text())["contacts"]
    right = next(c for c in written if c["joint"] == "hand_r" and c["touches"] == "target")
    targets = vault_targets(height, depth, distance, h)
    edge = targets[0].pos
    c, s = math.cos(math.radians(h)), math.sin(math.radians(h))

    # the close edge defers its rise (design 4): the warp alone leaves the palm as far below a higher edge
    # as the root ends below it, the clip's own rise from the ground short of its goal
    close = vault.phases[0]
    kept_low = max(0.0, edge.z + close.t_offset[2] - clip_rise(vault, close)) if close.defer_rise else 0.0

    def on_edge(offset):
        return edge + Vec3(c * offset[0] - s * offset[1], s * offset[0] + c * offset[1], offset[2] - kept_low)
    errors = {}
    for asset, joint, offset in ((vault, "hand_r", right["offset"]),
                                 (vault.mirrored(), "hand_l", [-right["offset"][0], *right["offset"][1:]])):
        palm = play_and_read(base, asset, targets, joint, fps, joints_at, h)["close_edge"]
        errors[joint] = (palm - on_edge(offset)).length()
    assert errors["hand_l"] < 0.015 and errors["hand_r"] < 0.015, errors
    assert abs(errors["hand_l"] - errors["hand_r"]) < 1e-3, errors


@pytest.mark.parametrize("bearing, twist", [(0.0, 0.0), (-20.0, 15.0)])
def test_the_mirrored_use_presses_with_the_left_hand(base, warp_asset_dir, mirrored_actor, bearing, twist):
    """`use` aligns hand_r on the button; mirrored, hand_l lands on it."""
    _, _, joints_at = mirrored_actor
    use = WarpAsset.load(warp_asset_dir / "use.warp.json")
    c, s = math.cos(math.radians(bearing)), math.sin(math.radians(bearing))
    button = Point3(-s * 0.9, c * 0.9, 1.15)
    for asset, joint in ((use, "hand_r"), (use.mirrored(), "hand_l")):
        hand = play_and_read(base, asset, [WarpTarget(button, h=bearing + twist)], joint, 60, joints_at)["hand"]
        assert (hand - button).length() < 0.01, (joint, (hand - button).length())


def knight_path():
    """The KayKit Knight in ../shared (not ours, CC0), or None when this clone has no shared folder."""
    path = ROOT.parent / "shared" / "rigs" / "Knight.glb"
    return path if path.exists() else None


def as_array(mat):
    return np.array([list(mat.getRow(r)) for r in range(4)])


@pytest.mark.skipif(knight_path() is None, reason="../shared/rigs/Knight.glb is not here")
def test_the_knights_chop_mirrors_its_skinning(showbase):
    """The Knight (Blender's joint axes, '.l'/'.r' names): what the skin sees of each joint is its
    partner's, reflected (M S_P M), every 4th frame of an asymmetric clip."""
    actor = load_actor(knight_path())
    try:
        clip = "1H_Melee_Attack_Chop"
        name = mirror_clip(actor, clip)
        table = mirror_table([joint.getName() for joint in actor.getJoints()])
        rest, base = rest_matrices(actor), character_base(actor)
        for frame in range(0, actor.getAnimControl(clip).getNumFrames(), 4):
            source, mirrored = skin_matrices(actor, clip, frame, rest, base), skin_matrices(actor, name, frame, rest, base)
            for joint, partner in table.items():
                assert np.abs(mirrored[joint] - REFLECT4 @ source[partner] @ REFLECT4).max() < 1e-4, (frame, joint)
        assert np.abs(source["hand.r"] - np.eye(4)).max() > 0.1   # the chop really moves the hand from rest
    finally:
        actor.cleanup()


def rest_matrices(actor):
    """Per joint, its rest pose in the skeleton's space, composed from the file's default values."""
    bundle, rest = actor.getPartBundle("modelRoot"), {}
    for joint, parent in joint_parents(bundle).items():   # parents first
        rest[joint] = as_array(bundle.findChild(joint).getDefaultValue()) @ (rest[parent] if parent else np.eye(4))
    return rest


def skin_matrices(actor, which, frame, rest, base):
    """Per joint, what the skin sees: the matrix from rest to the pose at `frame`, in the actor's space."""
    actor.pose(which, frame)
    actor.update(force=True)
    net, found = LMatrix4f(), {}
    for joint in actor.getJoints():
        joint.getNetTransform(net)
        name = joint.getName()
        found[name] = np.linalg.inv(base) @ np.linalg.inv(rest[name]) @ as_array(net) @ base
    return found


def test_a_rig_whose_left_axes_differ_mirrors_its_skinning(showbase, tmp_path):
    """arm_l's rest is turned 90 degrees about its bone (X) where arm_r's is not: their positions
    mirror, their axes do not. The mirrored skinning of arm_l must still be arm_r's reflected, which
    only the rest correction K_J = R_J M R_P^-1 gives (with K = M the skin of arm_l turns wrongly)."""
    from authoring.gltf_writer import GltfBuilder
    builder = GltfBuilder()
    root = builder.add_joint("root")
    half = math.sqrt(0.5)
    arm_l = builder.add_joint("arm_l", parent=root, translation=(-0.3, 0, 1), rotation=(half, half, 0, 0))
    arm_r = builder.add_joint("arm_r", parent=root, translation=(0.3, 0, 1))
    builder.add_joint("hand_l", parent=arm_l, translation=(-0.3, 0, 0))
    builder.add_joint("hand_r", parent=arm_r, translation=(0.3, 0, 0))
    positions = np.array([[0, 0, 0], [0, 0, 1], [0.1, 0, 1], [0.1, 0, 0]], dtype=float)
    builder.add_skinned_mesh("quad", positions, np.tile([0.0, -1.0, 0.0], (4, 1)), np.array([[0, 0, 0, 0]] * 4),
                             np.array([[1.0, 0, 0, 0]] * 4), np.array([[0, 1, 2], [0, 2, 3]]),
                             builder.add_material("white", (1, 1, 1, 1)))
    turns = [(math.cos(math.radians(a) / 2), 0, math.sin(math.radians(a) / 2) * 0.6,
              math.sin(math.radians(a) / 2) * 0.8) for a in (0, 40, 75)]
    builder.add_animation("wave", [(arm_r, "rotation", [0.0, 0.5, 1.0], [list(q) for q in turns], "LINEAR"),
                                   (root, "translation", [0.0, 1.0], [[0, 0, 0], [0.2, 1.0, 0]], "LINEAR")])
    path = tmp_path / "arms.glb"
    builder.write_glb(str(path))
    actor = load_actor(path)
    try:
        mirrored = mirror_clip(actor, "wave")
        rest, base = rest_matrices(actor), character_base(actor)
        table = {"root": "root", "arm_l": "arm_r", "arm_r": "arm_l", "hand_l": "hand_r", "hand_r": "hand_l"}
        for frame in (0, 10, 20, 30):
            source = skin_matrices(actor, "wave", frame, rest, base)
            seen = skin_matrices(actor, mirrored, frame, rest, base)
            for joint, partner in table.items():
                assert np.abs(seen[joint] - REFLECT4 @ source[partner] @ REFLECT4).max() < 1e-4, (frame, joint)
        assert np.abs(source["arm_r"] - np.eye(4)).max() > 0.5   # the wave really turned the right arm
    finally:
        actor.cleanup()


@pytest.mark.parametrize("actor", ["hero", None])
def test_mirroring_what_is_not_an_actor_is_a_usage_error(actor):
    """docs/inputs.md, mirror_clip: named, never an AttributeError."""
    with pytest.raises(UsageError, match=r"mirror_clip: expected an Actor that is not removed, got "):
        mirror_clip(actor, "use")


def test_mirroring_a_removed_actor_is_a_usage_error(showbase):
    actor = load_actor(MANNEQUIN)
    actor.cleanup()
    actor.removeNode()
    with pytest.raises(UsageError, match=r"mirror_clip: expected an Actor that is not removed, got Actor"):
        mirror_clip(actor, "use")



@pytest.mark.parametrize("provider", ["VaultProvider", "TraversalProvider"])
@pytest.mark.parametrize("crate_x, mirrored", [(-0.25, True), (0.25, False), (-0.03, False)])
def test_a_crate_whose_right_end_is_near_gets_the_mirrored_vault(base, warp_asset_dir, mirrored_actor, crate_x, mirrored,
                                                                 provider):
    """A 1.2 m wide crate 1 m ahead, shifted so its right (or left) end is 0.35 m from the character's
    line: with `mirrored=True` the provider offers the twin leading with the left hand when the right end
    is the nearer, and that vault's left palm ends within 1.5 cm of the edge at its (reflected) offset.
    Shifted 3 cm (ends 0.57 and 0.63 m away, less than END_MARGIN apart) it is met in its middle: the
    source plays (the demo's centred crates were mirrored by a few cm of the walk's drift without it)."""
    import motionwarp

    from .obstacles import box_profile, level, prism
    _, _, joints_at = mirrored_actor
    vault = WarpAsset.load(warp_asset_dir / "vault.warp.json")
    root = level()
    prism(root, "ground", box_profile(40.0, 0.1), 40.0, pos=(0, 0, -0.1))
    height, depth, width = 1.0, 0.6, 1.2
    prism(root, "crate", box_profile(depth, height), width, pos=(crate_x, 1.0, 0))
    probe = motionwarp.SceneProbe.from_geometry(root)
    found = getattr(motionwarp, provider)(probe, [vault], mirrored=True).find_at(Point3(0, 0, 0), 0.0)
    assert found, found
    assert (found.asset.mirror is not None) == mirrored
    assert found.asset.clip == ("vault.mirrored" if mirrored else "vault")
    written = json.loads((warp_asset_dir / "vault.warp.json").read_text())["contacts"]
    right = next(c for c in written if c["joint"] == "hand_r" and c["touches"] == "target")
    joint, offset = ("hand_l", [-right["offset"][0], *right["offset"][1:]]) if mirrored else ("hand_r", right["offset"])
    palm = play_and_read(base, found.asset, found.targets, joint, 60, joints_at)["close_edge"]
    edge = Point3(0, 1.0 - depth / 2, height)   # the test's own crate: its front top edge, in the line
    expected = edge + Vec3(*offset)
    assert (palm - expected).length() < 0.015, (palm, expected)


@pytest.mark.parametrize("provider", ["VaultProvider", "TraversalProvider"])
def test_a_provider_asked_again_where_it_stands_answers_with_its_mirroring_as_set_now(base, warp_asset_dir, provider):
    """A crate whose right end is the nearer (as above): asked from the same spot, the kept answer is not
    reused once the game turns mirroring on (or, for a TraversalProvider, turns it on for its vaults)."""
    import motionwarp

    from .obstacles import box_profile, level, prism
    vault = WarpAsset.load(warp_asset_dir / "vault.warp.json")
    root = level()
    prism(root, "ground", box_profile(40.0, 0.1), 40.0, pos=(0, 0, -0.1))
    prism(root, "crate", box_profile(0.6, 1.0), 1.2, pos=(-0.25, 1.0, 0))
    chosen = getattr(motionwarp, provider)(motionwarp.SceneProbe.from_geometry(root), [vault])
    assert chosen.find_at(Point3(0, 0, 0), 0.0).asset.mirror is None
    for kind in getattr(chosen, "providers", [chosen]):
        kind.mirrored = True
    assert chosen.find_at(Point3(0, 0, 0), 0.0).asset.clip == "vault.mirrored"
