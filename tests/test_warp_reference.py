"""The real warper on a real Actor against the independent reference of docs/design.md 4, every frame.

The oracle is `reference_warp`: the root's raw glTF keys and the contract, in plain numpy.
Tolerances: the baked tables and the Actor's transform are float32 (about 1e-7 relative,
so well under 1e-5 m on a few metres), and root motion between phases is accumulated by
relative `setPos` calls in float32. Measured: at most 1.1 um, 0.08 millidegrees, 4e-7 (play
rate, relative; from the float32 origin) and 1e-5 frames. Required: positions within 0.01 mm,
rotations within 0.001 degrees (nlerp instead of slerp is off by about 0.1 degree on these
turns), play rates within 1e-5 relative, clip frames within 1e-4.
"""
import json
import math
import random

import numpy as np
import pytest
from direct.showbase.DirectObject import DirectObject
from panda3d.core import Point3

from motionwarp import MotionWarper, WarpAsset, WarpRefused, WarpTarget, load_actor
from motionwarp.warp.warpmath import AxisWeights

from .conftest import MANNEQUIN, step
from .gltf_samples import two_bone_quad
from .reference_warp import RawClip, ReferenceWarp, RefPhase, hpr_matrix, rotation_angle, rot_z

POS_TOL_M = 1e-5
ROT_TOL_DEG = 1e-3
RATE_TOL = 1e-5


def _hitches(seed=5, count=400):
    """An irregular frame-time sequence: 30 to 90 fps with a hitch of 0.1 to 0.3 s now and then."""
    rng = random.Random(seed)
    return [rng.uniform(0.1, 0.3) if rng.random() < 0.06 else 1.0 / rng.uniform(30, 90) for _ in range(count)]


TIMINGS = {"24fps": [1 / 24] * 200, "60fps": [1 / 60] * 400, "144fps": [1 / 144] * 900, "hitches": _hitches()}

# A clip with sparse LINEAR keys that speeds up and slows down, rises and falls and turns 80 degrees,
# so a weight linear in time, a dropped slerp or a lost heading shows at once. Phase times fall
# between the frames the fixed frame rates land on: a frame that ends exactly on t0 (to the last
# bit) may start the phase one frame later in either, a tie the reference need not break alike.
TURN_KEYS = [("root", "translation", [0.0, 0.5, 1.1, 1.63],
              [[0, 0, 0], [0.3, 1.0, 0.4], [0.9, 2.0, 0.0], [1.4, 2.5, 0.0]]),
             ("root", "rotation", [0.0, 0.7, 1.63],
              [[math.cos(math.radians(h) / 2), 0, 0, math.sin(math.radians(h) / 2)] for h in (0.0, 35.0, 80.0)])]
TURN_PHASES = [{"name": "first", "start": 0.113, "end": 0.807, "t_offset": [0.1, -0.2, 0.05], "r_offset": [8.0, 0.0, 0.0],
                "min_rate": 0.6, "max_rate": 1.5},
               {"name": "second", "start": 1.013, "end": 1.507, "t_offset": [-0.15, 0.1, 0.0], "r_offset": [-5.0, 0.0, 0.0],
                "min_rate": 0.7, "max_rate": 1.4}]


# The shipped vault's phases, as authored (the shipped file is the demo tuner's to rewrite).
VAULT_PHASES = [{"name": "close_edge", "start": 0.0, "end": 0.7, "t_offset": [0.0, -0.38, -0.95], "min_rate": 0.5, "max_rate": 1.6},
                {"name": "far_edge", "start": 0.7, "end": 1.24, "t_offset": [0.0, 0.0138, -0.0959], "min_rate": 0.7, "max_rate": 1.4},
                {"name": "landing", "start": 1.24, "end": 1.5, "t_offset": [0.0, -0.18, 0.0], "min_rate": 0.7, "max_rate": 1.4}]


@pytest.fixture(scope="module")
def turn_glb(tmp_path_factory):
    return two_bone_quad(tmp_path_factory.mktemp("turn") / "turn.glb", {"turn": TURN_KEYS})


def write_asset(folder, model, clip, phases):
    """A private warp asset (never the shipped files, which the demo's tuner rewrites)."""
    path = folder / f"{clip}.warp.json"
    path.write_text(json.dumps({"format": "motionwarp.asset/1", "model": str(model), "clip": clip,
                                "root_joint": "root", "phases": phases}))
    return WarpAsset.load(path)


def ref_phases(phases):
    keys = ("t_offset", "r_offset", "min_rate", "max_rate", "axes", "warp_translation", "warp_rotation", "defer_rise",
            "warp_from")
    return [RefPhase(p["start"], p["end"], **{k: p[k] for k in keys if k in p}) for p in phases]


def natural_goals(clip, phases, pos, rot, scale=1.0):
    """Where each phase's root ends (pos, rotation) if nothing warps, phase after phase."""
    goals, frame = [], 0.0
    for phase in phases:
        move, turn = clip.relative(frame, phase.end * clip.fps)
        pos, rot = pos + rot @ move * scale, rot @ turn
        goals.append((pos, rot))
        frame = phase.end * clip.fps
    return goals


def targets_near_natural(clip, phases, pos, rot, shifts, turns, full_rotation=False, scale=1.0):
    """Targets whose goals (offsets applied) are the unwarped ends shifted and turned a little.

    Returns (WarpTargets for the warper, (pos, rotation) targets for the reference).
    """
    warper_targets, ref_targets = [], []
    for phase, (end, end_rot), shift, turn in zip(phases, natural_goals(clip, phases, pos, rot, scale), shifts, turns):
        goal_rot = rot_z(turn) @ end_rot
        goal = end + np.array(shift)
        target_rot = goal_rot @ hpr_matrix(*phase.r_offset).T
        target_pos = goal - target_rot @ phase.t_offset
        if full_rotation:  # tilt the target and keep its goal: r_offset then carries the tilt back
            hpr = _hpr_of(target_rot)
            warper_targets.append(WarpTarget(Point3(*target_pos), hpr=hpr))
            ref_targets.append((target_pos, hpr_matrix(*hpr)))
        else:
            h = math.degrees(math.atan2(-target_rot[0, 1], target_rot[1, 1]))
            warper_targets.append(WarpTarget(Point3(*target_pos), h=h))
            ref_targets.append((target_pos, hpr_matrix(h)))
    return warper_targets, ref_targets


def _hpr_of(m):
    """Panda3D HPR of a rotation matrix (pitch within +-90 degrees)."""
    p = math.degrees(math.asin(max(-1.0, min(1.0, m[2, 1]))))
    h = math.degrees(math.atan2(-m[0, 1], m[1, 1]))
    r = math.degrees(math.atan2(-m[2, 0], m[2, 2]))
    return (h, p, r)


class Comparison:
    """Steps the real warper and the reference together; records the largest differences.

    Panda3D ticks the clock at the end of the frame (igLoop, docs/design.md 9): the tasks of one
    `step` see the time the previous step ended on, so the reference advances by the
    previous step's dt, and the clip's clock frame after a step is one dt further on.
    """

    def __init__(self, base, actor, warper, asset, clip, phases, targets, ref_targets, dts, rate=1.0, scale=1.0):
        self.pos_err = self.rot_err = self.rate_err = self.frame_err = 0.0
        control = actor.getAnimControl(asset.clip)
        start_pos, start_rot = np.array(actor.getPos(base.render)), _rotation(actor, base.render)
        reference = ReferenceWarp(clip, phases, ref_targets, start_pos, start_rot, base_rate=rate, scale=scale)
        self.foreseen = warper.check(asset, targets, rate=rate)
        warper.play(asset, targets, rate=rate)
        self.frames, seen_dt = 0, 0.0
        for dt in dts:
            step(base, dt)
            frame, pos, rot, ref_rate = reference.advance(seen_dt)
            seen_dt = dt
            self.frames += 1
            self.pos_err = max(self.pos_err, float(np.linalg.norm(np.array(actor.getPos(base.render)) - pos)))
            self.rot_err = max(self.rot_err, rotation_angle(_rotation(actor, base.render), rot))
            self.rate_err = max(self.rate_err, abs(control.getPlayRate() / ref_rate - 1.0))
            if not reference.finished:
                next_frame = min(frame + dt * clip.fps * ref_rate, float(clip.num_frames))
                self.frame_err = max(self.frame_err, abs(control.getFullFframe() - next_frame))
            assert warper.is_warping != reference.finished, f"the warp and the reference disagree on frame {frame:.3f}"
            if reference.finished:
                break
        assert reference.finished, "the reference warp did not finish within the frame sequence"
        self.phase_rates = reference.phase_rates

    def check(self):
        assert self.pos_err < POS_TOL_M, f"position {self.pos_err * 1000:.4f} mm off the reference"
        assert self.rot_err < ROT_TOL_DEG, f"rotation {self.rot_err:.4f} degrees off the reference"
        assert self.rate_err < RATE_TOL, f"play rate {self.rate_err:.2e} (relative) off the reference"
        assert self.frame_err < 1e-4, f"clip frame {self.frame_err:.2e} off the reference"
        assert self.foreseen == pytest.approx(self.phase_rates, rel=RATE_TOL), "check() foresaw other phase rates"


def _rotation(nodepath, other):
    """Column-vector rotation matrix of a node relative to another (Panda3D matrices are row-vector),
    its uniform scale divided out."""
    m = np.array(nodepath.getMat(other), dtype=np.float64).reshape(4, 4)[:3, :3].T
    return m / np.cbrt(np.linalg.det(m))


def run_case(base, folder, model, clip_name, phase_data, shifts, turns, dts, start=((0, 0, 0), 0.0),
             rate=1.0, full_rotation=False, scale=1.0, batch=None):
    """`batch`: a WarpBatch that runs the warper's frames (None: the warper's own task)."""
    clip = RawClip(model, clip_name)
    asset = write_asset(folder, model, clip_name, phase_data)
    actor = load_actor(model)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    if batch is not None:
        batch.add(warper)
    try:
        actor.setPos(*start[0])
        actor.setH(start[1])
        actor.setScale(scale)
        phases = ref_phases(phase_data)
        start_rot = hpr_matrix(start[1])
        targets, ref_targets = targets_near_natural(clip, phases, np.array(start[0], float), start_rot,
                                                    shifts, turns, full_rotation, scale)
        result = Comparison(base, actor, warper, asset, clip, phases, targets, ref_targets, dts, rate, scale)
    finally:
        warper.destroy()
        actor.cleanup()
        actor.removeNode()
    result.check()
    return result


TURN_SHIFTS = [(0.25, 0.3, 0.15), (-0.2, 0.35, -0.1)]
TURN_TURNS = [14.0, -12.0]


@pytest.mark.parametrize("timing", sorted(TIMINGS))
def test_turning_clip_with_rotated_targets_and_offsets(base, tmp_path, turn_glb, timing):
    result = run_case(base, tmp_path, turn_glb, "turn", TURN_PHASES, TURN_SHIFTS, TURN_TURNS, TIMINGS[timing],
                      start=((1.5, -2.0, 0.3), 40.0))
    assert len(result.phase_rates) == 2 and result.phase_rates != [1.0, 1.0]


@pytest.mark.parametrize("timing", sorted(TIMINGS))
def test_vault_with_rotated_targets_and_offsets(base, tmp_path, timing):
    data = [dict(VAULT_PHASES[0], r_offset=[6.0, 0.0, 0.0]), VAULT_PHASES[1], dict(VAULT_PHASES[2], t_offset=[0.2, -0.1, 0.0])]
    shifts = [(0.1, 0.3, 0.2), (0.05, 0.2, 0.2), (-0.1, 0.4, 0.0)]
    run_case(base, tmp_path, MANNEQUIN, "vault", data, shifts, [10.0, 5.0, -8.0], TIMINGS[timing],
             start=((-1.0, 0.5, 0.0), -125.0))


@pytest.mark.parametrize("timing", ["60fps", "hitches"])
@pytest.mark.parametrize("lift", [0.4, -0.3])
def test_vault_that_defers_its_rise(base, tmp_path, timing, lift):
    """`defer_rise` (design 4): a close edge higher than the clip's is risen to in far_edge, from the
    lower origin the run-up ends on; a lower one is warped down in the run-up as before."""
    data = [dict(VAULT_PHASES[0], defer_rise=True), VAULT_PHASES[1], dict(VAULT_PHASES[2], t_offset=[0.2, -0.1, 0.0])]
    shifts = [(0.1, 0.3, lift), (0.05, 0.2, lift), (-0.1, 0.4, 0.0)]
    run_case(base, tmp_path, MANNEQUIN, "vault", data, shifts, [10.0, 5.0, -8.0], TIMINGS[timing],
             start=((-1.0, 0.5, 0.0), -125.0))


def test_the_reference_defers_only_a_rise(tmp_path):
    """The oracle itself, against the raw clip: with a deferred rise the run-up ends at the clip's own
    height over a higher close edge, and on the edge's lower height over a lower one."""
    clip = RawClip(MANNEQUIN, "vault")
    phases = ref_phases([dict(VAULT_PHASES[0], defer_rise=True), *VAULT_PHASES[1:]])
    start, rot = np.zeros(3), hpr_matrix(0.0)
    natural = natural_goals(clip, phases, start, rot)
    for lift, ends_at in ((0.4, natural[0][0][2]), (-0.3, natural[0][0][2] - 0.3)):
        targets = [(end + np.array([0.0, 0.0, lift if index < 2 else 0.0]) - end_rot @ phase.t_offset, end_rot)
                   for index, (phase, (end, end_rot)) in enumerate(zip(phases, natural))]
        reference = ReferenceWarp(clip, phases, targets, start, rot)
        while reference.index == 0:
            reference.advance(1 / 60)
        assert reference.pos[2] == pytest.approx(ends_at, abs=0.05), "the run-up's height"
        assert reference.anchor[0][2] == pytest.approx(ends_at, abs=1e-9)
        while not reference.finished:
            reference.advance(1 / 60)
        assert reference.pos[2] == pytest.approx(natural[2][0][2], abs=1e-9), "the landing is not on the ground"


@pytest.mark.parametrize("timing", ["60fps", "hitches"])
@pytest.mark.parametrize("shift", [(0.05, 0.6, 0.1), (0.0, -0.45, 0.0)])
def test_vault_whose_far_edge_warps_from_the_hands_release(base, tmp_path, timing, shift):
    """`warp_from` (design 4, Held warp): far_edge follows the clip from its origin while the hands hold
    the close edge (to 0.98 s), then warps to a far edge farther (and higher) or nearer than authored."""
    data = [VAULT_PHASES[0], dict(VAULT_PHASES[1], warp_from=0.98), VAULT_PHASES[2]]
    shifts = [(0.1, 0.3, 0.2), (0.1 + shift[0], 0.3 + shift[1], 0.2 + shift[2]), (0.1 + shift[0], 0.3 + shift[1], 0.0)]
    run_case(base, tmp_path, MANNEQUIN, "vault", data, shifts, [10.0, 5.0, -8.0], TIMINGS[timing],
             start=((-1.0, 0.5, 0.0), -125.0))


@pytest.mark.parametrize("timing", ["60fps", "hitches"])
def test_a_turning_clip_warped_from_inside_its_phases(base, tmp_path, turn_glb, timing):
    """Held warp on a clip that moves on every axis and turns: both phases warp only from inside them."""
    phases = [dict(TURN_PHASES[0], warp_from=0.45), dict(TURN_PHASES[1], warp_from=1.2)]
    run_case(base, tmp_path, turn_glb, "turn", phases, TURN_SHIFTS, TURN_TURNS, TIMINGS[timing],
             start=((1.5, -2.0, 0.3), 40.0))


def test_held_weights_are_zero_until_warp_from_then_follow_the_clip_from_there(warp_assets):
    """`AxisWeights` of the vault's far_edge (warp_from 0.98 s) against the contract, from the raw clip:
    an axis trusted to the clip's travel has w = (S(f) - S(h)) / (S(f1) - S(h)) (the GLB's keys, tests/
    reference_warp.py), one trusted to time smoothstep((f - h) / (f1 - h)); both 0 up to h and 1 at f1."""
    phase = warp_assets["vault"].phases[1]
    clip = RawClip(MANNEQUIN, "vault")
    f0, h, f1 = phase.start * clip.fps, phase.warp_from * clip.fps, phase.end * clip.fps
    weights = AxisWeights(phase.motion, (0.0, 1.0, 1.0))
    held = clip.travel(f0, h)   # S in the origin frame (at f0), as D is
    total = clip.travel(f0, f1) - held
    for frame in np.linspace(f0, f1, 23):
        travel = clip.travel(f0, frame) - held if frame > h else np.zeros(3)
        u = min(max((frame - h) / (f1 - h), 0.0), 1.0)
        expected = (u * u * (3 - 2 * u), travel[1] / total[1], travel[2] / total[2])
        assert weights(frame) == pytest.approx(expected, abs=1e-6), frame


def test_the_reference_holds_the_warp_until_warp_from():
    """The oracle itself, against the raw clip: with `warp_from` the root is where the clip alone takes it
    from far_edge's origin until 0.98 s (to the last bit), and the phase still ends on its goal."""
    clip = RawClip(MANNEQUIN, "vault")
    phases = ref_phases([VAULT_PHASES[0], dict(VAULT_PHASES[1], warp_from=0.98), VAULT_PHASES[2]])
    start, rot = np.zeros(3), hpr_matrix(0.0)
    natural = natural_goals(clip, phases, start, rot)
    farther = np.array([0.1, 0.6, 0.15])
    targets = [(end + (farther if index == 1 else np.zeros(3)) - end_rot @ phase.t_offset, end_rot)
               for index, (phase, (end, end_rot)) in enumerate(zip(phases, natural))]
    reference = ReferenceWarp(clip, phases, targets, start, rot)
    while reference.index == 0:
        reference.advance(1 / 60)
    origin, f0 = reference.anchor[0], 0.7 * clip.fps
    held = 0
    while reference.index == 1:
        frame, pos, _, _ = reference.advance(1 / 60)
        if reference.index == 1 and frame <= 0.98 * clip.fps:
            assert np.allclose(pos, origin + clip.displacement(f0, frame), atol=1e-12), frame
            held += 1
    assert held >= 10
    assert np.allclose(reference.anchor[0], natural[1][0] + farther, atol=1e-9), "far_edge does not end on its goal"


def test_full_rotation_target(base, tmp_path, turn_glb):
    phases = [dict(p, r_offset=[p["r_offset"][0], 7.0, -4.0]) for p in TURN_PHASES]
    run_case(base, tmp_path, turn_glb, "turn", phases, TURN_SHIFTS, TURN_TURNS, TIMINGS["60fps"],
             start=((0.0, 0.0, 0.0), 200.0), full_rotation=True)


@pytest.mark.parametrize("axes", ["x", "y", "z", "xy", "xz", "yz"])
def test_axes_subset(base, tmp_path, turn_glb, axes):
    phases = [dict(p, axes=axes) for p in TURN_PHASES]
    run_case(base, tmp_path, turn_glb, "turn", phases, TURN_SHIFTS, TURN_TURNS, TIMINGS["hitches"],
             start=((0.5, 0.5, 0.0), -30.0))


@pytest.mark.parametrize("flag", ["warp_translation", "warp_rotation"])
def test_warp_switched_off(base, tmp_path, turn_glb, flag):
    phases = [dict(p, **{flag: False}) for p in TURN_PHASES]
    run_case(base, tmp_path, turn_glb, "turn", phases, TURN_SHIFTS, TURN_TURNS, TIMINGS["60fps"],
             start=((0.0, 1.0, 0.0), 75.0))


@pytest.mark.parametrize("rate", [0.6, 1.7])
def test_base_play_rate(base, tmp_path, turn_glb, rate):
    run_case(base, tmp_path, turn_glb, "turn", TURN_PHASES, TURN_SHIFTS, TURN_TURNS, TIMINGS["hitches"],
             start=((0.0, 0.0, 0.0), 10.0), rate=rate)


@pytest.mark.parametrize("scale", [0.6, 1.5])
def test_scaled_character(base, tmp_path, turn_glb, scale):
    """Root motion is in model space: a scaled character moves (and is warped) in proportion."""
    run_case(base, tmp_path, turn_glb, "turn", TURN_PHASES, TURN_SHIFTS, TURN_TURNS, TIMINGS["hitches"],
             start=((0.3, -0.2, 0.0), 25.0), scale=scale)


@pytest.mark.parametrize("scale", [0.6, 1.5])
def test_scaled_vault_with_hitches(base, tmp_path, scale):
    """The mannequin's vault, scaled, turned and offset, at irregular frame times."""
    data = [dict(VAULT_PHASES[0], r_offset=[6.0, 0.0, 0.0]), VAULT_PHASES[1], dict(VAULT_PHASES[2], t_offset=[0.2, -0.1, 0.0])]
    shifts = [(0.1, 0.3, 0.2), (0.05, 0.2, 0.2), (-0.1, 0.4, 0.0)]
    run_case(base, tmp_path, MANNEQUIN, "vault", data, shifts, [10.0, 5.0, -8.0], TIMINGS["hitches"],
             start=((-1.0, 0.5, 0.0), -125.0), scale=scale)


def test_target_across_the_180_degree_seam(base, tmp_path, turn_glb):
    """Start facing 170 degrees and end past 180: the rotation must take the short way round."""
    run_case(base, tmp_path, turn_glb, "turn", TURN_PHASES, TURN_SHIFTS, [-15.0, 20.0], TIMINGS["60fps"],
             start=((0.0, 0.0, 0.0), 170.0))


def test_phase_where_the_clip_stands_still(base, tmp_path):
    """A phase over still frames: play rate 1, and the time weight carries the whole warp."""
    glb = two_bone_quad(tmp_path / "pause.glb", {"pause": [
        ("root", "translation", [0.0, 0.6, 1.2], [[0, 0, 0], [0, 0, 0], [0, 1.5, 0]])]})
    phases = [{"name": "wait", "start": 0.05, "end": 0.55, "min_rate": 0.5, "max_rate": 2.0},
              {"name": "go", "start": 0.7, "end": 1.2, "min_rate": 0.5, "max_rate": 2.0}]
    result = run_case(base, tmp_path, glb, "pause", phases, [(0.3, 0.2, 0.1), (0.1, 0.3, 0.0)], [10.0, -5.0],
                      TIMINGS["hitches"])
    assert result.phase_rates[0] == 1.0 and result.phase_rates[1] != 1.0


REACH_SCALE, REACH_H = 1.5, 20.0


@pytest.fixture
def scaled_rig(base, turn_glb):
    """The turning clip's actor scaled by REACH_SCALE and facing REACH_H, with its warper."""
    actor = load_actor(turn_glb)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    actor.setH(REACH_H)
    actor.setScale(REACH_SCALE)
    yield RawClip(turn_glb, "turn"), warper
    warper.destroy()
    actor.cleanup()
    actor.removeNode()


def phase_reach(clip, phase):
    """Where the scaled, turned clip starts `phase`, its move over the phase, and its rotation at the end."""
    f0, f1 = phase["start"] * clip.fps, phase["end"] * clip.fps
    move, turn = clip.relative(0.0, f0)
    start, start_rot = hpr_matrix(REACH_H) @ move * REACH_SCALE, hpr_matrix(REACH_H) @ turn
    return start, start_rot @ clip.displacement(f0, f1) * REACH_SCALE, start_rot @ clip.relative(f0, f1)[1]


def target_for(phase, goal, end_rot, turn=0.0):
    """The WarpTarget whose goal (offsets applied) is `goal`, facing the clip's end turned by `turn`."""
    rot = rot_z(turn) @ end_rot @ hpr_matrix(*phase["r_offset"]).T
    pos = goal - rot @ np.array(phase["t_offset"])
    return [WarpTarget(Point3(*pos), h=math.degrees(math.atan2(-rot[0, 1], rot[1, 1])))]


def test_refusals_measure_from_where_the_scaled_clip_starts_the_phase(scaled_rig, tmp_path, turn_glb):
    """Reach limits count the clip's motion before the phase (2 m and a 35 degree turn here) and
    the character's scale: 2.99 times the scaled clip's distance (limit 3) and 70 degrees more turn
    (limit 75) are allowed, a target behind is not, and a phase that does not warp translation has
    no distance limit."""
    clip, warper = scaled_rig
    phase = TURN_PHASES[1]
    start, reach, end_rot = phase_reach(clip, phase)
    asset = write_asset(tmp_path, turn_glb, "turn", [phase])
    for allowed in (target_for(phase, start + reach * 2.99, end_rot), target_for(phase, start + reach, end_rot, 70.0)):
        warper.play(asset, allowed)
        warper.cancel()
    with pytest.raises(WarpRefused, match="turn"):
        warper.play(asset, target_for(phase, start + reach, end_rot, 80.0))
    with pytest.raises(WarpRefused, match="behind"):
        warper.play(asset, target_for(phase, start - reach * 0.3, end_rot))
    with pytest.raises(WarpRefused, match="ratio"):
        warper.play(asset, target_for(phase, start + reach * 3.2, end_rot))
    free = dict(phase, warp_translation=False)
    warper.play(write_asset(tmp_path, turn_glb, "turn", [free]), target_for(free, start + reach * 5.0, end_rot))
    warper.cancel()


@pytest.mark.parametrize("back_m, refused", [(0.015, False), (0.025, True)])
def test_behind_is_metres_along_the_clip(scaled_rig, tmp_path, turn_glb, back_m, refused):
    """A target to the side is fine until it is more than motionwarp-still-axis (2 cm) behind the
    phase start along the clip's direction, whatever the clip's length (2 m here)."""
    clip, warper = scaled_rig
    phase = TURN_PHASES[0]
    start, reach, end_rot = phase_reach(clip, phase)
    flat = reach * np.array([1.0, 1.0, 0.0])
    direction = flat / np.linalg.norm(flat)
    side = np.cross([0.0, 0.0, 1.0], direction) * np.linalg.norm(flat)
    asset = write_asset(tmp_path, turn_glb, "turn", [phase])
    targets = target_for(phase, start + side - direction * back_m, end_rot)
    if refused:
        with pytest.raises(WarpRefused, match="behind"):
            warper.play(asset, targets)
    else:
        warper.play(asset, targets)
        warper.cancel()


def test_aligned_joint_of_a_scaled_character_lands_on_its_target(base, tmp_path):
    """align_joint aims the joint, not the root, at the target; its offset scales with the character."""
    glb = two_bone_quad(tmp_path / "aligned.glb", {"turn": TURN_KEYS + [
        ("bone", "translation", [0.0, 1.63], [[0.2, 0.3, 1.2], [0.2, 0.3, 1.2]])]})
    phase = dict(TURN_PHASES[0], t_offset=[0.0, 0.0, 0.0], r_offset=[0.0, 0.0, 0.0], align_joint="bone")
    clip = RawClip(glb, "turn")
    start, reach, end_rot = phase_reach(clip, phase)
    hand = start + reach + end_rot @ np.array([0.2, 0.3, 1.2]) * REACH_SCALE + np.array([0.2, 0.25, 0.1])
    actor = load_actor(glb)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    bone = actor.exposeJoint(None, "modelRoot", "bone")
    landed, listener = [], DirectObject()
    listener.accept("motionwarp-phase-end", lambda *args: landed.append(np.array(bone.getPos(base.render))))
    try:
        actor.setH(REACH_H)
        actor.setScale(REACH_SCALE)
        warper.play(write_asset(tmp_path, glb, "turn", [phase]), target_for(phase, hand, end_rot))
        for _ in range(200):
            step(base, 1 / 60)
            if not warper.is_warping:
                break
        assert len(landed) == 1 and np.linalg.norm(landed[0] - hand) < 1e-4
    finally:
        listener.ignoreAll()
        warper.destroy()
        actor.cleanup()
        actor.removeNode()


def test_reference_hpr_matches_panda():
    """The reference's HPR convention is Panda3D's (checked once, against Panda3D itself)."""
    from panda3d.core import NodePath
    node = NodePath("probe")
    for hpr in [(30, 0, 0), (0, 25, 0), (0, 0, 40), (200, -35, 75)]:
        node.setHpr(*hpr)
        assert rotation_angle(_rotation(node, NodePath()), hpr_matrix(*hpr)) < 1e-4
