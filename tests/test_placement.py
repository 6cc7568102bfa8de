"""The pure placement functions (motionwarp.warp.placement) against the independent reference, and the
local move both the driver and the warper make (a non-uniformly scaled node included).

The oracle is `reference_warp`: the root's raw glTF keys and docs/design.md 4 in plain numpy.
Here no Actor plays: each phase is placed straight from an origin, a target and a clip frame,
for origins turned about every axis, scaled characters, subsets of axes and either warp
switched off. Tolerances as in test_warp_reference (float32 tables and quaternions).
"""
import dataclasses

import numpy as np
import pytest
from panda3d.core import LQuaternion, Point3, Vec3

from motionwarp.animation.motion import Motion, move_nodepath
from motionwarp.warp.placement import PhasePlan, goal_pose, moved_by, place, place_blended, rate_scale

from .gltf_samples import two_bone_quad
from .reference_warp import (RawClip, ReferenceWarp, hpr_matrix, matrix_quat, quat_matrix, rot_z, rotation_angle,
                             slerp_matrix)
from .test_warp_reference import POS_TOL_M, RATE_TOL, ROT_TOL_DEG, TURN_KEYS, TURN_PHASES, ref_phases, write_asset

STILL = 0.02   # the default motionwarp-still-axis-m
# (origin position, origin HPR, target position, target HPR) per phase: some far off the clip's own path.
SETUPS = [((1.5, -2.0, 0.3), (40.0, 0.0, 0.0), (2.1, -0.6, 1.0), (55.0, 0.0, 0.0)),
          ((-0.4, 0.8, 0.0), (-110.0, 12.0, -7.0), (-1.5, 0.2, 0.6), (-95.0, 5.0, 3.0))]
VARIANTS = {"as authored": {}, "axes xz": {"axes": "xz"}, "no rotation warp": {"warp_rotation": False},
            "no translation warp": {"warp_translation": False}}


@pytest.fixture(scope="module")
def turn(tmp_path_factory):
    """(the raw clip, {variant: the loaded asset}) for the reference tests' turning clip."""
    folder = tmp_path_factory.mktemp("placement")
    glb = two_bone_quad(folder / "turn.glb", {"turn": TURN_KEYS})
    assets = {}
    for name, change in VARIANTS.items():
        variant = folder / name.replace(" ", "_")
        variant.mkdir()
        assets[name] = (write_asset(variant, glb, "turn", [dict(p, **change) for p in TURN_PHASES]),
                        ref_phases([dict(p, **change) for p in TURN_PHASES]))
    return RawClip(glb, "turn"), assets


def quat_of(rotation):
    return LQuaternion(*matrix_quat(rotation))


def matrix_of(quat):
    return quat_matrix(quat.getR(), quat.getI(), quat.getJ(), quat.getK())


def frames_of(phase, clip):
    """Clip frames across the phase: its ends, fractional frames between, and the exact baked ones."""
    f0, f1 = phase.start * clip.fps, phase.end * clip.fps
    return [f0, f0 + 0.37, f0 + 0.25 * (f1 - f0), float(int(f0 + 0.5 * (f1 - f0))), f1 - 0.61, f1]


def planned(clip, asset, phases, index, setup, scale):
    """(motionwarp's PhasePlan of phase `index`, the reference at the same origin with that phase started)."""
    origin_pos, origin_hpr, target_pos, target_hpr = setup
    r0, rt = hpr_matrix(*origin_hpr), hpr_matrix(*target_hpr)
    reference = ReferenceWarp(clip, phases, [(np.array(target_pos), rt)] * len(phases), origin_pos, r0, scale=scale)
    reference.index = index
    reference._start_phase(phases[index])
    phase = asset.phases[index]
    goal = goal_pose(phase, (Point3(*target_pos), quat_of(rt)), scale)
    plan = PhasePlan(phase, (Point3(*origin_pos), quat_of(r0)), goal, scale, STILL)
    return plan, reference


def assert_pose_near(pose, pos, rot, where):
    error_m = np.linalg.norm(np.array(pose[0]) - pos)
    error_deg = rotation_angle(matrix_of(pose[1]), rot)
    assert error_m < POS_TOL_M and error_deg < ROT_TOL_DEG, f"{where}: {error_m * 1000:.4f} mm, {error_deg:.5f} degrees"


@pytest.mark.parametrize("scale", [1.0, 1.35])
@pytest.mark.parametrize("setup", range(len(SETUPS)))
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_place_matches_the_reference_at_every_frame(base, turn, variant, setup, scale):
    clip, assets = turn
    asset, phases = assets[variant]
    for index, ref_phase in enumerate(phases):
        plan, reference = planned(clip, asset, phases, index, SETUPS[setup], scale)
        assert rate_scale(asset.phases[index], plan, STILL) == pytest.approx(reference.phase_rates[-1], rel=RATE_TOL)
        for frame in frames_of(ref_phase, clip):
            pos, rot = reference._place(ref_phase, frame)
            assert_pose_near(place(plan, asset.phases[index], asset.track, frame), pos, rot,
                             f"phase {index} frame {frame:.2f}")


def test_the_phase_ends_on_the_goal_the_reference_computes(base, turn):
    """At f1 the placement is the goal itself: T = T0 + RT t_offset, Q = RT R(r_offset)."""
    clip, assets = turn
    asset, phases = assets["as authored"]
    for index, ref_phase in enumerate(phases):
        plan, reference = planned(clip, asset, phases, index, SETUPS[1], 1.2)
        goal, goal_rot = reference.goal(ref_phase, reference.targets[index])
        assert_pose_near(place(plan, asset.phases[index], asset.track, ref_phase.end * clip.fps), goal, goal_rot,
                         f"phase {index} end")


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_an_unshared_blended_step_is_the_placement(base, turn, variant):
    """docs/design.md 4: when nothing blends (share 1, no other motion), the blended step from the
    last frame's pose equals the placement; checked against the reference, frame by frame."""
    clip, assets = turn
    asset, phases = assets[variant]
    plan, reference = planned(clip, asset, phases, 0, SETUPS[0], 1.1)
    frames = frames_of(phases[0], clip)
    pose = place(plan, asset.phases[0], asset.track, frames[0])
    for before, frame in zip(frames, frames[1:]):
        pose = place_blended(plan, asset.phases[0], asset.track, pose, before, frame, Motion(), 1.0)
        pos, rot = reference._place(phases[0], frame)
        assert_pose_near(pose, pos, rot, f"frame {frame:.2f}")


@pytest.mark.parametrize("variant", ["as authored", "axes xz"])
def test_a_shared_phase_still_ends_exactly_on_its_goal(base, turn, variant):
    """Another clip's motion mixed in at any share moves the path, not the end: the phase ends on
    the reference's goal (only the warped axes are held to it)."""
    clip, assets = turn
    asset, phases = assets[variant]
    plan, reference = planned(clip, asset, phases, 1, SETUPS[0], 1.0)
    goal, goal_rot = reference.goal(phases[1], reference.targets[1])
    frames = frames_of(phases[1], clip)
    pose = place(plan, asset.phases[1], asset.track, frames[0])
    for (before, frame), share in zip(zip(frames, frames[1:]), (0.2, 0.5, 0.7, 0.9, 1.0)):
        pose = place_blended(plan, asset.phases[1], asset.track, pose, before, frame, Motion((0.05, 0.1, 0.0), 4.0), share)
    warped = ["xyz".index(axis) for axis in asset.phases[1].axes]
    r0 = np.array(reference.origin[1])
    error = r0.T @ (np.array(pose[0]) - goal)   # in the origin frame, where the axes are
    assert np.all(np.abs(error[warped]) < POS_TOL_M), error
    assert rotation_angle(matrix_of(pose[1]), goal_rot) < ROT_TOL_DEG


def test_an_aligned_joint_moves_the_goal_back_by_its_scaled_offset(base, turn):
    """With align_offset the root's goal is T - Q align_offset * scale (numpy here)."""
    _, assets = turn
    phase = dataclasses.replace(assets["as authored"][0].phases[0], align_offset=(0.2, 0.3, 1.2))
    target_rot = hpr_matrix(30.0, 0.0, 0.0)
    goal, goal_quat = goal_pose(phase, (Point3(1.0, 2.0, 0.5), quat_of(target_rot)), 1.5)
    goal_rot = target_rot @ hpr_matrix(*phase.r_offset)
    expected = np.array([1.0, 2.0, 0.5]) + target_rot @ np.array(phase.t_offset) - goal_rot @ np.array([0.2, 0.3, 1.2]) * 1.5
    assert np.linalg.norm(np.array(goal) - expected) < POS_TOL_M
    assert rotation_angle(matrix_of(goal_quat), goal_rot) < ROT_TOL_DEG


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_shared_step_follows_the_contract_formula(base, turn, variant):
    """One blended step from a pose off the path, in numpy from docs/design.md 4: X = pose + s R0 (A(f)
    - A(f_prev)) + (1 - s) R (other), then R0 (N * r) with N = R0^-1 (T - X) - (A(f1) - A(f)) and r the
    share of the remaining weight; the rotation turned by (1 - s) of the other turn, then slerped
    toward Q by the share of the remaining time."""
    clip, assets = turn
    asset, phases = assets[variant]
    ref_phase, phase, scale, share = phases[0], asset.phases[0], 1.25, 0.6
    plan, reference = planned(clip, asset, phases, 0, SETUPS[1], scale)
    (p0, r0), (goal, goal_rot) = reference.origin, reference.goal(ref_phase, reference.targets[0])
    f0, f1 = ref_phase.start * clip.fps, ref_phase.end * clip.fps
    before, frame = f0 + 0.3 * (f1 - f0), f0 + 0.45 * (f1 - f0)
    pos, rot = np.array([-0.2, 0.5, 0.1]), hpr_matrix(-100.0, 10.0, -5.0)
    other_pos, other_h = np.array([0.04, 0.09, 0.01]), 6.0
    moved = (pos + share * r0 @ (clip.displacement(f0, frame) - clip.displacement(f0, before)) * scale
             + (1.0 - share) * rot @ other_pos * scale)
    if ref_phase.warp_translation:
        axes = [a for a in range(3) if "xyz"[a] in ref_phase.axes]
        warp = np.zeros(3)
        warp[axes] = (r0.T @ (goal - p0) - clip.displacement(f0, f1) * scale)[axes]
        w_before, w_now = (reference.weights(f0, f1, f, warp / scale) for f in (before, frame))
        left = r0.T @ (goal - moved) - (clip.displacement(f0, f1) - clip.displacement(f0, frame)) * scale
        step = np.zeros(3)
        step[axes] = (left * (w_now - w_before) / (1.0 - w_before))[axes]
        moved = moved + r0 @ step
    if ref_phase.warp_rotation:
        u_before, u_now = (before - f0) / (f1 - f0), (frame - f0) / (f1 - f0)
        turned = slerp_matrix(rot @ rot_z((1.0 - share) * other_h), goal_rot, (u_now - u_before) / (1.0 - u_before))
    else:
        clip_turn = clip.root(frame)[1] - clip.root(before)[1]
        turned = rot @ rot_z(share * clip_turn + (1.0 - share) * other_h)
    pose = place_blended(plan, phase, asset.track, (Point3(*pos), quat_of(rot)), before, frame,
                         Motion(other_pos, other_h), share)
    assert_pose_near(pose, moved, turned, variant)


@pytest.mark.parametrize("turn", [25.0, 0.0])
@pytest.mark.parametrize("hpr", [(30.0, 0.0, 0.0), (-70.0, 15.0, -10.0)])
def test_a_local_move_of_a_non_uniformly_scaled_node(base, hpr, turn):
    """move_nodepath (the driver's write) and moved_by (the warper's pose) move a node by a Motion in
    its own frame: the step scaled per axis by the node's scale, then rotated by the node's rotation;
    the heading turn is about the node's own Z; the scale stays. In numpy, column vectors."""
    start, scale, step = np.array([0.5, -1.0, 0.2]), np.array([1.0, 2.0, 0.5]), np.array([0.3, 0.4, 0.1])
    expected_pos = start + hpr_matrix(*hpr) @ (scale * step)
    expected_rot = hpr_matrix(*hpr) @ rot_z(turn)
    node = base.render.attachNewNode("scaled")
    node.setPosHprScale(Point3(*start), Vec3(*hpr), Vec3(*scale))
    moved = moved_by((node.getPos(), node.getQuat()), Motion(step, turn), node.getScale())
    move_nodepath(node, Motion(step, turn))
    assert_pose_near(moved, expected_pos, expected_rot, "moved_by")
    assert_pose_near((node.getPos(), node.getQuat()), expected_pos, expected_rot, "move_nodepath")
    assert np.allclose(node.getScale(), scale, atol=1e-6)
