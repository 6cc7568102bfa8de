"""MotionWarper on the real mannequin clips: exact arrival, rates, events, refusals."""
import itertools
import re

import numpy as np
import pytest
from panda3d.core import Point3, Vec3

from motionwarp import MotionWarper, WarpRefused, WarpTarget, load_actor
from motionwarp.warp.warpmath import angle_between

from .conftest import MANNEQUIN, step
from .warp_helpers import WarpRun, clip_max_speed, clip_rise, ledge_targets, vault_targets

MANTLES = ("mantle", "mantle_high")

HEIGHTS = [0.5, 0.8, 1.0, 1.2, 1.4]
DEPTHS = [0.2, 0.6, 1.2]
DISTANCES = [0.5, 1.0, 1.6]  # times the authored 1.0 m to the near face
LEDGES = [1.0, 1.3, 1.6, 1.9, 2.2]
LEDGE_DISTANCES = [0.45, 0.5, 0.6]  # authored: 0.5 m; the clip steps only 0.1 m before it grabs
TIMINGS = [(20, None), (60, None), (144, None), (60, 7)]  # (fps, hitch seed)


@pytest.fixture
def vault(warp_assets):
    return warp_assets["vault"]


def assert_exact_arrival(run):
    assert run.finished, "the warp did not finish"
    for phase, result in zip(run.asset.phases, run.warp.results):
        error_m = np.linalg.norm(result.arrived - result.target)
        error_deg = angle_between(result.arrived_quat, result.target_quat)
        assert error_m < 1e-3, f"{phase.name}: {error_m * 1000:.2f} mm off"
        assert error_deg < 0.1, f"{phase.name}: {error_deg:.3f} degrees off"


def test_a_vault_over_a_higher_top_rises_after_the_run_up(base, rig, vault):
    """design 4, Deferred rise: over a top 0.3 m higher than authored, the shipped vault's close_edge
    ends at the height the clip itself rises to from where it started (the feet stay on the ground),
    and far_edge still ends on its target, the rise carried there; the landing is on the ground."""
    actor, warper = rig
    actor.setPos(0.0, 0.0, 0.1)
    targets = [WarpTarget(target.pos + Vec3(0, 0, 0.1)) for target in vault_targets(1.27, 0.6, 1.0)]
    run = WarpRun(base, warper, vault, targets)
    close, far, landing = run.warp.results
    assert vault.phases[0].defer_rise
    assert close.arrived.z == pytest.approx(0.1 + clip_rise(vault, vault.phases[0]), abs=1e-4)
    assert close.target.z == pytest.approx(close.arrived.z, abs=1e-4)
    assert (close.arrived.x, close.arrived.y) == pytest.approx(tuple(np.add(targets[0].pos, vault.phases[0].t_offset))[:2],
                                                               abs=1e-4)
    assert tuple(far.arrived) == pytest.approx(tuple(np.add(targets[1].pos, vault.phases[1].t_offset)), abs=1e-4)
    assert tuple(landing.arrived) == pytest.approx(tuple(np.add(targets[2].pos, vault.phases[2].t_offset)), abs=1e-4)


def assert_ends_where_the_clip_takes_it_after_the_last_phase(run):
    """Independent of the warper's own record: the actor's final place is the last target plus
    the clip's unwarped root motion from the last phase's end to the clip's end."""
    track, last = run.asset.track, run.asset.phases[-1]
    rest = track.positions[-1] - track.position(last.end * track.fps)
    quat = run.warp.results[-1].target_quat
    expected = run.warp.results[-1].target + np.array(quat.xform(Vec3(*rest)))
    assert np.linalg.norm(np.array(run.warper.actor.getPos()) - expected) < 1e-3


def assert_rates_follow_the_formula(run, base_rate=1.0):
    for index, (phase, result) in enumerate(zip(run.asset.phases, run.warp.results)):
        anim = np.linalg.norm(phase.motion.end_displacement)
        actual = np.linalg.norm(result.target - result.origin)
        expected = min(max(anim / actual, phase.min_rate), phase.max_rate) if anim > 0.02 else 1.0
        assert phase.min_rate <= result.play_rate <= phase.max_rate
        assert result.play_rate == pytest.approx(expected, rel=1e-6)
        seen = {rate for i, rate in run.rates if i == index}
        assert seen and all(r == pytest.approx(base_rate * expected, rel=1e-5) for r in seen)


@pytest.mark.parametrize("fps, hitch_seed", TIMINGS)
def test_vault_arrives_exactly_on_every_box(base, rig, fps, hitch_seed, vault):
    actor, warper = rig
    for height, depth, distance in itertools.product(HEIGHTS, DEPTHS, DISTANCES):
        actor.setPosHpr(0, 0, 0, 0, 0, 0)
        run = WarpRun(base, warper, vault, vault_targets(height, depth, distance), fps, hitch_seed)
        assert_exact_arrival(run)
        assert_ends_where_the_clip_takes_it_after_the_last_phase(run)
        assert_rates_follow_the_formula(run)


@pytest.mark.parametrize("name", MANTLES)
@pytest.mark.parametrize("fps, hitch_seed", TIMINGS)
def test_mantle_arrives_exactly_on_every_ledge(base, rig, name, fps, hitch_seed, warp_assets):
    actor, warper = rig
    for height, distance in itertools.product(LEDGES, LEDGE_DISTANCES):
        actor.setPosHpr(0, 0, 0, 0, 0, 0)
        run = WarpRun(base, warper, warp_assets[name], ledge_targets(height, distance), fps, hitch_seed)
        assert_exact_arrival(run)
        assert_rates_follow_the_formula(run)
        # It ends standing on the ledge top, past the edge.
        assert actor.getZ() == pytest.approx(height, abs=0.01)
        assert actor.getY() > distance + 0.2


def test_turned_course_and_turned_start(base, rig, vault):
    actor, warper = rig
    actor.setPosHpr(0, 0, 0, 15, 0, 0)
    run = WarpRun(base, warper, vault, vault_targets(1.1, 0.5, 1.2, h=30.0), 60, hitch_seed=3)
    assert_exact_arrival(run)


def test_results_are_panda3d_points_and_quats(base, rig, vault):
    """design 11: a PhaseResult's points are Point3s and rotations Quats (so `(r.arrived - r.target).length()`
    works), and no longer subscripts (`result["name"]`, 0.1.0's shim, is gone in 0.2.0); the target is the
    test's own point plus the phase's t_offset
    (heading 0: no turn), and the first phase starts where the actor stood."""
    from panda3d.core import Quat
    actor, warper = rig
    actor.setPos(0.3, -0.2, 0)
    targets = vault_targets(0.9, 0.6, 1.0)   # lower than authored: the close edge's drop is warped (no deferred rise)
    run = WarpRun(base, warper, vault, targets)
    assert run.finished
    assert run.warp.results[0].origin == Point3(0.3, -0.2, 0)
    for phase, target, result in zip(vault.phases, targets, run.warp.results, strict=True):
        assert result.name == phase.name
        with pytest.raises(TypeError):
            result["name"]
        assert all(type(getattr(result, f)) is Point3 for f in ("origin", "target", "arrived")), phase.name
        assert type(result.target_quat) is Quat and type(result.arrived_quat) is Quat
        assert tuple(result.target) == pytest.approx(np.add(target.pos, phase.t_offset), abs=1e-5)
        assert (result.arrived - result.target).length() < 1e-3
        assert result.arrived_quat.getHpr()[0] == pytest.approx(0.0, abs=0.1)


def test_no_velocity_spike(base, rig, vault):
    actor, warper = rig
    clip_speed = clip_max_speed(vault.track)
    for height, depth, distance in itertools.product(HEIGHTS, DEPTHS, DISTANCES):
        actor.setPosHpr(0, 0, 0, 0, 0, 0)
        run = WarpRun(base, warper, vault, vault_targets(height, depth, distance), 60)
        top_rate = max(r.play_rate for r in run.warp.results)
        assert run.max_speed() <= 3.0 * clip_speed * top_rate, (height, depth, distance)


def test_authored_obstacle_needs_no_warp(base, rig, vault):
    actor, warper = rig
    run = WarpRun(base, warper, vault, vault_targets(1.0, 0.6, 1.0), 60)
    assert_exact_arrival(run)
    assert [r.play_rate for r in run.warp.results] == pytest.approx([1.0, 1.0, 1.0], abs=1e-3)


def test_events_in_order(base, rig, vault):
    actor, warper = rig
    seen = []
    for event in ("motionwarp-phase-start", "motionwarp-phase-end", "motionwarp-finished", "motionwarp-cancelled"):
        base.accept(event, lambda *args, e=event: seen.append((e,) + args[1:]))
    WarpRun(base, warper, vault, vault_targets(1.0, 0.6, 1.0), 60)
    base.ignoreAll()
    assert seen == [("motionwarp-phase-start", "close_edge", 0), ("motionwarp-phase-end", "close_edge", 0),
                    ("motionwarp-phase-start", "far_edge", 1), ("motionwarp-phase-end", "far_edge", 1),
                    ("motionwarp-phase-start", "landing", 2), ("motionwarp-phase-end", "landing", 2),
                    ("motionwarp-finished", "vault")]


def start_and_step(base, warper, asset, targets, seconds, fps=60):
    warper.play(asset, targets)
    for _ in range(int(seconds * fps)):
        step(base, 1 / fps)


def test_cancel_mid_phase_restores_rate_and_stops(base, rig, vault):
    actor, warper = rig
    cancelled = []
    base.accept("motionwarp-cancelled", lambda *args: cancelled.append(args))
    start_and_step(base, warper, vault, vault_targets(1.0, 0.6, 1.6), 0.3)
    assert actor.getAnimControl("vault").getPlayRate() != 1.0  # 1.6x distance: the phase plays slower
    warper.cancel()
    base.ignoreAll()
    assert cancelled and not warper.is_warping
    assert actor.getAnimControl("vault").getPlayRate() == 1.0 and warper.play_rate == 1.0
    step(base, 1 / 60)  # catches up with the frame the clip was stopped on
    where = actor.getPos()
    for _ in range(30):
        step(base, 1 / 60)
    assert actor.getPos() == where


def test_playing_another_clip_cancels_and_restores_rate(base, rig, vault):
    actor, warper = rig
    start_and_step(base, warper, vault, vault_targets(1.0, 0.6, 1.6), 0.3)
    actor.loop("walk")
    step(base, 1 / 60)
    assert not warper.is_warping
    assert actor.getAnimControl("vault").getPlayRate() == 1.0


def test_removed_actor_cancels_and_ends_the_task(base, rig, vault):
    actor, warper = rig
    start_and_step(base, warper, vault, vault_targets(1.0, 0.6, 1.0), 0.2)
    actor.removeNode()
    step(base, 1 / 60)
    assert not warper.is_warping
    assert not base.taskMgr.hasTaskNamed(warper._task_name)


def test_destroy_leaves_nothing_running(base, vault):
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    warper.play(vault, vault_targets(1.0, 0.6, 1.0))
    warper.destroy()
    assert not [t for t in base.taskMgr.getAllTasks() if t.name.startswith("motionwarp-")]
    assert actor.getAnimControl("vault").getPlayRate() == 1.0
    actor.cleanup()
    actor.removeNode()


@pytest.mark.parametrize("scale", [1.0, 0.01, 2.5])
def test_clip_speeds_reach_the_warpers_driver(base, scale):
    """MotionWarper(clip_speeds=) moves an in-place cycle straight ahead at that speed (docs/design.md 3),
    as its own root-motion driver: 120 frames of 1/60 s at 2 m/s facing world -X are 4 m along -X,
    whatever the actor's scale (a speed is metres per second in the world)."""
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    actor.setH(90)
    actor.setScale(scale)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render, clip_speeds={"idle": 2.0})
    try:
        warper.driver.loop("idle")
        for _ in range(10):
            step(base, 1 / 60)
        before = actor.getPos()
        for _ in range(120):
            step(base, 1 / 60)
        assert (actor.getPos() - before - Vec3(-4.0, 0, 0)).length() < 1e-4
    finally:
        warper.destroy()
        actor.cleanup()
        actor.removeNode()


def test_target_on_a_moving_platform(base, rig, warp_assets):
    actor, warper = rig
    platform = base.render.attachNewNode("platform")
    platform.setPos(0, 0.5, 0)

    def drift(task):
        platform.setX(0.3 * task.time)
        return task.cont
    base.taskMgr.add(drift, "drift", sort=10)
    targets = [WarpTarget(target.pos, follow=platform) for target in ledge_targets(1.5, 0.0)]
    arrivals = []
    base.accept("motionwarp-phase-end", lambda *args: arrivals.append(
        (np.array(actor.getPos()), np.array(platform.getPos(base.render)))))
    run = WarpRun(base, warper, warp_assets["mantle"], targets, 60)
    base.taskMgr.remove("drift")
    base.ignoreAll()
    arrived, platform_pos = arrivals[0]
    expected = platform_pos + np.array([0, 0, 1.5]) + np.array(warp_assets["mantle"].phases[0].t_offset)
    assert np.linalg.norm(arrived - expected) < 1e-3
    assert platform_pos[0] > 0.05  # it really moved during the phase
    assert_exact_arrival(run)


@pytest.mark.parametrize("targets, reason", [
    (vault_targets(1.0, 0.6, 1.0)[:2], re.escape("has 3 phases (close_edge, far_edge, landing) but 2 targets")),
    ([WarpTarget(Point3(0, float("nan"), 1))] + vault_targets(1.0, 0.6, 1.0)[1:], "is not finite"),
    (vault_targets(1.0, 0.6, -2.0), "is behind the character"),
    (vault_targets(1.0, 0.6, 6.0), r"needs \d+\.\d+ m over the ground where the clip moves"),
    ([WarpTarget(t.pos, h=120.0) for t in vault_targets(1.0, 0.6, 1.0)], "needs a 120 degree turn"),
])
def test_refusals_carry_a_reason(base, rig, targets, reason, vault):
    actor, warper = rig
    with pytest.raises(WarpRefused, match=reason):
        warper.play(vault, targets)
    assert not warper.is_warping


def test_a_refused_play_leaves_the_running_warp_alone(base, rig, vault):
    actor, warper = rig
    start_and_step(base, warper, vault, vault_targets(1.0, 0.6, 1.0), 0.2)
    running = warper.current
    with pytest.raises(WarpRefused):
        warper.play(vault, vault_targets(1.0, 0.6, -2.0))
    assert warper.current is running
    while warper.is_warping:
        step(base, 1 / 60)
    assert len(running.results) == 3
