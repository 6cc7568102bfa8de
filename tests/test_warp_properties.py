"""Property tests (hypothesis) on the warp math: random root curves, targets and frame times.

Deterministic (`derandomize=True`: the examples are derived from the test, not drawn at
random) and small, so the whole file runs in a few seconds.
"""
import math

import numpy as np
import pytest
from direct.showbase.DirectObject import DirectObject
from hypothesis import HealthCheck, given, settings, strategies as st
from panda3d.core import Point3

from motionwarp import MotionWarper, WarpTarget, load_actor
from motionwarp.animation.motion import Motion, turn_points
from motionwarp.warp.phasemotion import PhaseMotion
from motionwarp.animation.rootmotion import RootMotionTrack
from motionwarp.warp.warpmath import angle_between, axis_weights, slerp

from .conftest import step
from .gltf_samples import two_bone_quad
from .reference_warp import RawClip, hpr_matrix, quat_matrix, rotation_angle, slerp_matrix
from .test_warp_reference import TURN_KEYS, TURN_PHASES, natural_goals, ref_phases, write_asset

STILL = 0.02
FAST = settings(derandomize=True, max_examples=60, deadline=None, database=None)

finite = st.floats(-3.0, 3.0, allow_nan=False)


@st.composite
def root_curves(draw):
    """Per-frame root positions and headings: each axis either monotonic or going up and down."""
    frames = draw(st.integers(4, 40))
    axes = []
    for _ in range(3):
        kind = draw(st.sampled_from(["monotonic", "up_and_down", "still"]))
        steps = np.array(draw(st.lists(st.floats(0.0, 0.2), min_size=frames - 1, max_size=frames - 1)))
        if kind == "up_and_down":
            steps = steps * np.where(np.arange(frames - 1) < draw(st.integers(1, frames - 1)), 1.0, -1.0)
        elif kind == "still":
            steps = steps * 1e-4
        axes.append(np.concatenate([[0.0], np.cumsum(steps * draw(st.sampled_from([1.0, -1.0])))]))
    turns = draw(st.lists(st.floats(-6.0, 6.0), min_size=frames - 1, max_size=frames - 1))
    headings = np.concatenate([[draw(st.floats(-180, 180))], draw(st.floats(-180, 180)) + np.cumsum(turns)])
    return RootMotionTrack("curve", 30, np.column_stack(axes), headings)


@st.composite
def phases_of(draw, track):
    last = track.num_frames - 1
    f0 = draw(st.floats(0.0, last - 0.5))
    f1 = draw(st.floats(f0 + 0.25, last))
    return PhaseMotion(track, f0, f1)


@given(st.data())
@FAST
def test_weights_stay_in_range_rise_monotonically_and_arrive(data):
    track = data.draw(root_curves())
    motion = data.draw(phases_of(track))
    need = np.array(data.draw(st.tuples(finite, finite, finite)))
    warp = need - np.array(motion.end_displacement)
    frames = np.linspace(motion.f0, motion.f1, 41)
    weights = np.array([axis_weights(motion, f, warp, STILL) for f in frames])
    assert np.all(np.isfinite(weights))
    assert np.all(weights >= 0.0) and np.all(weights <= 1.0 + 1e-12)
    assert np.all(np.diff(weights, axis=0) >= -1e-12), "a weight went back"
    assert weights[0] == pytest.approx([0.0, 0.0, 0.0], abs=1e-12)
    assert weights[-1] == pytest.approx([1.0, 1.0, 1.0], abs=1e-12)
    # P(t1) = P0 + R0 (A(t1) + D w(t1)) is the target, whatever the curve did on the way.
    arrived = np.array(motion.displacement(motion.f1)) + warp * weights[-1]
    assert np.linalg.norm(arrived - need) < 1e-3


@given(st.data())
@FAST
def test_phase_motion_is_the_clip_seen_from_the_phase_start(data):
    track = data.draw(root_curves())
    motion = data.draw(phases_of(track))
    frames = sorted(data.draw(st.lists(st.floats(motion.f0, motion.f1), min_size=2, max_size=12)))
    travel = np.array([motion.travel(f) for f in frames])
    assert np.all(np.isfinite(travel)) and np.all(np.diff(travel, axis=0) >= -1e-12)
    assert motion.displacement(motion.f0) == pytest.approx((0.0, 0.0, 0.0), abs=1e-12)
    assert motion.travel(motion.f1) == pytest.approx(motion.total)
    for f in frames:
        # A(f): the root's move since f0, turned into the root's frame at f0 (computed here by hand).
        h0 = math.radians(track.heading(motion.f0))
        d = track.position(f) - track.position(motion.f0)
        expected = (math.cos(h0) * d[0] + math.sin(h0) * d[1], -math.sin(h0) * d[0] + math.cos(h0) * d[1], d[2])
        assert motion.displacement(f) == pytest.approx(expected, abs=1e-9)
    # |A| never exceeds the travel: the sum of |delta| bounds the net move on every axis.
    assert np.all(np.abs(motion.displacement(frames[-1])) <= np.array(motion.travel(frames[-1])) + 1e-9)


motions = st.builds(Motion, st.tuples(finite, finite, finite), st.floats(-720, 720))


@given(motions, motions, motions, st.integers(-4, 4))
@FAST
def test_motion_algebra(a, b, c, n):
    def close(m1, m2):
        assert m1.pos == pytest.approx(m2.pos, abs=1e-9)
        assert m1.h == pytest.approx(m2.h, abs=1e-9)
    close((a * b) * c, a * (b * c))
    close(a * a.inverse(), Motion())
    close(a.inverse() * a, Motion())
    close(a ** n * a, a ** (n + 1))
    # Composition is "move by b in a's frame": a's heading turns b's offset.
    h = math.radians(a.h)
    x, y, z = b.pos
    assert (a * b).pos == pytest.approx((a.pos[0] + math.cos(h) * x - math.sin(h) * y,
                                         a.pos[1] + math.sin(h) * x + math.cos(h) * y, a.pos[2] + z), abs=1e-9)
    points = np.array([b.pos, c.pos])
    assert turn_points(points, a.h) == pytest.approx(np.array([a.rotate(b.pos), a.rotate(c.pos)]), abs=1e-12)


hprs = st.tuples(st.floats(-360, 360), st.floats(-89, 89), st.floats(-180, 180))


def _quat(hpr):
    from panda3d.core import LQuaternion
    quat = LQuaternion()
    quat.setHpr(hpr)
    return quat


def _matrix(quat):
    return quat_matrix(quat.getR(), quat.getI(), quat.getJ(), quat.getK())


@given(hprs, hprs, st.floats(0.0, 1.0), st.booleans())
@FAST
def test_slerp_and_angle_match_the_textbook(a, b, u, flip):
    """warpmath's slerp and angle against the reference's, on any pair of rotations (either sign of
    the second quaternion: both stand for the same rotation, and the short way round is taken)."""
    q0, q1 = _quat(a), _quat(b)
    if flip:
        q1 = -q1
    r0, r1 = hpr_matrix(*a), hpr_matrix(*b)
    assert rotation_angle(_matrix(slerp(q0, q1, u)), slerp_matrix(r0, r1, u)) < 1e-3
    assert angle_between(q0, q1) == pytest.approx(rotation_angle(r0, r1), abs=1e-3)


# -- the real warper: random reachable targets, random frame times with hitches --------------------
frame_times = st.lists(st.one_of(st.floats(1 / 240, 1 / 20), st.floats(0.1, 0.5)), min_size=1, max_size=40)
shifts = st.tuples(st.floats(-0.3, 0.3), st.floats(-0.3, 0.3), st.floats(-0.2, 0.2))


class PhaseEnds(DirectObject):
    """The actor's pose each time a phase ends (read in the event, before any later motion)."""

    def __init__(self, actor, render):
        self.poses = []
        self.accept("motionwarp-phase-end", lambda *args: self.poses.append(
            (np.array(actor.getPos(render)), np.array(actor.getMat(render)).reshape(4, 4)[:3, :3].T)))


@pytest.fixture(scope="module")
def turn_world(tmp_path_factory):
    folder = tmp_path_factory.mktemp("props")
    glb = two_bone_quad(folder / "turn.glb", {"turn": TURN_KEYS})
    return RawClip(glb, "turn"), write_asset(folder, glb, "turn", TURN_PHASES)


@given(start_h=st.floats(-180, 180), moves=st.lists(shifts, min_size=2, max_size=2),
       turns=st.lists(st.floats(-20, 20), min_size=2, max_size=2), dts=frame_times,
       rate=st.floats(0.5, 2.0))
@settings(derandomize=True, max_examples=25, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_real_warper_arrives_within_a_millimetre(base, turn_world, start_h, moves, turns, dts, rate):
    clip, asset = turn_world
    actor = load_actor(asset.model_path)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    ends = PhaseEnds(actor, base.render)
    try:
        actor.setH(start_h)
        phases = ref_phases(TURN_PHASES)
        goals, targets = [], []
        for phase, (end, end_rot), move, turn in zip(phases, natural_goals(clip, phases, np.zeros(3),
                                                                          hpr_matrix(start_h)), moves, turns):
            goal, goal_h = end + np.array(move), math.degrees(math.atan2(-end_rot[0, 1], end_rot[1, 1])) + turn
            target_h = goal_h - phase.r_offset[0]
            target_pos = goal - hpr_matrix(target_h) @ phase.t_offset
            targets.append(WarpTarget(Point3(*target_pos), h=target_h))
            goals.append((goal, hpr_matrix(goal_h)))
        warper.play(asset, targets, rate=rate)
        for i in range(2000):
            step(base, dts[i % len(dts)])
            pos = np.array(actor.getPos())
            assert np.all(np.isfinite(pos)), "non-finite position"
            if not warper.is_warping:
                break
        assert not warper.is_warping and len(ends.poses) == 2
        for (pos, rot), (goal, goal_rot) in zip(ends.poses, goals):
            assert np.linalg.norm(pos - goal) < 1e-3
            assert rotation_angle(rot, goal_rot) < 0.05
    finally:
        ends.ignoreAll()
        warper.destroy()
        actor.cleanup()
        actor.removeNode()
