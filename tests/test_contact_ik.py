"""Contact IK measured on real boxes: hands on the edge, feet never in the ground, no joint whipping.

Each case plays the interaction the providers find over a box (crates 0.5 to 1.4 m, ledges
1.0 to 2.2 m) through the real MotionWarper, with and without the IK, at 30 and 144 fps. The
oracle is the box geometry plus the mannequin's authored contacts (tests/contact_helpers.py).
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from panda3d.core import LMatrix4f, LQuaternionf, PartBundle, Point3, Vec3

from motionwarp import MotionWarper, SceneProbe, TraversalProvider, WarpAsset, WarpTarget, load_actor
from motionwarp.ik.contact_ik import ContactIK
from motionwarp.base.errors import AssetError, UsageError
from motionwarp.ik.turn_limit import TurnLimiter, limit_turn, peak_net_turn_speeds, peak_turn_speed, peak_turn_speeds
from motionwarp.ik.twobone import bend_direction, solve

from .conftest import MANNEQUIN, step
from .contact_helpers import ANKLE, CASES, LIMBS, MEASURE_SORT, ContactRun, Level, clip_peaks, easing, turn_speed
from .obstacles import box_profile, prism

BLEND = 0.15


@pytest.fixture
def assets(warp_assets):
    return list(warp_assets.values())


_RUNS = {}


def runs(base, assets, case, fps):
    """(level, run with the IK, run without) for a case, played once per session."""
    if (case, fps) not in _RUNS:
        level = Level(base.render, *case)
        _RUNS[case, fps] = (level, ContactRun(base, level, assets, fps, blend_time=BLEND),
                            ContactRun(base, level, assets, fps, ik=False))
    return _RUNS[case, fps]


IDS = [f"{'crate' if depth < 1 else 'ledge'}{height}" for height, depth, _ in CASES]


@pytest.mark.parametrize("fps", [30, 144])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_hands_and_feet_stay_on_what_they_touch(base, assets, case, fps):
    """Hands within 1 cm of where they were authored on the edge, soles never 1 cm into what they stand on."""
    level, with_ik, without = runs(base, assets, case, fps)
    assert with_ik.finished and without.finished
    assert with_ik.hand_errors(level) < 0.01
    assert with_ik.foot_depth(level) < 0.01
    # and moving the pelvis never pushes a free foot deeper into anything than the clip did
    assert with_ik.deepest_sole(level) <= max(without.deepest_sole(level), 0.01)


@pytest.mark.parametrize("case, fps", [pytest.param(case, fps, id=f"{name}-{fps}")
                                      for case, name in zip(CASES, IDS) for fps in (30, 144)])
def test_no_joint_turns_faster_while_easing(base, assets, case, fps):
    """While the IK eases in or out, no limb joint turns faster than the clip's own peak (or the
    warped clip's, when the warp's play rate already makes it faster)."""
    _, with_ik, without = runs(base, assets, case, fps)
    clip = with_ik.asset.clip
    limit = max(max(clip_peaks(base, clip).values()), without.peak_turn())
    assert with_ik.peak_turn(easing(clip, BLEND)) <= limit * 1.001


def test_without_the_ik_feet_sink_on_a_low_crate(base, assets):
    """The failure the IK exists for (issue 11): the whole body follows the root down 0.5 m."""
    level = Level(base.render, 0.5, 0.6, 1.0)
    assert ContactRun(base, level, assets, 60, ik=False).foot_depth(level) > 0.3


def test_ik_leaves_the_identity_warp_alone(base, assets):
    """Over the crate the vault was authored for, the IK has next to nothing to correct: the pose is
    the clip's, but for a foot the clip has hovering up to a centimetre as its contact begins."""
    level = Level(base.render, 1.0, 0.6, 1.0)
    with_ik, without = (ContactRun(base, level, assets, 60, ik=ik) for ik in (True, False))
    for a, b in zip(with_ik.frames, without.frames):
        for joint in a["pos"]:
            assert (a["pos"][joint] - b["pos"][joint]).length() < 0.015


def test_solve_reaches_and_keeps_the_bend_side():
    upper = LMatrix4f.translateMat(0, 0, 1)
    mid = LMatrix4f.translateMat(0, 0.05, 0.55)
    end = LMatrix4f.rotateMat(30, Vec3(0, 0, 1)) * LMatrix4f.translateMat(0, 0, 0.1)
    bend = bend_direction(upper.getRow3(3), mid.getRow3(3), end.getRow3(3))
    for target in (Point3(0.2, 0.2, 0.3), Point3(0, 0, 0.5), Point3(-0.1, -0.2, 0.6)):
        new_upper, new_mid, new_end = solve(upper, mid, end, target, bend)
        assert (Point3(new_end.getRow3(3)) - target).length() < 1e-5
        a, b = new_upper.getRow3(3), new_mid.getRow3(3)
        assert (b - a).length() == pytest.approx(0.4527, abs=1e-3)   # bones keep their lengths
        assert (target - b).length() == pytest.approx(0.4527, abs=1e-3)
        line = (target - a).normalized()
        off = (b - a) - line * (b - a).dot(line)
        assert off.dot(Vec3(0, 1, 0)) > 0           # the knee still points forward (+Y), as animated
        assert new_end.getUpper3().almostEqual(end.getUpper3(), 1e-5)  # the foot keeps its orientation


def test_out_of_reach_stops_short_of_straight():
    """A target beyond reach gets the limb pointed at it, stretched to 95% of its length, not locked."""
    upper, mid, end = LMatrix4f.translateMat(0, 0, 1), LMatrix4f.translateMat(0, 0.2, 0.6), LMatrix4f.translateMat(0, 0, 0.3)
    reach = Vec3(0, 0.2, 0.4).length() + Vec3(0, 0.2, 0.3).length()
    bend = bend_direction(upper.getRow3(3), mid.getRow3(3), end.getRow3(3))
    new_upper, _, new_end = solve(upper, mid, end, Point3(0, 0.1, -2), bend)
    limb = new_end.getRow3(3) - new_upper.getRow3(3)
    assert limb.length() == pytest.approx(0.95 * reach, abs=1e-4)
    assert limb.normalized().dot((Point3(0, 0.1, -2) - Point3(0, 0, 1)).normalized()) > 0.9999


_HPR = st.tuples(*[st.floats(-180, 180)] * 3)


def _quat(hpr):
    quat = LQuaternionf()
    quat.setHpr(Vec3(*hpr))
    return quat


def _degrees_between(a, b):
    """Angle (degrees) of the rotation from `a` to `b`, from their 3x3 matrices (atan2 of the
    relative rotation's skew part and trace, well conditioned near 0)."""
    ma, mb = (np.array(_rows(q), dtype=np.float64) for q in (a, b))
    rel = ma.T @ mb
    skew = np.array([rel[2, 1] - rel[1, 2], rel[0, 2] - rel[2, 0], rel[1, 0] - rel[0, 1]])
    return math.degrees(math.atan2(np.linalg.norm(skew) / 2.0, (np.trace(rel) - 1.0) / 2.0))


def _rows(quat):
    mat = LMatrix4f()
    quat.extractToMatrix(mat)
    return [[mat.getCell(i, j) for j in range(3)] for i in range(3)]


@settings(max_examples=200, deadline=None)
@given(_HPR, _HPR, _HPR, _HPR, st.floats(0.0, 40.0))
def test_limit_turn_never_turns_a_joint_faster(previous, wanted, anim_before, anim_now, most):
    """The joint (the IK rotation applied before its animated rotation) turns at most
    max(what the animation turns it, `most`) from last frame's pose, and reaches `wanted` when it may."""
    previous, wanted, anim_before, anim_now = map(_quat, (previous, wanted, anim_before, anim_now))
    anim_turn = _degrees_between(anim_before, anim_now)
    turn, held = limit_turn(previous, wanted, anim_turn, most)
    assert _degrees_between(previous * anim_before, turn * anim_now) <= max(anim_turn, most) + 1e-3
    if _degrees_between(previous, wanted) <= most - anim_turn - 1e-3:  # the IK's own turn fits the room
        assert not held and _degrees_between(turn, wanted) < 1e-3
    if held and most > anim_turn + 1e-3:  # moved as far as the room allows toward wanted
        assert _degrees_between(previous, turn) == pytest.approx(most - anim_turn, abs=1e-2)


def _asset_data(asset, contacts):
    data = asset.to_dict()
    data["model"] = str(MANNEQUIN)
    data["contacts"] = contacts
    return data


@pytest.mark.parametrize("contact, field, expected", [
    ({"joint": "hand_x", "start": 0.7, "end": 0.9, "touches": "surface"}, "contacts[0].joint", "expected a joint"),
    ({"joint": "hips", "start": 0.7, "end": 0.9, "touches": "surface"}, "contacts[0].joint", "grandparent"),
    ({"joint": "hand_l", "start": 0.9, "end": 0.7, "touches": "surface"}, "contacts[0].end", "after start"),
    ({"joint": "hand_l", "start": 0.7, "end": 9.0, "touches": "surface"}, "contacts[0].end", "inside the clip"),
    ({"joint": "hand_l", "start": 0.7, "end": 0.9, "touches": "wall"}, "contacts[0].touches", "'target', 'surface'"),
    ({"joint": "hand_l", "start": 0.7, "end": 0.9, "touches": "target", "phase": "nope"}, "contacts[0].phase",
     "close_edge"),
    ({"joint": "hand_l", "start": 0.7, "end": 0.9, "touches": "surface", "phase": "close_edge"},
     "contacts[0].phase", "expected no phase"),
    ({"joint": "hand_l", "start": 0.7, "end": 0.9, "touches": "surface", "offset": [0, 1]},
     "contacts[0].offset", "three finite numbers"),
    ({"joint": "hand_l", "start": 0.7, "end": 0.9, "touches": "surface", "grip": 1}, "contacts[0].grip", "unknown key"),
    ({"joint": "hand_l", "start": 0.7, "end": 0.9, "touches": "target", "phase": "close_edge", "normal": [0, 0, 0]},
     "contacts[0].normal", "not all zero"),
    ({"joint": "hand_l", "start": 0.7, "end": 0.9, "touches": "target", "phase": "close_edge", "normal": "up"},
     "contacts[0].normal", "three finite numbers"),
    ({"joint": "hand_l", "start": 0.7, "end": 0.9, "touches": "surface", "normal": [0, 0, 1]},
     "contacts[0].normal", "expected no normal"),
    ({"joint": "hand_l", "start": 0.7, "end": 0.9, "touches": "surface", "touch": [0, 0.02, -0.05]},
     "contacts[0].touch", "expected no touch"),
    ({"joint": "hand_l", "start": 0.7, "end": 0.9, "touches": "target", "phase": "close_edge", "normal": None,
      "touch": [0, 0, 0]}, "contacts[0].touch", "expected no touch"),
    ({"joint": "hand_l", "start": 0.7, "end": 0.9, "touches": "target", "phase": "close_edge", "touch": [0, 1]},
     "contacts[0].touch", "three finite numbers"),
])
def test_bad_contacts_name_the_field(warp_assets, contact, field, expected):
    with pytest.raises(AssetError) as info:
        WarpAsset.from_dict(_asset_data(warp_assets["vault"], [contact]), "vault.warp.json")
    assert field in str(info.value) and expected in str(info.value)


def test_contacts_round_trip_and_stay_optional(warp_assets, tmp_path):
    vault = warp_assets["vault"]
    assert [c.touches for c in vault.contacts].count("target") == 4  # two hands on the edge, two landing feet
    path = tmp_path / "vault.warp.json"
    vault_copy = WarpAsset.from_dict(_asset_data(vault, [c.to_dict() for c in vault.contacts]), str(path))
    vault_copy.save(path)
    assert WarpAsset.load(path).contacts == vault.contacts
    data = _asset_data(vault, [])
    del data["contacts"]
    assert WarpAsset.from_dict(data).contacts == []


def test_a_contacts_normal_is_a_unit_direction_or_null_and_round_trips(warp_assets):
    """`normal` [0, -2, 0] reads as the unit (0, -1, 0), null as None (the target point itself),
    absent as up; each is written back as read (up left out, as the shipped files have it)."""
    base = {"joint": "hand_l", "start": 0.7, "end": 0.9, "touches": "target", "phase": "close_edge"}
    given = [dict(base, normal=[0, -2, 0]), dict(base, normal=None), dict(base)]
    asset = WarpAsset.from_dict(_asset_data(warp_assets["vault"], given), "vault.warp.json")
    assert [c.normal for c in asset.contacts] == [(0.0, -1.0, 0.0), None, (0.0, 0.0, 1.0)]
    written = [c.to_dict() for c in asset.contacts]
    assert [w.get("normal", "absent") for w in written] == [[0.0, -1.0, 0.0], None, "absent"]


def test_settings_and_cleanup(base):
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    ik = ContactIK(actor, warper, taskmgr=base.taskMgr, render=base.render, sort=48, blend_time=0.3)
    try:
        assert ik.settings.ik_blend_time == 0.3
        assert base.taskMgr.getTasksNamed(ik._task_name)[0].getSort() == 48
        with pytest.raises(UsageError, match="blend-time|blend_time"):
            ContactIK(actor, warper, taskmgr=base.taskMgr, render=base.render, blend_time=-1)
        with pytest.raises(UsageError, match="toe"):
            ContactIK(actor, warper, feet=("toe",), feet_on_ground=1, taskmgr=base.taskMgr, render=base.render)
        ik.destroy()
        assert not base.taskMgr.getTasksNamed(ik._task_name)
    finally:
        ik.destroy()
        warper.destroy()
        actor.cleanup()
        actor.removeNode()


def _feet_on_ground_rig(base, root):
    """(actor, warper, ContactIK keeping its feet on the surfaces under `root` outside warps)."""
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    ik = ContactIK(actor, warper, SceneProbe.from_geometry(root), feet_on_ground=1,
                   taskmgr=base.taskMgr, render=base.render)
    return actor, warper, ik


def _foot_world(base, actor, foot):
    """Where (world) the posed skeleton has `foot` now, straight from its joint."""
    character = actor.find("**/+Character")
    net = LMatrix4f()
    character.node().findJoint(foot).getNetTransform(net)
    return base.render.getRelativePoint(character, Point3(net.getRow3(3)))


def test_feet_on_ground_follow_a_side_slope(base):
    """Standing on a 15 degree side slope (the character's origin on the ground under its centre),
    each sole settles on the slope where it is, one foot up, one down, instead of floating or sinking."""
    tan = math.tan(math.radians(15))
    root = base.render.attachNewNode("slope")
    # a wedge rising along its profile's y; turned by 90 degrees, along world -x
    prism(root, "slope", [(-5.0, -3.0), (5.0, -3.0), (5.0, 5.0 * tan), (-5.0, -5.0 * tan)], 10.0, h=90)
    surface = lambda x: -x * tan  # noqa: E731  the slope's top under world x
    actor, warper, ik = _feet_on_ground_rig(base, root)
    gaps = []

    def measure(task):
        for foot in ("foot_l", "foot_r"):
            pos = _foot_world(base, actor, foot)
            gaps.append(pos.z - ANKLE - surface(pos.x))
        return task.cont

    try:
        actor.loop("idle")
        base.taskMgr.add(measure, "test-slope-measure", sort=MEASURE_SORT)
        for _ in range(30):
            step(base, 1 / 30)
        assert max(abs(gap) for gap in gaps[-20:]) < 0.01, gaps[-2:]
    finally:
        base.taskMgr.remove("test-slope-measure")
        ik.destroy()
        warper.destroy()
        actor.cleanup()
        actor.removeNode()


def test_walking_on_a_floor_with_the_feet_kept_on_it_leaves_every_joint_as_animated(base):
    """Walking at 1.4 m/s across a floor of four tiles (coplanar triangles meeting along their
    edges) beside a low box: every joint of the character whose ContactIK keeps its feet on the
    ground is, frame by frame, where an untouched Actor playing the same clip has it, and the
    ground under the feet is found with a ray in few of those frames (the kept level patches; next
    to the box, none is kept: rays every 2 mm a foot moves there)."""
    root = base.render.attachNewNode("tiled floor")
    for index in range(4):
        prism(root, f"tile{index}", box_profile(2.0, 0.1), 3.0, pos=(0, 2.0 * index, -0.1))
    prism(root, "low box", box_profile(0.5, 0.2), 0.3, pos=(0.6, 3.0, 0))
    actor, warper, ik = _feet_on_ground_rig(base, root)
    reference = load_actor(MANNEQUIN)
    reference.reparentTo(base.render)
    reference_bundle = reference.find("**/+Character").node().getBundle(0)
    probe = ik._world.probe
    rays, cast = [0], probe.drop_face

    def counted(*args):
        rays[0] += 1
        return cast(*args)
    probe.drop_face = counted
    where, frames = [0.0], []

    def move(task):
        for walker in (actor, reference):
            walker.setPos(0, where[0], 0)
        where[0] += 1.4 / 60
        return task.cont

    def measure(task):
        reference_bundle.update()   # the IK's actor was read by its ContactIK this frame
        frames.append(max(max(abs(a - b) for a, b in zip(_net_cells(joint), _net_cells(other)))
                          for joint, other in zip(actor.getJoints(), reference.getJoints())))
        return task.cont

    try:
        actor.loop("walk")
        reference.loop("walk")
        base.taskMgr.add(move, "test-floor-move", sort=30)
        base.taskMgr.add(measure, "test-floor-measure", sort=MEASURE_SORT)
        while where[0] < 7.5:
            step(base, 1 / 60)
        assert len(frames) > 300 and max(frames) == 0.0, max(frames)
        assert rays[0] < len(frames) / 2, rays[0]   # a ray every 2 mm a foot moves: more than one a frame
    finally:
        base.taskMgr.remove("test-floor-move")
        base.taskMgr.remove("test-floor-measure")
        ik.destroy()
        warper.destroy()
        for walker in (actor, reference):
            walker.cleanup()
            walker.removeNode()
        root.removeNode()


def _net_cells(joint):
    """The 16 numbers of `joint`'s net matrix (Character space) now."""
    net = LMatrix4f()
    joint.getNetTransform(net)
    return [net.getCell(row, column) for row in range(4) for column in range(4)]


def test_the_rendered_pose_keeps_the_ik(base, assets):
    """Drawing the frame must not recompute the skeleton without the IK (Panda3D's cull updates a
    visible Character unless it was marked as updated): after a rendered frame the stored joint
    is still where the IK put it, the foot on the ground over a low crate."""
    level = Level(base.render, 0.5, 0.6, 1.0)
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    probe = SceneProbe.from_geometry(level.root)
    ik = ContactIK(actor, warper, probe, taskmgr=base.taskMgr, render=base.render)
    camera = base.camera.getTransform()
    base.camera.setPos(8, 1, 1)
    base.camera.lookAt(0, 1, 0.5)
    base.win.setActive(True)
    try:
        found = TraversalProvider(probe, assets).find_at(Point3(0, 0, 0), 0.0)
        warp = warper.play(found.asset, found.targets)
        while warp.control.getFullFframe() / warp.control.getFrameRate() < 0.6:
            step(base, 1 / 30)
        net = LMatrix4f()
        actor.find("**/+Character").node().findJoint("foot_r").getNetTransform(net)  # as drawn; no update
        sole = base.render.getRelativePoint(actor.find("**/+Character"), Point3(net.getRow3(3))).z - ANKLE
        assert abs(sole) < 0.01
    finally:
        base.win.setActive(False)
        base.camera.setTransform(camera)
        ik.destroy()
        warper.destroy()
        actor.cleanup()
        actor.removeNode()


@pytest.mark.parametrize("others", ["fade", "stay"])
def test_contacts_count_as_much_as_the_warp_clip_shows(base, assets, others):
    """While the warp fades its clip in, a contact holds its joint only as much as the clip makes
    of the pose: its effect over all clips' effects. The expected share comes from the frame
    count and the blend time (the effect ramps by dt / blend_in), with idle set to 1 - effect
    before the warper's task (as the demo's locomotion does), or left at 1."""
    fps, blend_in = 60, 0.2
    level = Level(base.render, 0.5, 0.6, 1.0)
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    actor.enableBlend(blendType=PartBundle.BT_normalized_linear)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render, blend_in=blend_in, blend_out=0.2)
    warper.driver.loop("idle")
    actor.setControlEffect("idle", 1.0)
    ik = ContactIK(actor, warper, SceneProbe.from_geometry(level.root), taskmgr=base.taskMgr, render=base.render)
    seen, goals = [], ik.goals
    ik.goals = lambda dt: seen.append(goals(dt)) or seen[-1]

    def idle(task):
        if others == "fade" and warper.current is not None:
            actor.setControlEffect("idle", 1.0 - warper.current.effect)
        return task.cont

    base.taskMgr.add(idle, "test-idle-effect", sort=40)
    try:
        found = TraversalProvider(SceneProbe.from_geometry(level.root), assets).find_at(Point3(0, 0, 0), 0.0)
        warper.play(found.asset, found.targets)
        for _ in range(int(blend_in * fps) + 3):
            step(base, 1.0 / fps)
    finally:
        base.taskMgr.remove("test-idle-effect")
        ik.destroy()
        warper.destroy()
        actor.cleanup()
        actor.removeNode()
        level.root.removeNode()
    for k, frame in enumerate(seen):   # foot_l's first contact holds from clip time 0 to 0.34 s
        effect = min(1.0, (k + 1) / fps / blend_in)
        idle_effect = 1.0 - min(1.0, k / fps / blend_in) if others == "fade" else 1.0  # set before the fade step
        assert frame["foot_l"][1] == pytest.approx(effect / (effect + idle_effect), abs=1e-5), k


def test_feet_on_ground_leave_an_airborne_character_alone(base):
    """Falling (its origin 0.6 m above the ground, less than the 1 m ray under it), the feet keep
    the clip's pose: nothing pulls them down to the ground below. Oracle: the animated foot
    heights relative to the origin, read with the IK off."""
    root = base.render.attachNewNode("flat")
    prism(root, "ground", box_profile(20.0, 0.1), 20.0, pos=(0, 0, -0.1))
    actor, warper, ik = _feet_on_ground_rig(base, root)
    actor.setZ(0.6)
    heights = []

    def measure(task):
        heights.append([_foot_world(base, actor, foot).z - actor.getZ() for foot in ("foot_l", "foot_r")])
        return task.cont

    try:
        actor.pose("idle", 0)
        base.taskMgr.add(measure, "test-airborne-measure", sort=MEASURE_SORT)
        for _ in range(20):
            step(base, 1 / 30)
        ik.destroy()
        step(base, 1 / 30)   # the clip's own pose, the IK gone
        animated = heights[-1]
        assert max(abs(a - b) for row in heights[:-1] for a, b in zip(row, animated)) < 0.01, (heights[-2], animated)
    finally:
        base.taskMgr.remove("test-airborne-measure")
        ik.destroy()
        warper.destroy()
        actor.cleanup()
        actor.removeNode()
        root.removeNode()


def test_the_measured_turn_is_the_short_way_round():
    """The turn speed the measurements count (contact_helpers.turn_speed): a quaternion and its
    negation are one rotation (no turn), and a 10 degree turn in 0.1 s is 100 degrees per second
    whichever sign each quaternion has."""
    start, turned = _quat((20, 30, 40)), _quat((20, 30, 40)) * _quat((10, 0, 0))
    flipped = LQuaternionf(-turned.getR(), -turned.getI(), -turned.getJ(), -turned.getK())
    assert turn_speed(turned, flipped, 0.1) == pytest.approx(0.0, abs=0.05)
    assert turn_speed(start, turned, 0.1) == pytest.approx(100.0, abs=0.05)
    assert turn_speed(start, flipped, 0.1) == pytest.approx(100.0, abs=0.05)


def test_the_turn_limit_is_the_clips_own_peak(base):
    """peak_turn_speed (from the clip's tables) equals the fastest turn of a limb joint relative
    to its parent measured on the posed skeleton, pose by pose at the clip's frame rate."""
    actor = load_actor(MANNEQUIN)
    try:
        joints = [joint for limb in LIMBS.items() for joint in (limb[0],) + limb[1]]
        control = actor.getAnimControl("vault")
        poses = _posed_rotations(actor, control, joints)
        measured = max(math.degrees(math.acos(max(-1.0, min(1.0, (np.trace(a[j].T @ b[j]) - 1.0) / 2.0))))
                       for a, b in zip(poses, poses[1:]) for j in joints) * control.getFrameRate()
        assert peak_turn_speed(control.getAnim(), frozenset(joints)) == pytest.approx(measured, rel=1e-3)
        own = peak_turn_speeds(control.getAnim(), frozenset(joints))
        for joint in joints:   # and each joint's own peak, which the limiter allows it 1.5 times of
            assert own[joint] == pytest.approx(_own_peaks(poses, control)[joint], rel=1e-3), joint
        limiter = TurnLimiter()
        limiter.follow_clip("vault", control.getAnim(), frozenset(joints))
        limiter.start_frame(0.01, 0.5)
        for joint in joints:
            assert limiter.most(joint) == pytest.approx(min(1.5 * own[joint], measured) * 0.01 * 0.5, rel=1e-6)
        for end, (upper, mid) in LIMBS.items():   # a limb's three limits in one call, each its joint's
            assert limiter.limits(upper, mid, end) == pytest.approx(
                tuple(min(1.5 * own[joint], measured) * 0.01 * 0.5 for joint in (upper, mid, end)), rel=1e-6), end
    finally:
        actor.cleanup()
        actor.removeNode()


def test_a_limbs_first_joint_is_limited_by_its_own_peak_in_character_space(base):
    """peak_net_turn_speeds equals the fastest turn of each limb's first joint in Character space
    measured on the posed skeleton (its net matrix), pose by pose at the clip's frame rate, and
    the limiter allows it 1.5 times that there (an upper arm whose chest turns against it in the
    clip turns slower in Character space than relative to the chest)."""
    actor = load_actor(MANNEQUIN)
    try:
        firsts = [upper for upper, _ in LIMBS.values()]
        control = actor.getAnimControl("vault")
        poses = _posed_rotations(actor, control, firsts, net=True)
        net = peak_net_turn_speeds(control.getAnim(), frozenset(firsts))
        limiter = TurnLimiter()
        limiter.follow_clip("vault", control.getAnim(), frozenset(firsts), frozenset(firsts))
        limiter.start_frame(0.01, 0.5)
        for joint in firsts:
            measured = max(math.degrees(math.acos(max(-1.0, min(1.0, (np.trace(a[joint].T @ b[joint]) - 1.0) / 2.0))))
                           for a, b in zip(poses, poses[1:])) * control.getFrameRate()
            assert net[joint] == pytest.approx(measured, rel=1e-3), joint
            assert limiter.most_net(joint) == pytest.approx(1.5 * measured * 0.01 * 0.5, rel=1e-3), joint
        assert any(net[joint] < peak_turn_speeds(control.getAnim(), frozenset(firsts))[joint] / 1.1 for joint in firsts)
    finally:
        actor.cleanup()
        actor.removeNode()


def test_a_warps_contacts_limit_every_joint_of_their_limbs_by_its_own_peak(base, warp_assets):
    """A ContactIK taking a vault limits each joint of every contact's limb (upper, mid and end) to 1.5
    times its own peak turn in the clip, at most the fastest of them, times the clip seconds a frame
    plays, and each limb's first joint in Character space to 1.5 times its peak there: measured on the
    posed skeleton (the test's own limbs), not read back from the limiter's tables."""
    asset = warp_assets["vault"]
    posed = load_actor(MANNEQUIN)
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    ik = ContactIK(actor, warper, taskmgr=base.taskMgr, render=base.render)
    try:
        control = posed.getAnimControl(asset.clip)
        limbs = {contact.joint: LIMBS[contact.joint] for contact in asset.contacts}
        joints = [joint for end, (upper, mid) in limbs.items() for joint in (upper, mid, end)]
        own = _own_peaks(_posed_rotations(posed, control, joints), control)
        net = _own_peaks(_posed_rotations(posed, control, [upper for upper, _ in limbs.values()], net=True), control)
        warper.play(asset, [WarpTarget(Point3(0, 2, 1), h=0.0), WarpTarget(Point3(0, 2.6, 1), h=0.0),
                            WarpTarget(Point3(0, 3.6, 0), h=0.0)])
        step(base, 1 / 60)
        limiter = ik._limiter
        limiter.start_frame(0.01, 0.5)
        fastest = max(own.values())
        for end, (upper, mid) in limbs.items():
            assert limiter.limits(upper, mid, end) == pytest.approx(
                tuple(min(1.5 * own[joint], fastest) * 0.005 for joint in (upper, mid, end)), rel=1e-3), end
            assert limiter.most_net(upper) == pytest.approx(1.5 * net[upper] * 0.005, rel=1e-3), upper
    finally:
        ik.destroy()
        warper.destroy()
        for each in (actor, posed):
            each.cleanup()
            each.removeNode()


def _own_peaks(poses, control):
    """{joint: its fastest turn between two of `poses` (_posed_rotations), degrees per second at the clip's rate}."""
    return {joint: max(math.degrees(math.acos(max(-1.0, min(1.0, (np.trace(a[joint].T @ b[joint]) - 1.0) / 2.0))))
                       for a, b in zip(poses, poses[1:])) * control.getFrameRate() for joint in poses[0]}


def _posed_rotations(actor, control, joints, net=False):
    """[{joint: _rotation_rows}] at every frame of the vault (`control`), posed on the skeleton."""
    character, poses = actor.find("**/+Character").node(), []
    for frame in range(control.getNumFrames()):
        actor.pose("vault", frame)
        actor.update(force=True)
        poses.append({joint: _rotation_rows(character, joint, net) for joint in joints})
    return poses


def _rotation_rows(character, joint, net=False):
    """The joint's rotation relative to its parent (3x3, float64), from its posed local matrix;
    with `net`, in Character space from its net matrix."""
    mat = LMatrix4f()
    posed = character.findJoint(joint)
    (posed.getNetTransform if net else posed.getTransform)(mat)
    rows = np.array([[mat.getCell(i, j) for j in range(3)] for i in range(3)], dtype=np.float64)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_it_reads_no_joint_with_nothing_in_contact_but_reads_this_frames_pose_to_let_a_limb_go(base):
    """With no warp and no feet kept on the ground the IK reads no joint and writes nothing (issue
    20: nothing when no limb is in contact); a limb still being let go within the turn limit is
    bent from this frame's animated pose, read that frame, and put back to it."""
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    actor.pose("vault", 10)
    ik = ContactIK(actor, None, taskmgr=base.taskMgr, render=base.render)
    reads, writes = [], []
    read, write = ik.pose.read, ik.pose.write
    ik.pose.read = lambda: reads.append(1) or read()
    ik.pose.write = lambda frozen: writes.append([name for name, _ in frozen]) or write(frozen)
    try:
        assert ik.step(1 / 60) == 0 and not reads and not writes
        ik._limiter.letting_go = {"hand_l"}
        ik.step(1 / 60)
        assert reads and writes == [["upper_arm_l", "forearm_l", "hand_l"]]
        assert not ik._limiter.letting_go     # its IK rotation was nothing: let go at once
    finally:
        ik.destroy()
        actor.cleanup()
        actor.removeNode()
