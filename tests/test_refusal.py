"""The pure refusal function (motionwarp.warp.refusal): each reason of docs/design.md 4, from plain data.

No Actor and no NodePath: the asset is the reference tests' turning clip, the character's pose
and the targets are numbers. Where a reason carries distances, angles or ratios, the test works
them out in numpy from the clip's raw glTF keys (`reference_warp.RawClip`), walking the clip
from the character's place the way the contract says, not from motionwarp's root-motion track.
"""
import dataclasses
import math

import numpy as np
import pytest
from panda3d.core import LQuaternion, Point3

from motionwarp import MotionWarpSettings, WarpTarget
from motionwarp.warp.refusal import MAX_BASE_RATE, refusal

from .gltf_samples import two_bone_quad
from .reference_warp import RawClip, hpr_matrix, matrix_quat, rot_z
from .test_warp_reference import TURN_KEYS, TURN_PHASES, natural_goals, ref_phases, write_asset

START_POS, START_H = np.array([0.4, -1.0, 0.0]), 25.0
DRIVEN = ("root", "bone", {"turn": None, "walk": None})


@pytest.fixture(scope="module")
def turn(tmp_path_factory):
    """(raw clip, asset without offsets, the natural (position, rotation) each phase ends at from the start)."""
    folder = tmp_path_factory.mktemp("refusal")
    glb = two_bone_quad(folder / "turn.glb", {"turn": TURN_KEYS})
    phases = [dict(p, t_offset=[0.0, 0.0, 0.0], r_offset=[0.0, 0.0, 0.0]) for p in TURN_PHASES]
    clip = RawClip(glb, "turn")
    return clip, write_asset(folder, glb, "turn", phases), natural_goals(clip, ref_phases(phases), START_POS,
                                                                         hpr_matrix(START_H))


@pytest.fixture
def settings():
    return MotionWarpSettings.from_prc()


def anchor(pos, rotation):
    return Point3(*pos), LQuaternion(*matrix_quat(rotation))


def target(pos):
    return WarpTarget(Point3(*pos))


def why(asset, goals, settings, rate=1.0, driven=DRIVEN, targets=None):
    """refusal() for (position, rotation) goals from the start pose (the asset has no offsets)."""
    start = (Point3(*START_POS), LQuaternion(*matrix_quat(hpr_matrix(START_H))))
    targets = targets if targets is not None else [target(pos) for pos, _ in goals]
    return refusal(asset, driven, targets, [anchor(pos, rot) for pos, rot in goals], rate, start, 1.0, settings)


def first_phase_from_start(clip, asset):
    """(where the root is at f0 and its rotation, the clip's ground move over the phase) from the start, in numpy."""
    f0, f1 = (t * clip.fps for t in (asset.phases[0].start, asset.phases[0].end))
    move, turn = clip.relative(0.0, f0)
    rotation = hpr_matrix(START_H) @ turn
    return START_POS + hpr_matrix(START_H) @ move, rotation, (rotation @ clip.displacement(f0, f1))[:2]


def second_from(clip, asset, pos, rotation, turn=0.0):
    """Phase 2's own end when phase 1 ends at (pos, rotation), its rotation turned `turn` degrees more."""
    move, clip_turn = clip.relative(asset.phases[0].end * clip.fps, asset.phases[1].end * clip.fps)
    return pos + rotation @ move, rot_z(turn) @ rotation @ clip_turn


def test_the_clip_s_own_ends_are_accepted(base, turn, settings):
    _, asset, goals = turn
    assert why(asset, goals, settings) is None


def test_another_root_or_mode_is_refused(base, turn, settings):
    _, asset, goals = turn
    assert why(asset, goals, settings, driven=("hips", "projected", DRIVEN[2])) == (
        "asset 'turn' is rooted at joint 'root' (bone mode); this warper drives 'hips' (projected mode)")


def test_a_clip_the_warper_does_not_drive_is_refused(base, turn, settings):
    _, asset, goals = turn
    assert why(asset, goals, settings, driven=("root", "bone", {"walk": None, "idle": None})) == (
        "the actor has no clip 'turn'; its driven clips: idle, walk")


def test_one_target_per_phase(base, turn, settings):
    _, asset, goals = turn
    assert why(asset, goals[:1], settings) == "asset 'turn' has 2 phases (first, second) but 1 targets were given"


def test_a_target_that_is_not_finite_is_refused(base, turn, settings):
    _, asset, goals = turn
    bad = WarpTarget(Point3(0.0, math.inf, 0.0))
    assert why(asset, goals, settings, targets=[target(goals[0][0]), bad]) == (
        f"target of phase 'second' is not finite (or beyond float32, about 3.4e38): {bad}")


@pytest.mark.parametrize("h", [1e39, -1e300, math.nan])
def test_a_heading_beyond_float32_blames_the_target_not_the_asset(base, turn, settings, h):
    _, asset, goals = turn
    for bad in (WarpTarget(Point3(0.0, 1.0, 0.0), h=h), WarpTarget(Point3(0.0, 1.0, 0.0), hpr=(0.0, h, 0.0))):
        assert why(asset, goals, settings, targets=[target(goals[0][0]), bad]) == (
            f"target of phase 'second' is not finite (or beyond float32, about 3.4e38): {bad}")


@pytest.mark.parametrize("rate", [0, -1.0, MAX_BASE_RATE * 1.01, math.nan, "fast"])
def test_a_base_rate_outside_0_to_the_maximum_is_refused(base, turn, settings, rate):
    _, asset, goals = turn
    assert why(asset, goals, settings, rate=rate) == (
        f"play rate must be a number above 0 and at most 100, got {rate!r}")


def test_a_goal_that_offsets_past_float_range_is_refused(base, turn, settings):
    _, asset, goals = turn
    far = dataclasses.replace(asset, phases=[asset.phases[0], dataclasses.replace(asset.phases[1], t_offset=(0.0, 1e39, 0.0))])
    assert why(far, goals, settings) == "phase 'second' would end at a non-finite point (its t_offset is 0, 1e+39, 0)"


def test_a_target_behind_a_forward_clip_is_refused(base, turn, settings):
    clip, asset, goals = turn
    at_f0, rotation, ground = first_phase_from_start(clip, asset)
    back = -0.3 * ground / np.linalg.norm(ground)
    behind = at_f0 + np.array([back[0], back[1], 0.0])
    assert why(asset, [(behind, rotation)] + goals[1:], settings) == (
        "target of phase 'first' is behind the character (0.30 m back; the clip moves forward)")
    settings.max_behind_m = 0.35   # a game that lets the capsule stop short of the authored start
    assert why(asset, [(behind, rotation), second_from(clip, asset, behind, rotation)], settings) is None


@pytest.mark.parametrize("stretch", [3.4, 0.05])
def test_a_ground_distance_out_of_the_stretch_range_is_refused(base, turn, settings, stretch):
    clip, asset, goals = turn
    at_f0, rotation, ground = first_phase_from_start(clip, asset)
    goal = at_f0 + np.array([*(ground * stretch), 0.2])   # height does not count
    clip_m = np.linalg.norm(ground)
    assert why(asset, [(goal, rotation)] + goals[1:], settings) == (
        f"phase 'first' needs {clip_m * stretch:.2f} m over the ground where the clip moves {clip_m:.2f} m "
        f"(ratio {stretch:.2f}, allowed 0.1 to 3)")


def test_a_turn_beyond_the_limit_is_refused_and_one_within_it_is_not(base, turn, settings):
    _, asset, goals = turn
    (pos, rotation), second = goals
    assert why(asset, [(pos, rot_z(80.0) @ rotation), second], settings) == (
        "phase 'first' needs a 80 degree turn (allowed 75)")
    assert why(asset, [(pos, rot_z(70.0) @ rotation), (second[0], rot_z(70.0) @ second[1])], settings) is None


def test_the_walk_goes_on_from_each_goal_not_from_the_clip_s_own_end(base, turn, settings):
    """Phase 2 is judged from where phase 1 ends, its goal, not from where the clip alone would be:
    with phase 1 turned 70 degrees, phase 2 turned 60 more is fine (60 from there, 130 from the clip's
    own end), and phase 2 at the clip's own end turned 10 back is not (80 from there, 10 otherwise)."""
    clip, asset, goals = turn
    (pos, rotation), (second, second_rotation) = goals
    turned = rot_z(70.0) @ rotation
    assert why(asset, [(pos, turned), second_from(clip, asset, pos, turned, 60.0)], settings) is None
    assert why(asset, [(pos, turned), (second, rot_z(-10.0) @ second_rotation)], settings) == (
        "phase 'second' needs a 80 degree turn (allowed 75)")
