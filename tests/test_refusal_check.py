"""The warper's check prepared once for a provider (warp/refusal.py `Check`): asked again from other
poses and under settings changed in place, it says what a fresh `refusal()` says for each."""
import numpy as np
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
