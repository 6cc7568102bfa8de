"""A warp interrupted anywhere leaves a consistent state (issue 6, "Faults and long runs").

Points: before the first phase, inside each phase, between phases and after the last one;
interruptions: cancel(), another clip on the actor, another warp, the actor removed, the
warper destroyed. Afterwards the play rate is the base rate again, each event came once and
in order, `is_warping` is false and no motionwarp task is left that should not be.
"""
import types

import numpy as np
import pytest
from direct.showbase.DirectObject import DirectObject

from motionwarp import MotionWarper, load_actor

from .conftest import step
from .gltf_samples import two_bone_quad
from .reference_warp import RawClip, hpr_matrix
from .test_warp_reference import TURN_KEYS, TURN_PHASES, TURN_SHIFTS, TURN_TURNS, ref_phases, targets_near_natural, \
    write_asset

EVENTS = ("motionwarp-phase-start", "motionwarp-phase-end", "motionwarp-finished", "motionwarp-cancelled")
BASE_RATE = 1.3
SWAY = [("root", "translation", [0.0, 1.0], [[0, 0, 0], [0.2, 0.0, 0.0]])]

# (name, clip frame to pass, phase index and in_phase expected there)
POINTS = [("before_first_phase", None, (0, False)),
          ("inside_first_phase", 12.0, (0, True)),
          ("between_phases", 27.0, (1, False)),
          ("inside_second_phase", 38.0, (1, True)),
          ("after_last_phase", 47.0, (2, False))]


@pytest.fixture(scope="module")
def two_clip_glb(tmp_path_factory):
    """The turning clip of the reference tests, plus a plain sway to interrupt it with."""
    return two_bone_quad(tmp_path_factory.mktemp("interrupt") / "turn.glb", {"turn": TURN_KEYS, "sway": SWAY})


class Recorder(DirectObject):
    """Every motionwarp event, in order, as (event, details...); the reasons cancellations gave, apart."""

    def __init__(self):
        self.seen, self.reasons = [], []
        for event in EVENTS:
            self.accept(event, lambda *args, e=event: self._record(e, args[1:]))

    def _record(self, event, details):
        if event == "motionwarp-cancelled":
            details, reason = details[:-1], details[-1]
            self.reasons.append(reason)
        self.seen.append((event,) + tuple(details))


def natural_targets(clip, actor):
    """Targets a little off where the turning clip takes the actor from where it stands."""
    targets, _ = targets_near_natural(clip, ref_phases(TURN_PHASES), np.array(actor.getPos()),
                                      hpr_matrix(*actor.getHpr()), TURN_SHIFTS, TURN_TURNS)
    return targets


def motionwarp_tasks(base):
    return sorted(task.name for task in base.taskMgr.getTasksMatching("motionwarp-*"))


@pytest.fixture
def scene(base, tmp_path, two_clip_glb):
    actor = load_actor(two_clip_glb)
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    asset = write_asset(tmp_path, two_clip_glb, "turn", TURN_PHASES)
    clip = RawClip(two_clip_glb, "turn")
    recorder = Recorder()
    yield types.SimpleNamespace(actor=actor, warper=warper, asset=asset, clip=clip, targets=natural_targets(clip, actor),
                                recorder=recorder)
    recorder.ignoreAll()
    warper.destroy()
    actor.cleanup()
    actor.removeNode()


def play_until(base, scene, frame):
    """Start the warp and step 60 fps frames until its clip passes `frame` (None: do not step)."""
    warp = scene.warper.play(scene.asset, scene.targets, rate=BASE_RATE)
    control = scene.actor.getAnimControl("turn")
    if frame is not None:
        for _ in range(600):
            step(base, 1 / 60)
            if control.getFullFframe() >= frame:
                break
    return warp, control


def expected_events(phase_index, in_phase, ending):
    """The events up to the interruption: each phase started (and ended, when it did), then `ending`."""
    events = []
    for index, phase in enumerate(TURN_PHASES[:phase_index + (1 if in_phase else 0)]):
        events.append(("motionwarp-phase-start", phase["name"], index))
        if index < phase_index:
            events.append(("motionwarp-phase-end", phase["name"], index))
    return events + [ending]


CANCELLED = ("motionwarp-cancelled", "turn")


def interrupt_cancel(scene):
    scene.warper.cancel()
    return CANCELLED, ["motionwarp-warper"], "cancel() was called"


def interrupt_other_clip_play(scene):
    scene.actor.play("sway")
    return CANCELLED, ["motionwarp-warper"], "another clip took over"


def interrupt_other_clip_loop(scene):
    scene.actor.loop("sway")
    return CANCELLED, ["motionwarp-warper"], "another clip took over"


def interrupt_another_warp(scene):
    scene.warper.play(scene.asset, natural_targets(scene.clip, scene.actor), rate=BASE_RATE)
    return CANCELLED, ["motionwarp-warper"], "a new warp replaced it"


def interrupt_actor_removed(scene):
    scene.actor.removeNode()
    return CANCELLED, [], "the actor was removed"


def interrupt_warper_destroyed(scene):
    scene.warper.destroy()
    return CANCELLED, [], "the warper was destroyed"


INTERRUPTIONS = {f.__name__[len("interrupt_"):]: f for f in (
    interrupt_cancel, interrupt_other_clip_play, interrupt_other_clip_loop, interrupt_another_warp,
    interrupt_actor_removed, interrupt_warper_destroyed)}


@pytest.mark.parametrize("point", POINTS, ids=[p[0] for p in POINTS])
@pytest.mark.parametrize("how", sorted(INTERRUPTIONS))
def test_interruption_leaves_a_consistent_state(base, scene, how, point):
    warper, recorder = scene.warper, scene.recorder
    _, frame, (phase_index, in_phase) = point
    warp, control = play_until(base, scene, frame)
    assert (warp.phase_index, warp.in_phase) == (phase_index, in_phase), "the interruption point is not where meant"
    assert warper.play_rate == control.getPlayRate(), "play_rate is not the rate the clip plays at"
    assert warp.rate_scale == pytest.approx(control.getPlayRate() / BASE_RATE), "rate_scale is not the phase's factor"
    ending, tasks_left, reason = INTERRUPTIONS[how](scene)
    for _ in range(180):  # let every task see the new state (and a replacement warp finish)
        step(base, 1 / 60)
    expected = expected_events(phase_index, in_phase, ending)
    if how == "another_warp":
        # The replacement runs to its end after the cancelled warp's events.
        assert recorder.seen[:len(expected)] == expected
        assert recorder.seen[-1] == ("motionwarp-finished", "turn")
        assert recorder.seen.count(CANCELLED) == 1
    else:
        assert recorder.seen == expected
    assert scene.recorder.reasons == [reason]
    assert not warper.is_warping
    assert warper.play_rate == 1.0 and warp.rate_scale == 1.0
    assert control.getPlayRate() == pytest.approx(BASE_RATE), "the clip's play rate was not restored"
    names = motionwarp_tasks(base)
    assert len(names) == len(tasks_left) and all(n.startswith(t) for n, t in zip(names, tasks_left)), names


def test_finished_warp_leaves_the_same_state(base, scene):
    """The uninterrupted case, for comparison: every phase once, then finished once."""
    warper, recorder = scene.warper, scene.recorder
    starts, listener = [], DirectObject()  # where the actor is as each phase starts: its origin
    listener.accept("motionwarp-phase-start", lambda *args: starts.append(np.array(scene.actor.getPos())))
    warp, control = play_until(base, scene, 60.0)
    for _ in range(30):
        step(base, 1 / 60)
    listener.ignoreAll()
    assert [r.name for r in warp.results] == ["first", "second"]
    assert len(starts) == 2 and all(np.allclose(r.origin, start) for r, start in zip(warp.results, starts))
    assert recorder.seen == [("motionwarp-phase-start", "first", 0), ("motionwarp-phase-end", "first", 0),
                             ("motionwarp-phase-start", "second", 1), ("motionwarp-phase-end", "second", 1),
                             ("motionwarp-finished", "turn")]
    assert not warper.is_warping and control.getPlayRate() == pytest.approx(BASE_RATE)
    assert len(motionwarp_tasks(base)) == 1


def test_actor_removed_and_warper_destroyed_in_the_same_frame(base, scene):
    """destroy() before the task saw the removal still ends the warp with one cancelled event."""
    _, control = play_until(base, scene, 12.0)
    scene.actor.removeNode()
    scene.warper.destroy()
    step(base, 1 / 60)
    assert scene.recorder.seen == [("motionwarp-phase-start", "first", 0), CANCELLED]
    assert not scene.warper.is_warping and control.getPlayRate() == pytest.approx(BASE_RATE)
    assert motionwarp_tasks(base) == []


@pytest.mark.parametrize("at_frame", [1.0, 8.0])
def test_restarting_the_clip_in_a_phase_that_starts_at_frame_0_cancels(base, scene, tmp_path, at_frame):
    """Even a restart one frame in is seen; the game's restarted clip keeps playing."""
    scene.asset = write_asset(tmp_path, scene.asset.model_path, "turn", [dict(TURN_PHASES[0], start=0.0)] + TURN_PHASES[1:])
    _, control = play_until(base, scene, at_frame)
    scene.actor.play("turn")
    for _ in range(10):
        step(base, 1 / 60)
    assert scene.recorder.seen == [("motionwarp-phase-start", "first", 0), CANCELLED]
    assert scene.recorder.reasons == ["the clip was restarted"]
    assert not scene.warper.is_warping and control.getPlayRate() == pytest.approx(BASE_RATE)
    assert control.isPlaying()


def test_an_idle_warper_still_drives_other_clips_root_motion(base, scene):
    """Between warps the warper is the actor's root-motion driver: a looping clip moves it."""
    play_until(base, scene, 60.0)
    for _ in range(30):
        step(base, 1 / 60)
    before = np.array(scene.actor.getPos())
    scene.actor.loop("sway")
    for _ in range(30):
        step(base, 1 / 60)
    assert not scene.warper.is_warping
    assert np.linalg.norm(np.array(scene.actor.getPos()) - before) > 0.05


@pytest.mark.parametrize("end", ["finish", "cancel"])
def test_other_clips_keep_their_rate_and_keep_playing(base, scene, end):
    """With blending on, a clip the game plays beside the warp is not the warper's to touch."""
    actor = scene.actor
    actor.enableBlend()
    actor.setControlEffect("sway", 0.25)
    actor.setControlEffect("turn", 0.75)
    actor.loop("sway")
    actor.setPlayRate(0.8, "sway")
    sway = actor.getAnimControl("sway")
    rates = []
    warp, _ = play_until(base, scene, 38.0)
    rates.append(sway.getPlayRate())
    if end == "cancel":
        scene.warper.cancel()
    for _ in range(120):
        step(base, 1 / 60)
        rates.append(sway.getPlayRate())
    assert scene.recorder.seen[-1] == (CANCELLED if end == "cancel" else ("motionwarp-finished", "turn"))
    assert rates == [0.8] * len(rates) and sway.isPlaying()


def test_warper_defaults_to_base_and_names_its_own_task(base, scene):
    """Without taskmgr/render arguments a warper uses base's; each warper removes only its own task."""
    other = load_actor(scene.asset.model_path)
    other.reparentTo(base.render)
    second = MotionWarper(other)
    try:
        assert second.render == base.render
        assert len(motionwarp_tasks(base)) == 2
        second.destroy()
        assert len(motionwarp_tasks(base)) == 1
        play_until(base, scene, 12.0)
        assert scene.warper.is_warping and scene.recorder.seen == [("motionwarp-phase-start", "first", 0)]
    finally:
        second.destroy()
        other.cleanup()
        other.removeNode()
