"""The runtime API under misuse: bad arguments raise a motionwarp error up front, and whatever
happens to the actor or its targets mid-warp, the game's task loop never sees an exception: the
warp is cancelled and `motionwarp-cancelled` carries the reason as its third argument."""
import copy

import numpy as np
import pytest
from panda3d.core import Point3, Vec3, loadPrcFileData, unloadPrcFile

from motionwarp import MotionWarper, MotionWarpSettings, UsageError, WarpRefused, WarpTarget, load_actor

from .conftest import MANNEQUIN, step
from .warp_helpers import WarpRun, vault_targets



@pytest.fixture
def vault(warp_assets):
    """The vault asset, derived for the tests (never the shipped file the tuner rewrites)."""
    return warp_assets["vault"]


@pytest.fixture
def cancellations(base):
    """The argument tuples of every `motionwarp-cancelled` sent during the test."""
    seen = []
    base.accept("motionwarp-cancelled", lambda *args: seen.append(args))
    yield seen
    base.ignore("motionwarp-cancelled")


def frames(base, count):
    for _ in range(count):
        step(base, 1 / 60)  # taskMgr.step() would re-raise any exception a task raised


@pytest.mark.parametrize("as_point", [lambda t: t.pos, lambda t: tuple(t.pos), lambda t: list(t.pos),
                                      lambda t: np.array(t.pos), lambda t: Vec3(t.pos)])
def test_targets_given_as_points_are_heading_zero_targets(base, rig, as_point, vault):
    actor, warper = rig
    targets = vault_targets(1.0, 0.6, 1.0)  # heading 0
    run = WarpRun(base, warper, vault, [as_point(t) for t in targets])
    assert run.finished
    for result, target in zip(run.warp.results, targets):
        offset = [p.t_offset for p in vault.phases if p.name == result.name][0]
        assert tuple(result.arrived) == pytest.approx(np.array(target.pos) + np.array(offset), abs=1e-3)


@pytest.mark.parametrize("kwargs, message", [
    ({"pos": (1, 2)}, "WarpTarget pos: expected a Point3 or three numbers (x, y, z), got (1, 2)"),
    ({"pos": "abc"}, "WarpTarget pos: expected a Point3 or three numbers (x, y, z), got 'abc'"),
    ({"pos": None}, "WarpTarget pos: expected a Point3 or three numbers (x, y, z), got None"),
    ({"pos": Point3(0, 2, 1), "h": "abc"}, "WarpTarget h: expected a number of degrees, got 'abc'"),
    ({"pos": (10 ** 400, 0, 0)}, "WarpTarget pos: expected a Point3 or three numbers (x, y, z), got (1000000"),
    ({"pos": (0, 0, 0), "h": 10 ** 5000}, "WarpTarget h: expected a number of degrees, got an integer too long to show"),
    ({"pos": Point3(0, 2, 1), "hpr": (1, "x", 3)}, "WarpTarget hpr: expected a Point3 or three numbers"),
    ({"pos": Point3(0, 2, 1), "follow": "platform"}, "WarpTarget follow: expected a NodePath or None, got 'platform'"),
])
def test_bad_target_values(kwargs, message):
    with pytest.raises(UsageError) as caught:
        WarpTarget(**kwargs)
    assert str(caught.value).startswith(message) and isinstance(caught.value, ValueError)


@pytest.mark.parametrize("targets, shown", [(None, "None"), (5, "5"), ("abc", "'abc'")])
def test_targets_that_are_not_a_list(base, rig, targets, shown, vault):
    actor, warper = rig
    with pytest.raises(UsageError, match=r"MotionWarper.play: targets: expected a list of WarpTarget \(one per "
                                         rf"phase\), got {shown}"):
        warper.play(vault, targets)
    assert not warper.is_warping


def test_play_after_the_actor_was_removed(base, vault):
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    actor.cleanup()
    actor.removeNode()
    with pytest.raises(WarpRefused, match="the actor was removed"):
        warper.play(vault, vault_targets(1.0, 0.6, 1.0))
    warper.destroy()


def test_play_on_a_destroyed_warper_raises(base, rig, vault):
    actor, warper = rig
    warper.destroy()
    with pytest.raises(UsageError, match="MotionWarper.play: this warper was destroyed"):
        warper.play(vault, vault_targets(1.0, 0.6, 1.0))
    frames(base, 3)
    assert not warper.is_warping


def test_a_second_warper_on_one_actor_is_refused(base, rig):
    actor, warper = rig
    with pytest.raises(UsageError, match="'mannequin' already has a MotionWarper; two would fight over its NodePath"):
        MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    assert len([t for t in base.taskMgr.getAllTasks() if t.name.startswith("motionwarp-warper-")]) == 1


def test_a_new_warper_is_allowed_after_destroying_the_first(base, rig, vault):
    actor, warper = rig
    warper.destroy()
    second = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    run = WarpRun(base, second, vault, vault_targets(1.0, 0.6, 1.0))
    second.destroy()
    assert run.finished


@pytest.mark.parametrize("rate", [1e308, float("inf"), float("nan"), 0.0, -1.0, "fast"])
def test_absurd_play_rates_are_refused_up_front(base, rig, rate, vault):
    actor, warper = rig
    with pytest.raises(WarpRefused, match="play rate must be a number above 0 and at most 100"):
        warper.play(vault, vault_targets(1.0, 0.6, 1.0), rate=rate)
    assert not warper.is_warping


@pytest.mark.parametrize("rate", [True, False])
def test_a_bool_play_rate_is_a_usage_error_not_a_rate_of_1(base, rig, rate, vault):
    actor, warper = rig
    with pytest.raises(UsageError, match=rf"^MotionWarper.play: rate: expected a number above 0 and at most 100, got {rate}$"):
        warper.play(vault, vault_targets(1.0, 0.6, 1.0), rate=rate)
    assert not warper.is_warping


def test_a_huge_heading_is_blamed_on_the_target(base, rig, vault):
    actor, warper = rig
    targets = vault_targets(1.0, 0.6, 1.0)
    targets[1] = WarpTarget(targets[1].pos, h=1e39)
    with pytest.raises(WarpRefused, match=r"^target of phase 'far_edge' is not finite \(or beyond float32"):
        warper.play(vault, targets)


def test_a_non_finite_goal_is_refused_up_front(base, rig, vault):
    actor, warper = rig
    asset = copy.copy(vault)
    asset.phases = [copy.copy(p) for p in vault.phases]
    asset.phases[0].t_offset = (0.0, 1e308, 0.0)  # finite in Python, inf once Panda3D holds it
    with pytest.raises(WarpRefused, match="phase 'close_edge' would end at a non-finite point"):
        warper.play(asset, vault_targets(1.0, 0.6, 1.0))


def test_play_with_the_actor_scaled_to_zero_is_refused(base, rig, vault):
    actor, warper = rig
    actor.setScale(0)
    with pytest.raises(WarpRefused, match="the actor's scale is 0; a warp needs a positive scale"):
        warper.play(vault, vault_targets(1.0, 0.6, 1.0))


def assert_cancelled_cleanly(warper, actor, cancellations, reason):
    assert not warper.is_warping and warper.play_rate == 1.0
    assert cancellations == [(warper, "vault", reason)]
    assert actor.isEmpty() or actor.getAnimControl("vault").getPlayRate() == 1.0


def test_actor_scaled_to_zero_mid_warp_cancels_with_a_reason(base, rig, cancellations, vault):
    actor, warper = rig
    warper.play(vault, vault_targets(1.0, 0.6, 1.0))
    frames(base, 10)
    actor.setScale(0)
    frames(base, 5)
    assert_cancelled_cleanly(warper, actor, cancellations, "the actor's scale is 0; a warp needs a positive scale")


def test_follow_node_removed_mid_warp_cancels_with_a_reason(base, rig, cancellations, vault):
    actor, warper = rig
    platform = base.render.attachNewNode("platform")
    targets = [WarpTarget(t.pos, h=t.h, follow=platform) for t in vault_targets(1.0, 0.6, 1.0)]
    warper.play(vault, targets)
    frames(base, 10)
    platform.removeNode()
    frames(base, 5)
    assert_cancelled_cleanly(warper, actor, cancellations,
                             "the follow node of phase 'close_edge''s target was removed")


@pytest.mark.parametrize("cleanup", [True, False])
def test_actor_removed_mid_warp_cancels_with_a_reason(base, cancellations, cleanup, vault):
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    warper.play(vault, vault_targets(1.0, 0.6, 1.0))
    frames(base, 10)
    if cleanup:
        actor.cleanup()
    actor.removeNode()
    frames(base, 3)
    assert_cancelled_cleanly(warper, actor, cancellations, "the actor was removed")
    warper.destroy()


def test_an_unexpected_error_in_the_task_cancels_instead_of_raising(base, rig, cancellations, monkeypatch, vault):
    actor, warper = rig
    warper.play(vault, vault_targets(1.0, 0.6, 1.0))
    frames(base, 5)

    def broken(*args):
        raise ArithmeticError("simulated fault")
    monkeypatch.setattr("motionwarp.warp.placement.Placement.at", broken)   # every in-phase frame places through it
    frames(base, 30)
    assert_cancelled_cleanly(warper, actor, cancellations, "motionwarp failed (ArithmeticError: simulated fault)")


def test_cancel_reasons_of_the_game_and_of_a_replacing_warp(base, rig, cancellations, vault):
    actor, warper = rig
    warper.play(vault, vault_targets(1.0, 0.6, 1.0))
    frames(base, 5)
    warper.play(vault, vault_targets(1.0, 0.6, 1.2))
    frames(base, 5)
    warper.cancel()
    assert [args[2] for args in cancellations] == ["a new warp replaced it", "cancel() was called"]


@pytest.mark.parametrize("prc, message", [
    ("motionwarp-max-stretch abc", "PRC variable motionwarp-max-stretch: expected a number from 1 to 1000, got 'abc'"),
    ("motionwarp-task-sort 1.5", "PRC variable motionwarp-task-sort: expected a whole number from -1000 to 1000, got '1.5'"),
    ("motionwarp-min-stretch nan", "PRC variable motionwarp-min-stretch: expected a number from 0 to 1, got nan"),
    ("motionwarp-max-turn-deg -5", "PRC variable motionwarp-max-turn-deg: expected a number from 0 to 180, got -5.0"),
    ("motionwarp-still-axis-m 1e308", "PRC variable motionwarp-still-axis-m: expected a number from 0.0001 to 1, got 1e+308"),
])
def test_bad_prc_settings_name_the_variable(prc, message):
    page = loadPrcFileData("motionwarp-bad-setting", prc)
    try:
        with pytest.raises(UsageError) as caught:
            MotionWarpSettings.from_prc()
    finally:
        unloadPrcFile(page)
    assert str(caught.value) == message


def test_a_bad_keyword_setting_is_refused_before_the_warper_exists(base):
    actor = load_actor(MANNEQUIN)
    with pytest.raises(UsageError, match=r"^setting max_stretch: expected a number from 1 to 1000, got 0.5$"):
        MotionWarper(actor, taskmgr=base.taskMgr, render=base.render, max_stretch=0.5)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)  # nothing was left claiming the actor
    warper.destroy()
    actor.cleanup()


def test_check_raises_what_play_would_and_starts_nothing(base, rig, vault):
    """`check` is play's refusal without its effects: nothing plays, no warp, no event."""
    actor, warper = rig
    cancelled = []
    base.accept("motionwarp-cancelled", lambda *args: cancelled.append(args))
    try:
        with pytest.raises(WarpRefused, match="phases"):
            warper.check(vault, vault_targets(1.0, 0.6, 1.0)[:2])
        with pytest.raises(UsageError, match="targets"):
            warper.check(vault, None)
        warper.check(vault, vault_targets(1.0, 0.6, 1.0))   # a good warp passes
        assert not warper.is_warping and actor.getCurrentAnim() is None and not cancelled
    finally:
        base.ignore("motionwarp-cancelled")


def test_a_repeated_failure_is_logged_once_and_a_new_one_again(base, rig, cancellations, monkeypatch, vault):
    """_fail's contract: each failure cancels its warp; the log names the actor and the error, once
    while the same error repeats."""
    actor, warper = rig
    logged = []
    monkeypatch.setattr("motionwarp.warp.warper._notify", type("Log", (), {"warning": staticmethod(logged.append)}))
    for fault in (ArithmeticError("simulated fault"), ArithmeticError("simulated fault"), KeyError("other")):
        warper.play(vault, vault_targets(1.0, 0.6, 1.0))

        def broken(*args, fault=fault):
            raise fault
        monkeypatch.setattr("motionwarp.warp.placement.Placement.at", broken)   # every in-phase frame places through it
        frames(base, 3)
        assert not warper.is_warping
    assert logged == [f"{actor.getName()}: ArithmeticError: simulated fault", f"{actor.getName()}: KeyError: 'other'"]
    assert len(cancellations) == 3
