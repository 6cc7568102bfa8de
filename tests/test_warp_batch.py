"""WarpBatch (motionwarp/warp/batch.py): warpers run in one task put their actors where their own tasks do.

Two oracles: the independent numpy reference of the contract (tests/reference_warp.py, through the
reference tests' own run_case), and the single path itself, played side by side on twin actors
frame by frame, at fixed frame rates and with hitches, through phase starts, ends and events.
"""
import math
import random

import numpy as np
import pytest
from panda3d.core import LMatrix4f, Point3, Vec3

from motionwarp import MotionWarper, WarpTarget, load_actor
from motionwarp.warp.batch import WarpBatch

from .conftest import MANNEQUIN, step
from .test_warp_reference import (TIMINGS, TURN_PHASES, TURN_SHIFTS, TURN_TURNS, VAULT_PHASES, run_case,
                                  turn_glb)  # noqa: F401 (a fixture)
from .warp_helpers import ledge_targets, vault_targets

#: Twin actors: the batch computes in float64 what the single path computes in float32 Vec3s.
TWIN_POS_M = 2e-6
TWIN_ROT_DEG = 2e-4
EVENTS = ("motionwarp-phase-start", "motionwarp-phase-end", "motionwarp-finished", "motionwarp-cancelled")


@pytest.fixture(params=["one by one", "in numpy"])
def batch(base, request, monkeypatch):
    """A WarpBatch placing its plain in-phase frames one by one (few warpers), or together in numpy (a crowd's)."""
    if request.param == "in numpy":
        monkeypatch.setattr("motionwarp.warp.batch._NUMPY_FROM", 1)
    made = WarpBatch(base.taskMgr)
    yield made
    made.destroy()


@pytest.mark.parametrize("timing", ["24fps", "144fps", "hitches"])
def test_a_batched_turning_clip_matches_the_reference(base, tmp_path, turn_glb, timing, batch):
    result = run_case(base, tmp_path, turn_glb, "turn", TURN_PHASES, TURN_SHIFTS, TURN_TURNS, TIMINGS[timing],
                      start=((1.5, -2.0, 0.3), 40.0), batch=batch)
    assert len(result.phase_rates) == 2 and result.phase_rates != [1.0, 1.0]
    assert batch.fast_frames > result.frames / 3   # the placement ran batched on most in-phase frames


@pytest.mark.parametrize("scale", [0.6, 1.5])
def test_a_batched_scaled_character_matches_the_reference(base, tmp_path, turn_glb, scale, batch):
    run_case(base, tmp_path, turn_glb, "turn", TURN_PHASES, TURN_SHIFTS, TURN_TURNS, TIMINGS["hitches"],
             start=((0.3, -0.2, 0.0), 25.0), scale=scale, batch=batch)
    assert batch.fast_frames > 0


@pytest.mark.parametrize("timing", ["60fps", "hitches"])
def test_a_batched_vault_matches_the_reference(base, tmp_path, timing, batch):
    data = [dict(VAULT_PHASES[0], r_offset=[6.0, 0.0, 0.0]), VAULT_PHASES[1], dict(VAULT_PHASES[2], t_offset=[0.2, -0.1, 0.0])]
    shifts = [(0.1, 0.3, 0.2), (0.05, 0.2, 0.2), (-0.1, 0.4, 0.0)]
    run_case(base, tmp_path, MANNEQUIN, "vault", data, shifts, [10.0, 5.0, -8.0], TIMINGS[timing],
             start=((-1.0, 0.5, 0.0), -125.0), batch=batch)
    assert batch.fast_frames > 0


@pytest.mark.parametrize("far, far_edge", [((0.05, 0.2, 0.4), {}), ((0.1, 0.9, 0.5), {"warp_from": 0.98})],
                         ids=["deferred rise", "held warp"])
def test_a_batched_vault_that_defers_its_rise_or_holds_its_warp_matches_the_reference(base, tmp_path, batch, far,
                                                                                       far_edge):
    """The batch places a deferring phase from the plan the warper made (design 4, Deferred rise), and a
    phase that warps from `warp_from` as its own task does (Held warp: far_edge 0.7 m farther)."""
    data = [dict(VAULT_PHASES[0], defer_rise=True), dict(VAULT_PHASES[1], **far_edge), VAULT_PHASES[2]]
    shifts = [(0.1, 0.3, 0.4), far, (far[0] - 0.15, far[1] + 0.2, 0.0)]
    run_case(base, tmp_path, MANNEQUIN, "vault", data, shifts, [10.0, 5.0, -8.0], TIMINGS["hitches"],
             start=((-1.0, 0.5, 0.0), -125.0), batch=batch)
    assert batch.fast_frames > 0


def _crowd(base, count):
    actors = []
    for _ in range(count):
        actor = load_actor(MANNEQUIN)
        actor.reparentTo(base.render)
        actors.append(actor)
    return actors


def _rotation_deg(a, b):
    dot = abs(a.dot(b)) / math.sqrt(a.dot(a) * b.dot(b))
    return math.degrees(2.0 * math.acos(min(1.0, dot)))


def _kept_state(warper):
    """What the next frame goes on from: the warp's applied clip frame, the driver's last update time,
    lift and each clip's last seen time."""
    driver, warp = warper.driver, warper.current
    return (None if warp is None else warp.frame, driver._prev_time, driver._lift,
            [clip.prev for clip in driver._clips])


def test_a_crowd_in_one_batch_lands_where_each_warpers_own_task_puts_it(base, warp_assets, batch):
    """Twelve twins: six warp in their own tasks, six in the batch, each twin from the same start to the
    same targets (vaults and mantles of other sizes, headings, scales, one riding a moving platform, one
    sharing the pose with the walk), walking in and out, with hitches, a cancel, a clip that jumps back,
    an actor rescaled mid-phase and one whose Actor plays another clip."""
    count = 6
    single, batched = _crowd(base, count), _crowd(base, count)
    warpers = [MotionWarper(a, taskmgr=base.taskMgr, render=base.render) for a in single + batched]
    for warper in warpers[count:]:
        batch.add(warper)
    # The hand joint as a task after the warpers (an IK's place, sort 47) reads it: the joint's own net
    # transform, which nothing brings up to date but the pose update the warper owes that frame.
    hands = [actor.find("**/+Character").node().findJoint("hand_l") for actor in single + batched]
    posed = []

    def read_hands(task):
        mats = [LMatrix4f() for _ in hands]
        for hand, mat in zip(hands, mats):
            hand.getNetTransform(mat)
        posed.append([Vec3(mat.getRow3(3)) for mat in mats])
        return task.cont
    base.taskMgr.add(read_hands, "test-read-hands", sort=47)
    seen = {id(w): [] for w in warpers}
    for event in EVENTS:
        base.accept(event, lambda warper, *args, name=event: seen[id(warper)].append((name, *args[:2])))
    rng = random.Random(7)
    try:
        plays = []
        for index in range(count):
            h, scale = rng.uniform(-180, 180), rng.choice([1.0, 1.0, 0.8, 1.25])
            start = Point3(index * 4.0, rng.uniform(-1, 1), 0.0)
            if index % 3 == 2:
                asset = warp_assets["mantle"]
                targets = ledge_targets(rng.uniform(1.1, 1.6), rng.uniform(0.45, 0.7) * scale, h)
            else:
                asset = warp_assets["vault"]
                targets = vault_targets(rng.uniform(0.6, 1.3), rng.uniform(0.3, 0.9), rng.uniform(0.9, 1.3) * scale, h)
            for target in targets:
                target.pos += start
            plays.append((asset, targets))
            for actor in (single[index], batched[index]):
                actor.setPos(start)
                actor.setH(h)
                actor.setScale(scale)
        # Twin 3's targets ride a platform moving under them (re-read every frame).
        platform = base.render.attachNewNode("platform")
        plays[3] = (plays[3][0], [WarpTarget(platform.getRelativePoint(base.render, t.pos), h=t.h, follow=platform)
                                  for t in plays[3][1]])
        for warper in warpers:   # walking in: the driver has a lift to bring back as the warp takes over
            warper.driver.loop("walk")
        for _ in range(3):
            step(base, 1 / 60)
        for actor in (single[5], batched[5]):   # twin 5 blends: the walk keeps a third of the pose
            actor.enableBlend()
            actor.setControlEffect("walk", 0.3)
        for index, (asset, targets) in enumerate(plays):
            warpers[index].play(asset, targets)
            warpers[count + index].play(asset, targets)
        for actor in (single[5], batched[5]):
            actor.setControlEffect(plays[5][0].clip, 1.0)
        worst_pos = worst_rot = 0.0
        for frame in range(600):
            dt = rng.uniform(0.1, 0.25) if rng.random() < 0.03 else 1.0 / rng.choice([30, 60, 144])
            platform.setPos(0.3 * math.sin(frame * 0.05), 0.0, 0.1 * frame / 600)
            if frame == 40:   # a cancel mid-phase, the same on both twins, and the walk takes over
                for warper in (warpers[1], warpers[count + 1]):
                    warper.cancel()
                    warper.driver.loop("walk")
            if frame == 20:   # twin 0 is scaled mid-phase
                for actor in (single[0], batched[0]):
                    actor.setScale(actor.getScale() * 1.1)
            if frame == 15:   # twin 2's Actor plays another clip mid-phase: it takes over
                for actor in (single[2], batched[2]):
                    actor.play("idle")
            if frame == 30:   # the clip jumped back a frame and a half mid-phase: "the clip was restarted"
                for actor, warper in ((single[4], warpers[4]), (batched[4], warpers[count + 4])):
                    control = warper.current.control
                    control.loop(False, 0, control.getNumFrames() - 1)
                    control.pose(control.getFullFframe() - 1.5)
                    control.play()
            step(base, dt)
            for one, two in zip(single, batched):
                worst_pos = max(worst_pos, (one.getPos() - two.getPos()).length())
                worst_rot = max(worst_rot, _rotation_deg(one.getQuat(), two.getQuat()))
            for one, two in zip(posed[-1][:count], posed[-1][count:]):   # the pose: this frame's, computed by both
                worst_pos = max(worst_pos, (one - two).length())
            for one, two in zip(warpers[:count], warpers[count:]):
                assert _kept_state(one) == _kept_state(two), frame
            if not any(w.is_warping for w in warpers):
                break
        assert not any(w.is_warping for w in warpers), "the warps did not end"
        for warper in warpers[:1] + warpers[3:count + 1] + warpers[count + 3:]:   # then walk on
            warper.driver.loop("walk")
        for _ in range(40):
            step(base, 1 / 60)
            for one, two in zip(single, batched):
                worst_pos = max(worst_pos, (one.getPos() - two.getPos()).length())
    finally:
        base.taskMgr.remove("test-read-hands")
        for event in EVENTS:
            base.ignore(event)
        for warper in warpers:
            warper.destroy()
        for actor in single + batched:
            actor.cleanup()
            actor.removeNode()
    assert worst_pos < TWIN_POS_M and worst_rot < TWIN_ROT_DEG, (worst_pos, worst_rot)
    for index in range(count):
        assert seen[id(warpers[index])] == seen[id(warpers[count + index])], index
        assert seen[id(warpers[index])][-1][0] == ("motionwarp-cancelled" if index in (1, 2, 4) else "motionwarp-finished")
    assert batch.fast_frames > 100


def test_a_removed_or_destroyed_warper_leaves_the_batch_and_a_removed_one_gets_its_task_back(base, warp_assets, batch):
    actors = _crowd(base, 3)
    warpers = [MotionWarper(a, taskmgr=base.taskMgr, render=base.render) for a in actors]
    try:
        for warper in warpers:
            batch.add(warper)
        names = {task.name for task in base.taskMgr.getTasks()}
        assert not any(w._task_name in names for w in warpers)
        for warper in warpers:
            warper.play(warp_assets["vault"], vault_targets(1.0, 0.6, 1.0))
        step(base, 1 / 60)
        warpers[0].destroy()
        actors[1].removeNode()      # its warp is cancelled, as by its own task
        cancelled = []
        base.accept("motionwarp-cancelled", lambda warper, clip, reason: cancelled.append((warper, reason)))
        step(base, 1 / 60)
        assert batch.warpers == [warpers[2]]
        assert cancelled == [(warpers[1], "the actor was removed")]
        batch.remove(warpers[2])
        assert warpers[2]._task_name in {task.name for task in base.taskMgr.getTasks()}
        before = np.array(actors[2].getPos())
        step(base, 1 / 60)
        assert np.linalg.norm(np.array(actors[2].getPos()) - before) > 1e-4   # its own task moves it again
    finally:
        base.ignore("motionwarp-cancelled")
        for warper in warpers:
            warper.destroy()
        for actor in actors:
            actor.cleanup()
            actor.removeNode()
