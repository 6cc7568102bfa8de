"""The warper's check prepared once for a provider (warp/refusal.py `Check`): asked again from other
poses and under settings changed in place, it says what a fresh `refusal()` says for each."""
import math

import numpy as np
import pytest
from panda3d.core import LQuaternion, Point3

from motionwarp.warp.refusal import Check, refusal

from .reference_warp import hpr_matrix, matrix_quat, rot_z
from .test_refusal import DRIVEN, START_H, START_POS, anchor, target, turn, settings  # noqa: F401 (fixtures)


def _pose(shift, h=START_H):
    return Point3(*(START_POS + np.array([shift, 0.0, 0.0]))), LQuaternion(*matrix_quat(hpr_matrix(h)))


def test_a_kept_check_says_what_a_fresh_refusal_says_from_every_pose_and_after_settings_change(base, turn, settings):
    _, asset, goals = turn
    (pos, rotation), (second, second_rotation) = goals
    # The second phase's target turned 80 degrees past where the clip ends it: refused while the limit is 75.
    goals = [(pos, rotation), (second, rot_z(80.0) @ second_rotation)]
    targets, anchors = [target(p) for p, _ in goals], [anchor(p, r) for p, r in goals]
    check = Check(asset, DRIVEN, targets, anchors, 1.0)
    said = []
    for limit, shift in [(75.0, 0.0), (75.0, 0.05), (90.0, 0.05), (90.0, -0.1), (75.0, -0.1), (75.0, 30.0)]:
        settings.max_turn_deg = limit        # in place, as a game may change its warper's settings
        cause = check.cause(_pose(shift), 1.0, settings)
        fresh = refusal(asset, DRIVEN, targets, anchors, 1.0, _pose(shift), 1.0, settings)
        assert (None if cause is None else cause.text) == fresh
        said.append(fresh)
    assert said[0] == said[1] == "phase 'second' needs a 80 degree turn (allowed 75)"
    assert said[2] is None and said[3] is None and said[4] == said[0]
    assert said[5].startswith("phase 'first' needs")    # the first phase refused first, from far off


def test_a_check_keeps_what_no_pose_lifts(base, turn, settings):
    _, asset, goals = turn
    anchors = [anchor(p, r) for p, r in goals]
    check = Check(asset, DRIVEN, [target(goals[0][0])], anchors[:1], 1.0)
    assert check.fixed is not None and check.cause(_pose(0.0), 1.0, settings) is check.fixed
    assert check.fixed.text == refusal(asset, DRIVEN, [target(goals[0][0])], anchors[:1], 1.0, _pose(0.0), 1.0, settings)


def test_a_later_phase_edited_in_place_is_seen_at_once(base, turn, settings):
    import copy
    import dataclasses
    _, asset, goals = turn
    asset = copy.copy(asset)
    asset.phases = [dataclasses.replace(phase) for phase in asset.phases]   # the module's asset stays as it was
    targets, anchors = [target(p) for p, _ in goals], [anchor(p, r) for p, r in goals]
    check = Check(asset, DRIVEN, targets, anchors, 1.0)
    assert check.cause(_pose(0.0), 1.0, settings) is None
    asset.phases[1].r_offset = (-95.0, 0.0, 0.0)    # the second goal turned 90 degrees more: past the 75 allowed
    fresh = refusal(asset, DRIVEN, targets, anchors, 1.0, _pose(0.0), 1.0, settings)
    assert fresh is not None and check.cause(_pose(0.0), 1.0, settings).text == fresh


def test_a_kept_check_walks_an_aligned_joint_s_goal_at_each_scale_it_is_asked(base, turn, settings):
    """The goal of a phase with an align_offset moves back by Q align_offset * scale (design 4): a Check
    asked at one scale and then another walks each from its own goal. The stretch it refuses at scale 2
    is worked out here in numpy from the raw clip: the root's place at f0 and the clip's ground move over
    the phase, both scaled, against the goal pulled back by twice the offset."""
    import copy
    import dataclasses
    clip, asset, goals = turn
    asset = copy.copy(asset)
    asset.phases = [dataclasses.replace(phase) for phase in asset.phases]
    align = np.array([0.0, 0.3, 0.0])
    asset.phases[0].align_offset = tuple(align)
    f0, f1 = (t * clip.fps for t in (asset.phases[0].start, asset.phases[0].end))
    move, clip_turn = clip.relative(0.0, f0)
    rotation = hpr_matrix(START_H) @ clip_turn
    (_, goal_rotation), second = goals
    at_f0 = START_POS + hpr_matrix(START_H) @ move * 2.0
    ground = (rotation @ clip.displacement(f0, f1))[:2] * 2.0
    # four times the clip's ground move ahead at scale 2 once pulled back (past the 3 allowed); at scale 1
    # the goal lies 0.3 m nearer the target
    anchor_pos = at_f0 + np.array([*(ground * 4.0), 0.0]) + goal_rotation @ align * 2.0
    anchors = [anchor(anchor_pos, goal_rotation), anchor(*second)]
    check = Check(asset, DRIVEN, [target(anchor_pos), target(second[0])], anchors, 1.0)
    check.cause(_pose(0.0), 1.0, settings)                        # kept at scale 1 first
    cause = check.cause(_pose(0.0), 2.0, settings)
    goal = anchor_pos - goal_rotation @ align * 2.0
    assert cause is not None and cause.name == "stretch"
    assert cause.value == pytest.approx(np.linalg.norm((goal - at_f0)[:2]) / np.linalg.norm(ground), abs=1e-4)


def test_a_kept_check_from_a_pose_matched_start_walks_the_first_phase_from_its_frame(base, turn, settings):
    """A pose-matched start inside the first phase (`started_phases`) plays it from that frame: no lead-in,
    the clip's ground move from that frame to the phase's end. A Check made with that start refuses a goal
    3.4 times that move ahead for its stretch, asked twice (the second time from its kept legs and first
    leg), where from frame 0 the same goal stretches the phase otherwise; the ratio is worked out in numpy
    from the raw clip."""
    from motionwarp.warp.posematch import started_phases
    clip, asset, goals = turn
    f0, f1 = (t * clip.fps for t in (asset.phases[0].start, asset.phases[0].end))
    frame = float(math.floor((f0 + f1) / 2))
    ground = (hpr_matrix(START_H) @ clip.displacement(frame, f1))[:2]
    goal = START_POS + np.array([*(ground * 3.4), 0.2])   # height does not count
    (_, goal_rotation), second = goals
    targets, anchors = [target(goal), target(second[0])], [anchor(goal, goal_rotation), anchor(*second)]
    check = Check(asset, DRIVEN, targets, anchors, 1.0, start=(frame, started_phases(asset, frame)))
    said = [check.cause(_pose(0.0), 1.0, settings) for _ in range(2)]
    assert said[0] == said[1] and said[0].name == "stretch"
    assert said[0].value == pytest.approx(3.4, abs=1e-4)
    from_frame_0 = Check(asset, DRIVEN, targets, anchors, 1.0).cause(_pose(0.0), 1.0, settings)
    assert from_frame_0 is None or (from_frame_0.name, round(from_frame_0.value, 2)) != ("stretch", 3.4), from_frame_0
