"""Behaviour the mutation run of the rebuilt core (placement, refusal, assetdata, asset, warpmath,
target) showed untested. Each oracle is the contract (docs/design.md 4 and 5) or the raw data a
test writes itself: a saved file holds what the user wrote, a range [low, high] includes its ends,
a blended step absorbs all the error left on an axis whose weight is already 1, the refusal walk
and the goals are worked out in numpy from the raw glTF keys (reference_warp). The last tests hold
the warper (tests only: its code is another helper's) to a phase end on an exact frame and a
blend-out at a base rate other than 1.
"""
import copy
import json
import math

import numpy as np
import pytest
from panda3d.core import ClockObject, LQuaternion, Point3

from motionwarp import AssetError, MotionWarper, MotionWarpSettings, WarpAsset, WarpTarget, load_actor
from motionwarp.warp.assetdata import Traversal, parse_asset
from motionwarp.animation.motion import Motion
from motionwarp.warp.placement import PhasePlan, goal_pose, place_blended
from motionwarp.warp.refusal import MAX_BASE_RATE, refusal
from motionwarp.warp.warpmath import slerp

from . import rig_samples
from .conftest import step
from .gltf_samples import static_mesh, two_bone_quad
from .reference_warp import (RawClip, ReferenceWarp, hpr_matrix, matrix_quat, quat_matrix, rot_z, rotation_angle,
                             slerp_matrix)
from .test_interruptions import Recorder
from .test_placement import STILL
from .test_refusal import DRIVEN, START_H, START_POS, anchor
from .test_warp_blend import BLEND, make_rig  # noqa: F401  (make_rig is a fixture)
from .test_warp_reference import (POS_TOL_M, TURN_KEYS, TURN_PHASES, TURN_SHIFTS, TURN_TURNS, natural_goals,
                                  ref_phases, targets_near_natural, write_asset)
from .warp_helpers import vault_targets

#: Every optional key with a value other than its default (docs/design.md 5.1).
FULL = {"format": "motionwarp.asset/1", "model": "hop.glb", "clip": "hop", "root_joint": "root",
        "root_mode": "projected",
        "traversal": {"kind": "vault", "height": [0.5, 1.5], "depth": [0.0, 1.2]},
        "phases": [{"name": "close", "start": 0.0, "end": 0.3, "t_offset": [0.0, -0.1, 0.2],
                    "r_offset": [10.0, 0.0, 0.0], "min_rate": 0.5, "max_rate": 1.5,
                    "warp_translation": False, "warp_rotation": False, "axes": "xz", "align_joint": "bone"},
                   {"name": "far", "start": 0.3, "end": 0.6, "t_offset": [0.0, 0.0, 0.0],
                    "r_offset": [0.0, 0.0, 0.0], "min_rate": 1.0, "max_rate": 1.0},
                   {"name": "landing", "start": 0.6, "end": 1.0, "t_offset": [0.0, 0.0, 0.0],
                    "r_offset": [0.0, 0.0, 0.0], "min_rate": 1.0, "max_rate": 1.0}]}


def test_an_asset_written_back_holds_exactly_what_its_file_said():
    """Non-default optional keys come back as written; defaults the file left out stay out."""
    assert parse_asset(copy.deepcopy(FULL), "full.warp.json").to_dict() == FULL


def test_an_asset_with_every_default_writes_no_optional_key():
    data = copy.deepcopy(FULL)
    del data["root_mode"], data["traversal"]
    data["phases"][0] = dict(data["phases"][1], name="close", start=0.0, end=0.3)
    written = parse_asset(copy.deepcopy(data), "plain.warp.json").to_dict()
    assert written == data
    assert "root_mode" not in written and all("axes" not in phase for phase in written["phases"])


@pytest.mark.parametrize("height, depth, fits", [
    (0.5, 0.0, True), (1.5, 1.2, True), (0.5, 1.2, True), (1.5, 0.0, True),   # the ends are inside
    (0.4999, 0.6, False), (1.5001, 0.6, False), (1.0, -0.0001, False), (1.0, 1.2001, False)])
def test_a_traversal_range_includes_both_ends(height, depth, fits):
    assert Traversal("vault", (0.5, 1.5), (0.0, 1.2)).fits(height, depth) is fits


def test_a_traversal_range_may_be_a_single_value():
    """docs/design.md 5.1: [lo, hi] with 0 <= lo <= hi, both ends included, so [1, 1] is one exact height."""
    data = copy.deepcopy(FULL)
    data["traversal"]["height"] = [1.0, 1.0]
    traversal = parse_asset(data, "exact.warp.json").traversal
    assert traversal.fits(1.0, 0.6) and not traversal.fits(1.0001, 0.6)


@pytest.mark.parametrize("traversal, phases, message", [
    ({"kind": "hop", "height": [0, 1], "depth": [0, 1]}, 3,
     "traversal.kind: expected one of 'vault', 'mantle', 'jump_over', 'jump_onto', got 'hop'"),
    ({"kind": "vault", "height": [0, 1], "depth": [0, 1]}, 1,
     "traversal.kind: a vault needs 3 phase(s) (close edge, far edge, landing), the asset has 1"),
])
def test_a_bad_traversal_kind_says_what_it_got_and_what_it_needs(traversal, phases, message):
    data = copy.deepcopy(FULL)
    data["traversal"], data["phases"] = traversal, data["phases"][:phases]
    with pytest.raises(AssetError) as caught:
        parse_asset(data, "bad.warp.json")
    assert str(caught.value) == f"bad.warp.json: {message}"


@pytest.fixture(scope="module")
def stops_sideways(tmp_path_factory):
    """An asset over a 1 s clip going 0.5 m sideways (x) in its first half only, 2 m forward (y) throughout."""
    folder = tmp_path_factory.mktemp("stops_sideways")
    keys = [("root", "translation", [0.0, 0.5, 1.0], [[0, 0, 0], [0.5, 1, 0], [0.5, 2, 0]])]
    glb = two_bone_quad(folder / "side.glb", {"side": keys})
    return write_asset(folder, glb, "side", [{"name": "all", "start": 0.0, "end": 1.0, "warp_rotation": False}])


def test_a_blended_step_takes_all_the_error_left_on_an_axis_whose_weight_is_already_one(base, stops_sideways):
    """docs/design.md 4, blends: once w_x is 1 (the clip is done moving sideways) no weight is left to
    spread the sideways error over, so a blended step puts x where the goal says at once: the clip has no
    x motion left, so x lands on T_x; the other clip's sideways push does not stay in the path."""
    asset = stops_sideways
    phase, fps = asset.phases[0], asset.track.fps
    goal_x = 0.62   # 12 cm more sideways than the clip's own 0.5 m
    origin, target = (Point3(0, 0, 0), LQuaternion()), (Point3(goal_x, 2.1, 0.0), LQuaternion())
    plan = PhasePlan(phase, origin, goal_pose(phase, target, 1.0), 1.0, STILL)
    pose = (Point3(0.58, 1.3, 0.0), LQuaternion())   # off the path, as an earlier blend left it
    pos, _ = place_blended(plan, phase, asset.track, pose, 0.6 * fps, 0.7 * fps, Motion((0.05, 0.02, 0.0), 0.0), 0.5)
    assert pos[0] == pytest.approx(goal_x, abs=1e-5)


@pytest.fixture(scope="module")
def turn_unwarped_first(tmp_path_factory):
    """{"translation" or "rotation": (raw clip, its phases for the reference, asset)}: the reference tests'
    turning clip as an asset without offsets whose first phase does not warp that."""
    folder = tmp_path_factory.mktemp("unwarped_first")
    glb = two_bone_quad(folder / "turn.glb", {"turn": TURN_KEYS})
    clip, variants = RawClip(glb, "turn"), {}
    for kind in ("translation", "rotation"):
        phases = [dict(p, t_offset=[0.0, 0.0, 0.0], r_offset=[0.0, 0.0, 0.0]) for p in TURN_PHASES]
        phases[0][f"warp_{kind}"] = False
        (folder / kind).mkdir()
        variants[kind] = clip, ref_phases(phases), write_asset(folder / kind, glb, "turn", phases)
    return variants


def refused(asset, goals, scale=1.0, driven=DRIVEN, rate=1.0):
    """refusal() for (position, rotation) goals from test_refusal's start pose."""
    start = (Point3(*START_POS), LQuaternion(*matrix_quat(hpr_matrix(START_H))))
    return refusal(asset, driven, [WarpTarget(Point3(*pos)) for pos, _ in goals], [anchor(pos, rot) for pos, rot in goals],
                   rate, start, scale, MotionWarpSettings.from_prc())


def test_a_scaled_character_s_next_phase_starts_where_the_scaled_clip_takes_it(base, turn_unwarped_first):
    """docs/design.md 4, refusals: the walk moves a phase that does not warp translation by the clip's own
    motion times the actor's scale, so the second phase's ground distance, in the refusal, is measured
    from there. In numpy from the raw keys: phase 1 ends where the clip takes it (scaled), the lead-in
    to phase 2 follows, and a phase 2 goal 3.4 clip lengths away is refused with those numbers."""
    clip, phases, asset = turn_unwarped_first["translation"]
    scale, start_rot = 1.5, hpr_matrix(START_H)
    (end1, rot1), _ = natural_goals(clip, phases, START_POS, start_rot, scale)
    f1_end, f2_start, f2_end = (t * clip.fps for t in (phases[0].end, phases[1].start, phases[1].end))
    lead, lead_turn = clip.relative(f1_end, f2_start)
    start2, rot2 = end1 + rot1 @ lead * scale, rot1 @ lead_turn
    ground = (rot2 @ clip.displacement(f2_start, f2_end) * scale)[:2]
    clip_m = np.linalg.norm(ground)
    goal2 = start2 + np.array([*(ground * 3.4), 0.0])
    goal2_rot = rot2 @ clip.relative(f2_start, f2_end)[1]
    why = refused(asset, [(end1, rot1), (goal2, goal2_rot)], scale)
    assert why == (f"phase 'second' needs {clip_m * 3.4:.2f} m over the ground where the clip moves {clip_m:.2f} m "
                   f"(ratio 3.40, allowed 0.1 to 3)")


def test_a_phase_that_keeps_the_clip_s_turn_hands_the_next_phase_the_clip_s_heading(base, turn_unwarped_first):
    """Phase 1 does not warp rotation: its target's rotation (turned 100 degrees here) is not where it ends,
    so phase 2, whose goal is where the clip's own turn takes it (numpy, raw keys), needs no turn."""
    clip, phases, asset = turn_unwarped_first["rotation"]
    (end1, rot1), (end2, rot2) = natural_goals(clip, phases, START_POS, hpr_matrix(START_H))
    assert refused(asset, [(end1, rot_z(100.0) @ rot1), (end2, rot2)]) is None
    assert refused(asset, [(end1, rot1), (end2, rot_z(80.0) @ rot2)]) == "phase 'second' needs a 80 degree turn (allowed 75)"


def test_an_actor_with_no_driven_clips_says_so(base, turn_unwarped_first):
    clip, phases, asset = turn_unwarped_first["rotation"]
    goals = natural_goals(clip, phases, START_POS, hpr_matrix(START_H))
    assert refused(asset, goals, driven=("root", "bone", {})) == "the actor has no clip 'turn'; its driven clips: none"


def test_the_largest_base_rate_is_accepted(base, turn_unwarped_first):
    """docs/design.md 4: the base rate is refused outside 0 < rate <= the maximum; the maximum itself plays."""
    clip, phases, asset = turn_unwarped_first["rotation"]
    goals = natural_goals(clip, phases, START_POS, hpr_matrix(START_H))
    assert refused(asset, goals, rate=MAX_BASE_RATE) is None


def test_a_target_following_a_node_is_resolved_through_that_node(base):
    """pos and heading in the followed node's space: T0 = node pos + node rotation pos, RT = node rotation heading."""
    node = base.render.attachNewNode("platform")
    node.setPosHpr(1.0, 2.0, 3.0, 30.0, 0.0, 0.0)
    pos, quat = WarpTarget((0.5, 0.2, 0.0), h=10.0, follow=node).resolve(base.render, base.render)
    assert np.allclose(pos, np.array([1.0, 2.0, 3.0]) + hpr_matrix(30.0) @ np.array([0.5, 0.2, 0.0]), atol=1e-6)
    assert rotation_angle(quat_matrix(quat.getR(), quat.getI(), quat.getJ(), quat.getK()), rot_z(40.0)) < 1e-4
    node.removeNode()


def test_a_world_target_is_resolved_into_the_actor_s_parent_space(base):
    """An actor under a moved, turned parent: the world target comes back in the parent's space, R^T (p - origin)."""
    parent = base.render.attachNewNode("parent")
    parent.setPosHpr(2.0, -1.0, 0.5, 90.0, 0.0, 0.0)
    pos, quat = WarpTarget((1.0, 1.0, 0.0), h=20.0).resolve(parent, base.render)
    assert np.allclose(pos, hpr_matrix(90.0).T @ (np.array([1.0, 1.0, 0.0]) - np.array([2.0, -1.0, 0.5])), atol=1e-6)
    assert rotation_angle(quat_matrix(quat.getR(), quat.getI(), quat.getJ(), quat.getK()), rot_z(-70.0)) < 1e-4
    parent.removeNode()


@pytest.fixture
def quarter_second_warp(base, tmp_path):
    """(actor, warper, asset, raw clip, reference phases) for the turning clip with its first phase on
    0.25-0.5 s at rate 1 (min_rate = max_rate = 1), so frames of 0.25 s land on its end exactly."""
    glb = two_bone_quad(tmp_path / "turn.glb", {"turn": TURN_KEYS})
    phases = [dict(p, min_rate=1.0, max_rate=1.0) for p in TURN_PHASES]
    phases[0].update(start=0.25, end=0.5)
    actor = load_actor(glb)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    yield actor, warper, write_asset(tmp_path, glb, "turn", phases), RawClip(glb, "turn"), ref_phases(phases)
    warper.destroy()
    actor.cleanup()
    actor.removeNode()


def test_a_frame_landing_exactly_on_a_phase_end_ends_the_phase_there(base, quarter_second_warp):
    """docs/design.md 4: a frame that reaches f1 ends the phase in that frame (phase-end sent, the root on
    its goal), not one frame later. The goals are worked out in numpy (reference_warp) from the raw keys.
    Tasks see the clock as the previous frame left it (it ticks at the end of a frame): the clip's
    frame read between steps is the one the warper sees in the next."""
    actor, warper, asset, clip, phases = quarter_second_warp
    targets, ref_targets = targets_near_natural(clip, phases, np.array(actor.getPos()), hpr_matrix(*actor.getHpr()),
                                                TURN_SHIFTS, TURN_TURNS)
    clock = ClockObject.getGlobalClock()
    clock.setFrameTime(math.floor(clock.getFrameTime()) + 1.0)   # a whole second: quarters add up exactly
    recorder = Recorder()
    try:
        warper.play(asset, targets)
        control = actor.getAnimControl("turn")
        f1 = phases[0].end * clip.fps
        while control.getFullFframe() < f1 - 1e-6:
            step(base, 0.25)
        assert control.getFullFframe() == f1   # the next frame is on f1 exactly (0.5 s: two steps of 0.25 s)
        assert recorder.seen == [("motionwarp-phase-start", "first", 0)]
        step(base, 0.25)
        assert recorder.seen[-1] == ("motionwarp-phase-end", "first", 0)
        goal, _ = ReferenceWarp(clip, phases, ref_targets, np.zeros(3), np.eye(3)).goal(phases[0], ref_targets[0])
        assert np.linalg.norm(np.array(actor.getPos()) - goal) < POS_TOL_M
    finally:
        recorder.ignoreAll()


@pytest.mark.parametrize("fps, rate, asked", [(60, 2.0, 0.3), (60, 1.0, 0.02), (144, 0.7, 0.025)],
                         ids=["rate 2", "under a clip frame", "under a clip frame, slow, 144 fps"])
def test_a_blend_out_starts_when_that_much_real_time_is_left(make_rig, warp_assets, fps, rate, asked):
    """docs/design.md 4, blends: blend_out is seconds of play, so at base rate r the fade starts once the
    clip has blend_out * fps * r frames left (never longer than the clip plays after its last phase at
    that rate), and the fade itself lasts blend_out seconds of frame time, also when that is shorter
    than one clip frame."""
    asset = warp_assets["vault"]
    rig = make_rig(blend_in=BLEND)
    rig.play(asset, vault_targets(1.0, 0.6, 1.0), rate=rate, blend_out=asked)
    rig.run(fps=fps)
    clip_fps, last_frame = asset.track.fps, asset.track.num_frames - 1
    blend_out = min(asked, (last_frame - asset.phases[-1].end * clip_fps) / (clip_fps * rate))
    out = next(e for e in rig.events if e[0] == "motionwarp-blend-out")
    assert out[5] == (pytest.approx(blend_out),)
    frames, start = rig.warp_frames, out[2] - rig.play_index
    assert frames[start]["frame"] >= last_frame - blend_out * clip_fps * rate - 1e-6
    assert frames[start - 1]["frame"] < last_frame - blend_out * clip_fps * rate
    fade = [f["effect"] for f in frames[start + 1:]]
    assert fade == pytest.approx([max(0.0, 1.0 - (k + 1) / fps / blend_out) for k in range(len(fade))], abs=1e-6)


@pytest.mark.parametrize("other_hpr", [(12.0, 41.0, -28.5), (70.0, -20.0, 35.0)], ids=["2 degrees (nearly linear)", "far"])
@pytest.mark.parametrize("u", [0.3, 0.5, 0.85])
def test_slerp_between_pitched_and_rolled_rotations_is_a_unit_rotation_on_the_arc(u, other_hpr):
    """slerp of unit quaternions is a unit quaternion on the shorter arc (numpy reference_warp.slerp_matrix),
    also where every component is large (heading-only rotations leave I and J at 0)."""
    r0, r1 = hpr_matrix(10.0, 40.0, -30.0), hpr_matrix(*other_hpr)
    out = slerp(LQuaternion(*matrix_quat(r0)), LQuaternion(*matrix_quat(r1)), u)
    assert out.length() == pytest.approx(1.0, abs=1e-6)
    assert rotation_angle(quat_matrix(out.getR(), out.getI(), out.getJ(), out.getK()), slerp_matrix(r0, r1, u)) < 1e-4


def test_two_turning_clips_blend_their_headings_before_the_first_phase(make_rig, tmp_path):
    """docs/design.md 4, blends: while a warp fades in, a frame turns the actor by share * the warp clip's
    heading change + (1 - share) * the other clip's, and moves it by the same mix of their moves (turned by
    the heading before the frame), share = effect / total effect. Both clips turn here (the mannequin's
    do not); the expected steps come from the raw glTF keys (reference_warp.RawClip)."""
    spin = [("root", "translation", [0.0, 1.0], [[0, 0, 0], [0.0, 1.2, 0.0]]),
            ("root", "rotation", [0.0, 1.0], [[math.cos(math.radians(h) / 2), 0, 0, math.sin(math.radians(h) / 2)]
                                              for h in (0.0, -60.0)])]
    glb = two_bone_quad(tmp_path / "two.glb", {"turn": TURN_KEYS, "spin": spin})
    phases = [dict(p) for p in TURN_PHASES]
    phases[0]["start"] = 0.4
    asset = write_asset(tmp_path, glb, "turn", phases)
    clips = {name: RawClip(glb, name) for name in ("turn", "spin")}
    rig = make_rig(loop="spin", model=glb, blend_in=0.5)
    rig.run(seconds=0.1, until_done=False)
    targets, _ = targets_near_natural(clips["turn"], ref_phases(phases), np.array(rig.actor.getPos()),
                                      hpr_matrix(*rig.actor.getHpr()), TURN_SHIFTS, TURN_TURNS)
    rig.play(asset, targets)
    for _ in range(20):   # 0.33 s: all before the first phase
        step(rig.base, 1 / 60)
    frames = rig.frames[rig.play_index - 1:]
    frames[0] = dict(frames[0], frame=0.0)
    assert frames[-1]["frame"] < 0.4 * clips["turn"].fps and any(0.0 < f["effect"] < 1.0 for f in frames)
    for prev, cur in zip(frames, frames[1:]):
        assert cur["loop_frame"] > prev["loop_frame"], "the spin wrapped: pick a shorter window"
        share = cur["effect"] / (cur["effect"] + cur["loop_effect"])
        steps = [clips["turn"].relative(prev["frame"], cur["frame"]),
                 clips["spin"].relative(prev["loop_frame"], cur["loop_frame"])]
        turns = [math.degrees(math.atan2(rot[1, 0], rot[0, 0])) for _, rot in steps]
        turn = share * turns[0] + (1 - share) * turns[1]
        assert (cur["h"] - prev["h"] - turn + 180) % 360 - 180 == pytest.approx(0.0, abs=1e-3)
        local = share * steps[0][0] + (1 - share) * steps[1][0]
        assert cur["pos"] == pytest.approx(prev["pos"] + rot_z(prev["h"]) @ local, abs=1e-5)


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
@pytest.mark.parametrize("field, index", [("pos", 0), ("pos", 1), ("pos", 2), ("hpr", 0), ("hpr", 1), ("hpr", 2)])
def test_a_target_with_any_component_not_finite_is_not_finite(field, index, bad):
    """The refusal's "not finite" check (docs/design.md 4) looks at every component of pos and of hpr."""
    values = {"pos": [1.0, 2.0, 3.0], "hpr": [10.0, 5.0, -5.0]}
    assert WarpTarget(**values).is_finite()
    values[field][index] = bad
    assert not WarpTarget(**values).is_finite()


HOP = [("root", "translation", [0.0, 0.5, 1.0], [[0, 0, 0], [0, 1, 0.5], [0, 2, 0]])]
STROLL = [("root", "translation", [0.0, 2.0], [[0, 0, 0], [0, 3, 0]])]
#: An asset on the hop of two.glb (clips HOP and STROLL).
TWO = {"format": "motionwarp.asset/1", "model": "two.glb", "clip": "hop", "root_joint": "root",
       "phases": [{"name": "all", "start": 0.0, "end": 1.0}]}


def test_a_rebound_asset_gets_the_track_of_its_own_clip_and_root_mode(base, tmp_path):
    """ModelClips keeps one track per (clip, root joint, mode): an asset re-bound to another clip of the same
    model, or to projected mode, gets that clip's motion (raw keys: the hop rises 0.5 m and comes down over
    1 s while going 2 m forward; the stroll goes 3 m in 2 s; projected mode keeps the ground motion only)."""
    two_bone_quad(tmp_path / "two.glb", {"hop": HOP, "stroll": STROLL})
    data = copy.deepcopy(TWO)
    (tmp_path / "hop.warp.json").write_text(json.dumps(data))
    asset = WarpAsset.load(tmp_path / "hop.warp.json")
    assert asset.phases[0].total_root_motion == pytest.approx((0.0, 2.0, 1.0), abs=1e-5)
    projected = asset.rebind(dict(data, root_mode="projected"))
    assert projected.clips is asset.clips
    assert projected.phases[0].total_root_motion == pytest.approx((0.0, 2.0, 0.0), abs=1e-5)
    strolling = asset.rebind(dict(data, clip="stroll", phases=[{"name": "all", "start": 0.5, "end": 2.0}]))
    assert strolling.duration == pytest.approx(2.0)
    assert strolling.phases[0].total_root_motion == pytest.approx((0.0, 2.25, 0.0), abs=1e-5)


@pytest.mark.parametrize("rig", ["turned_armature", "y_up_armature"])
def test_an_asset_on_a_turned_armature_moves_in_model_space(base, tmp_path, rig):
    """Binding reads root motion through the Character's own transform (a Blender armature turned
    about X): the walk's hips go 1.2 m forward (+Y, model space) over its 1 s cycle (rig_samples'
    authored hips, projected onto the ground), whatever space the armature puts the joints in."""
    glb = rig_samples.write_rig(tmp_path / f"{rig}.glb", rig)
    path = tmp_path / "walk.warp.json"
    path.write_text(json.dumps({"format": "motionwarp.asset/1", "model": glb.name, "clip": "walk", "root_joint": "hips",
                                "root_mode": "projected", "phases": [{"name": "cycle", "start": 0.0, "end": 1.0}]}))
    start, heading = rig_samples.RIGS[rig][2:]
    end = rig_samples.hips_model("walk", 1.0, start, heading)[0] - rig_samples.hips_model("walk", 0.0, start, heading)[0]
    moved = WarpAsset.load(path).phases[0].motion.end_displacement
    assert np.allclose(moved, [end[0], end[1], 0.0], atol=1e-4)


def test_a_phase_without_rates_plays_at_the_clip_s_rate():
    """min_rate and max_rate left out are both 1: the phase never scales the clip's rate."""
    phase = parse_asset(copy.deepcopy(FULL), "full.warp.json").phases[1]
    assert (phase.min_rate, phase.max_rate) == (1.0, 1.0)
    data = copy.deepcopy(FULL)
    del data["phases"][1]["min_rate"], data["phases"][1]["max_rate"]
    phase = parse_asset(data, "full.warp.json").phases[1]
    assert (phase.min_rate, phase.max_rate) == (1.0, 1.0)


@pytest.mark.parametrize("key", ["start", "end", "min_rate", "max_rate"])
def test_a_phase_number_that_is_not_one_names_its_phase(key):
    data = copy.deepcopy(FULL)
    data["phases"][1][key] = "1"
    with pytest.raises(AssetError) as caught:
        parse_asset(data, "bad.warp.json")
    assert str(caught.value).startswith(f"bad.warp.json: phases[1].{key}: expected a finite number")


@pytest.mark.parametrize("change, message", [
    ({"clip": "walk"}, "clip: expected a clip of two.glb: hop, stroll; got 'walk'"),
    ({"root_joint": "pelvis"}, "root_joint: expected a joint of two.glb: root, bone; got 'pelvis'"),
    ({"phases": [{"name": "all", "start": 0.0, "end": 1.0, "align_joint": "hand"}]},
     "phases[0].align_joint: expected a joint of two.glb: root, bone; got 'hand'"),
    ({"contacts": [{"joint": "hand", "start": 0.2, "end": 0.4, "touches": "surface"}]},
     "contacts[0].joint: expected a joint of two.glb: root, bone; got 'hand'"),
])
def test_a_name_the_model_lacks_is_shown_with_the_model_s_names(base, tmp_path, change, message):
    two_bone_quad(tmp_path / "two.glb", {"hop": HOP, "stroll": STROLL})
    path = tmp_path / "bad.warp.json"
    path.write_text(json.dumps(dict(TWO, **change)))
    with pytest.raises(AssetError) as caught:
        WarpAsset.load(path)
    assert str(caught.value) == f"{path}: {message}"


def test_an_asset_on_a_model_without_a_skeleton_names_the_clip_it_lacks(base, tmp_path):
    static_mesh(tmp_path / "two.glb")
    path = tmp_path / "bad.warp.json"
    path.write_text(json.dumps(TWO))
    with pytest.raises(AssetError) as caught:
        WarpAsset.load(path)
    assert str(caught.value) == f"{path}: clip: expected a clip of two.glb: ; got 'hop'"


@pytest.mark.parametrize("change, message", [
    ({"axes": 5}, "phases[1].axes: expected some of the letters x, y, z (each once), got 5"),
    ({"axes": ["x", "y"]}, "phases[1].axes: expected some of the letters x, y, z (each once), got ['x', 'y']"),
    ({"axes": "X"}, "phases[1].axes: expected some of the letters x, y, z (each once), got 'X'"),
    ({"align_joint": 5}, "phases[1].align_joint: expected the name of a joint, got 5"),
    ({"start": 0.2}, "phases[1].start: expected phases in order, not overlapping: at or after 'close' ends (0.3), got 0.2"),
])
def test_a_bad_phase_field_is_named_with_what_it_got(change, message):
    data = copy.deepcopy(FULL)
    data["phases"][1].update(change)
    with pytest.raises(AssetError) as caught:
        parse_asset(data, "bad.warp.json")
    assert str(caught.value) == f"bad.warp.json: {message}"
