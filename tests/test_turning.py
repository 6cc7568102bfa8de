"""Rotation modes and limits of a phase (issue 30; docs/design.md 4, Rotation), measured from the
actor's real transform frame by frame. Expected headings come from the test's own geometry: the
direction from where the actor really is to the target point, and design 4's formulas."""
import math

import pytest
from panda3d.core import Point3, Vec3

from motionwarp import PHASE_END, AssetError, WarpAsset, WarpRefused, WarpTarget
from motionwarp.warp.warpmath import angle_between

from .conftest import MANNEQUIN, step

FPS = 60


def walk_asset(**phase):
    """A one-phase asset on the mannequin's walk (1.4 m straight ahead in 1 s, no turn of its own)."""
    return WarpAsset.from_dict({"format": "motionwarp.asset/1", "model": str(MANNEQUIN), "clip": "walk",
                                "root_joint": "root",
                                "phases": [{"name": "approach", "start": 0.0, "end": 1.0, **phase}]})


def heading_of(quat):
    """The heading (degrees) the rotation's forward axis (+Y) points to over the ground."""
    forward = quat.xform(Vec3(0, 1, 0))
    return math.degrees(math.atan2(-forward[0], forward[1]))


def facing_heading(pos, point):
    """Heading from `pos` to `point` over the ground, from the geometry alone."""
    return math.degrees(math.atan2(-(point[0] - pos[0]), point[1] - pos[1]))


def off(a, b):
    """|a - b| in degrees, around the circle."""
    return abs((a - b + 180.0) % 360.0 - 180.0)


class Frames:
    """Plays a warp and keeps, every frame of its phase and at the phase's exact end (PHASE_END finds
    the actor there), the clip frame, the actor's position and rotation."""

    def __init__(self, base, rig, asset, targets, fps=FPS):
        actor, warper = rig
        self.samples, self.ends = [], []
        base.accept(PHASE_END, lambda *args: self.ends.append((Point3(actor.getPos()), actor.getQuat())))
        self.warp = warper.play(asset, targets)
        self.dts = []
        while warper.is_warping and len(self.dts) < 10 * fps:
            step(base, 1.0 / fps)
            self.dts.append(1.0 / fps)
            if self.warp.in_phase or not self.samples:
                self.samples.append((self.warp.frame, Point3(actor.getPos()), actor.getQuat()))
        base.ignore(PHASE_END)
        assert self.ends, "the phase never ended"


@pytest.mark.parametrize("fps", [30, 60, 144])
def test_facing_ends_facing_the_point_at_any_frame_rate(base, rig, fps):
    point = Point3(1.0, 2.2, 0.0)
    # The root warps to 0.7 m before the point in the target's frame (turned -30 degrees).
    asset = walk_asset(rotation="facing", t_offset=[0.0, -0.7, 0.0], rotation_time=0.5, max_rate=1.6)
    run = Frames(base, rig, asset, [WarpTarget(point, h=-30.0)], fps)
    pos, quat = run.ends[0]
    assert off(heading_of(quat), facing_heading(pos, point)) < 0.1
    # From half the phase on (rotation_time 0.5) every frame faces the point from where the actor is.
    late = [(p, q) for frame, p, q in run.samples if frame / 30.0 >= 0.5]
    assert len(late) >= fps // 4
    assert max(off(heading_of(q), facing_heading(p, point)) for p, q in late) < 0.1
    # Before it, the turn was still under way: the early frames do not face it yet.
    assert off(heading_of(run.samples[0][2]), facing_heading(run.samples[0][1], point)) > 5.0


def test_opposite_facing_turns_the_back_to_the_point(base, rig):
    point = Point3(0.0, 0.8, 0.0)
    asset = walk_asset(rotation="opposite_facing", t_offset=[0.3, 0.8, 0.0], max_rate=1.6)
    # The root passes the point and ends 0.85 m beyond it, its back to it (about 20 degrees left).
    run = Frames(base, rig, asset, [WarpTarget(point)])
    pos, quat = run.ends[0]
    assert off(heading_of(quat), facing_heading(pos, point) + 180.0) < 0.1


def test_facing_keeps_the_last_facing_near_the_point(base, rig):
    """The root ends on the point itself: within facing_min_distance of it the direction means nothing,
    and the actor keeps the facing it had from the last frame it was farther."""
    point = Point3(0.6, 1.4, 0.0)
    asset = walk_asset(rotation="facing", rotation_time=0.3, facing_min_distance=0.3, max_rate=1.6)
    run = Frames(base, rig, asset, [WarpTarget(point)])
    far = [(p, q) for frame, p, q in run.samples if frame / 30.0 >= 0.3
           and math.hypot(point[0] - p[0], point[1] - p[1]) >= 0.3]
    near = [(p, q) for frame, p, q in run.samples if math.hypot(point[0] - p[0], point[1] - p[1]) < 0.3]
    near.append(run.ends[0])
    assert far and len(near) >= 5
    last_facing = facing_heading(*[far[-1][0], point])
    assert off(heading_of(far[-1][1]), last_facing) < 0.1
    for pos, quat in near:
        assert off(heading_of(quat), last_facing) < 0.1
    # The rule matters here: from the end point the direction to the point is nowhere (0 m).
    assert (run.ends[0][0] - point).length() < 1e-3


@pytest.mark.parametrize("fps", [30, 60, 144])
def test_turn_rate_cap_holds_every_frame_and_still_arrives(base, rig, fps):
    cap = 120.0
    point = Point3(-1.6, 1.6, 0.0)   # about 55 degrees to the left of the walk's end
    asset = walk_asset(rotation="facing", t_offset=[0.0, -0.5, 0.0], rotation_time=0.1, max_turn_rate=cap,
                       max_rate=1.6)
    run = Frames(base, rig, asset, [WarpTarget(point, h=55.0)], fps)
    quats = [q for _, _, q in run.samples]
    steps = [angle_between(a, b) for a, b in zip(quats, quats[1:])]
    # A frame's turn: at most the cap times the frame's seconds (the phase plays at its rate scale;
    # the game's time is the frame's dt).
    assert max(steps) <= cap / fps + 1e-3
    assert max(steps) > 0.9 * cap / fps, "the cap never bound: the test asks too small a turn"
    pos, quat = run.ends[0]
    assert off(heading_of(quat), facing_heading(pos, point)) < 0.1


def test_a_tight_cap_ends_the_phase_short_of_the_turn(base, rig):
    """20 deg/s over a 1 s phase at rate 1: the turn is 20 degrees (within one frame's turn), not the
    60 the facing wants; the position still arrives."""
    actor, _ = rig
    start = actor.getQuat()
    asset = walk_asset(rotation="facing", t_offset=[0.0, -0.8, 0.0], max_turn_rate=20.0)
    run = Frames(base, rig, asset, [WarpTarget(Point3(-2.0, 1.5, 0.0), h=60.0)])
    result = run.warp.results[0]
    assert result.play_rate == pytest.approx(1.0)
    assert abs(angle_between(start, run.ends[0][1]) - 20.0) <= 20.0 / FPS
    assert (result.arrived - result.target).length() < 1e-3
    assert angle_between(result.arrived_quat, result.target_quat) > 30.0   # the report shows the turn left


@pytest.mark.parametrize("fraction", [0.25, 0.6])
def test_rotation_time_finishes_a_target_turn_early(base, rig, fraction):
    """rotation "target": heading(u) = 40 * min(u / rotation_time, 1) (a slerp between headings
    turns linearly), read from the actor every frame."""
    asset = walk_asset(rotation_time=fraction, max_rate=1.6)
    run = Frames(base, rig, asset, [WarpTarget(Point3(0.0, 1.4, 0.0), h=40.0)])
    for frame, _, quat in run.samples:
        expected = 40.0 * min(frame / 30.0 / fraction, 1.0)
        assert off(heading_of(quat), expected) < 0.05, frame
    assert off(heading_of(run.ends[0][1]), 40.0) < 0.01


def test_a_facing_turn_past_max_turn_deg_is_refused(base, rig):
    actor, warper = rig
    asset = walk_asset(rotation="facing", t_offset=[0.0, -0.5, 0.0], max_rate=1.6)
    # The goal lies ahead, but the point is to its right and behind: 120 degrees of turn.
    target = WarpTarget(Point3(1.0, 1.2, 0.0), h=-120.0)
    with pytest.raises(WarpRefused, match="needs a 120 degree turn"):
        warper.play(asset, [target])


@pytest.mark.parametrize("phase, message", [
    ({"rotation": "face"}, r"phases\[0\]\.rotation: expected one of 'target', 'facing', 'opposite_facing', got 'face'"),
    ({"rotation": "facing", "warp_rotation": False}, r"phases\[0\]\.rotation: expected 'target' when warp_rotation is false"),
    ({"rotation": "facing", "align_joint": "hand_r"}, r"phases\[0\]\.rotation: expected 'target' with an align_joint"),
    ({"rotation_time": 0}, r"phases\[0\]\.rotation_time: expected the fraction .* 0 < rotation_time <= 1, got 0"),
    ({"rotation_time": 1.5}, r"phases\[0\]\.rotation_time: .* got 1\.5"),
    ({"max_turn_rate": -5}, r"phases\[0\]\.max_turn_rate: expected degrees per second with 0 < max_turn_rate "
                            r"\(or null: no limit\), got -5"),
    ({"facing_min_distance": -0.1}, r"phases\[0\]\.facing_min_distance: expected metres over the ground with "
                                    r"0 <= facing_min_distance, got -0\.1"),
    ({"facing_min_distance": None}, r"phases\[0\]\.facing_min_distance: .* got None"),
    ({"max_turn_rate": True}, r"phases\[0\]\.max_turn_rate: .* got True"),
])
def test_bad_rotation_fields_are_named(phase, message):
    with pytest.raises(AssetError, match=message):
        walk_asset(**phase)


def test_rotation_fields_round_trip_and_defaults_stay_out(tmp_path):
    asset = walk_asset(rotation="facing", rotation_time=0.4, max_turn_rate=540, facing_min_distance=0.2)
    saved = asset.to_dict()["phases"][0]
    assert {key: saved[key] for key in ("rotation", "rotation_time", "max_turn_rate", "facing_min_distance")} == \
        {"rotation": "facing", "rotation_time": 0.4, "max_turn_rate": 540.0, "facing_min_distance": 0.2}
    plain = walk_asset().to_dict()["phases"][0]
    assert not {"rotation", "rotation_time", "max_turn_rate", "facing_min_distance"} & set(plain)
    path = tmp_path / "strike.warp.json"
    asset.save(path)
    assert WarpAsset.load(path).phases[0].max_turn_rate == 540.0


@pytest.mark.parametrize("loop", ["idle", "run"])
def test_a_blended_facing_phase_still_ends_facing_the_point(base, loop):
    """With a blend-in (docs/design.md 4, Blends) the other clip's turn and motion share the first
    frames; the blended step's rotation still ends facing the point from where the actor is."""
    from .test_warp_blend import BlendRig
    rig = BlendRig(base, loop=loop, blend_in=0.3)
    try:
        point = Point3(0.9, 2.0, 0.0)
        asset = walk_asset(rotation="facing", t_offset=[0.0, -0.6, 0.0], rotation_time=0.8, max_rate=1.6)
        rig.play(asset, [WarpTarget(point, h=-25.0)])
        rig.run()
        (_, _, _, pos, quat, _), = [e for e in rig.events if e[0] == PHASE_END]
        assert rig.names()[-1] == "motionwarp-finished"
        assert off(heading_of(quat), facing_heading(pos, point)) < 0.1
        assert max(frame["effect"] for frame in rig.frames) == pytest.approx(1.0)
    finally:
        rig.destroy()
