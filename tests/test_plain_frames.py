"""A warp's plain frames (motionwarp/warp/plainframe.py) see what the game did to the clip in the very
frame it did it, in the warper's own task and in a WarpBatch (one by one, and in numpy).

The oracle is the contract (docs/design.md 4, End): a clip the game stops, sets to rate 0 or takes
the effect from before its last phase ends cancels the warp with that reason, and a clip stopped
after the last phase finishes it, in the frame the warper's task first sees it. The game's task runs
before the warper's (sort 40 < 45), after the clock moved the clip on: the plain frame's clip time
moved, yet the frame is not plain. And the root motion of a clip that plays without effect beside a
warp is followed through the warp (docs/design.md 3, Driving): given its effect back in a phase, it
moves the actor by its own track between its clip times of the last frame and this one.
"""
import math

import pytest
from panda3d.core import Point3, Quat, Vec3

from motionwarp import CANCELLED, FINISHED, WarpAsset, WarpState, WarpTarget, samples
from motionwarp.warp.batch import WarpBatch

from .conftest import step
from .warp_helpers import vault_targets

TARGETS = vault_targets(1.0, 0.6, 1.0)
STOPPED = "the warp's clip was stopped before its last phase ended"
RATE_0 = "the warp's clip was set to play at rate 0 before its last phase ended"
TAKEN = "another clip took over"
SCALED_0 = "the actor's scale is 0; a warp needs a positive scale"
FOLLOW_GONE = "the follow node of phase 'landing''s target was removed"


def natural_targets(asset):
    """Targets where the clip's own root motion ends each phase, from the origin facing +Y (offsets
    taken back out): a warp that plays at rate 1 (the sit has a stretch between its two phases)."""
    targets = []
    for phase in asset.phases:
        x, y, z, h = asset.track.sample(phase.motion.f1)
        quat = Quat()
        quat.setHpr(Vec3(h, 0, 0))
        point = Point3(x, y, z) + (quat.xform(Vec3(*phase.align_offset)) if phase.align_offset else Vec3(0))
        targets.append(WarpTarget(point - quat.xform(Vec3(*phase.t_offset)), h=h - phase.r_offset[0]))
    return targets


@pytest.fixture(params=["own task", "batch one by one", "batch in numpy"])
def runner(request, base, monkeypatch):
    """How the warper runs: its own task, or in a WarpBatch placing one by one or in numpy."""
    if request.param == "batch in numpy":
        monkeypatch.setattr("motionwarp.warp.batch._NUMPY_FROM", 1)
    batches = []

    def start(warper):
        if request.param != "own task":
            batches.append(WarpBatch(base.taskMgr))
            batches[-1].add(warper)
    yield start
    for batch in batches:
        batch.destroy()


@pytest.fixture
def heard(base):
    """(event, args) of the warp events, with the frame number each came in."""
    got = []
    for event in (CANCELLED, FINISHED):
        base.accept(event, lambda warper, *args, event=event: got.append((event, args)))
    yield got
    base.ignore(CANCELLED)
    base.ignore(FINISHED)


def game_task(base, action):
    """`action()` once, in the next frame, in a game task before the warper's."""
    def task(task):
        action()
        return task.done
    base.taskMgr.add(task, "the game", sort=40)


@pytest.mark.parametrize("clip, what, when, expected", [
    ("vault", "stop", "in a phase", (CANCELLED, ("vault", STOPPED))),
    ("vault", "rate 0", "in a phase", (CANCELLED, ("vault", RATE_0))),
    ("vault", "effect 0", "in a phase", (CANCELLED, ("vault", TAKEN))),
    ("vault", "scale 0", "in a phase", (CANCELLED, ("vault", SCALED_0))),
    ("vault", "follow node removed", "in a phase", (CANCELLED, ("vault", FOLLOW_GONE))),
    ("sit", "stop", "between phases", (CANCELLED, ("sit", STOPPED))),
    ("sit", "rate 0", "between phases", (CANCELLED, ("sit", RATE_0))),
    ("sit", "effect 0", "between phases", (CANCELLED, ("sit", TAKEN))),
    ("sit", "scale 0", "between phases", (CANCELLED, ("sit", SCALED_0))),
    ("vault", "stop", "after the last phase", (FINISHED, ("vault",))),
    ("vault", "effect 0", "after the last phase", (CANCELLED, ("vault", TAKEN))),
    ("vault", "scale 0", "after the last phase", (CANCELLED, ("vault", SCALED_0))),
    ("vault", "follow node removed", "after the last phase", (CANCELLED, ("vault", FOLLOW_GONE))),
])
def test_what_the_game_does_to_the_clip_ends_the_warp_in_that_frame(base, rig, warp_assets, runner, heard, clip, what,
                                                                    when, expected):
    actor, warper = rig
    asset = warp_assets[clip] if clip == "vault" else WarpAsset.load(samples.path(f"{clip}.warp.json"))
    runner(warper)
    targets = TARGETS if clip == "vault" else natural_targets(asset)
    follow = base.render.attachNewNode("platform")
    if what == "follow node removed":   # the landing's target follows a node (its frames are then not plain)
        targets = targets[:-1] + [WarpTarget(targets[-1].pos, h=targets[-1].h, follow=follow)]
    warp = warper.play(asset, targets)
    done = {"in a phase": 1, "between phases": 1, "after the last phase": len(asset.phases)}[when]
    for _ in range(600):
        step(base, 1 / 60)
        if len(warp.results) >= done and (when != "in a phase" or warp.in_phase):
            break
    for _ in range(3):   # a few plain frames first
        step(base, 1 / 60)
    assert warper.is_warping and not heard
    assert warp.state is (WarpState.IN_PHASE if when == "in a phase" else WarpState.BETWEEN)
    control = actor.getAnimControl(asset.clip)
    actions = {"stop": control.stop, "rate 0": lambda: control.setPlayRate(0.0),
               "effect 0": lambda: actor.getPartBundle("modelRoot").setControlEffect(control, 0.0),
               "scale 0": lambda: actor.setScale(0.0), "follow node removed": follow.removeNode}
    game_task(base, actions[what])
    step(base, 1 / 60)
    assert heard == [expected] and not warper.is_warping


def test_a_clip_playing_without_effect_beside_a_warp_keeps_its_clip_time_followed(base, rig, warp_assets, runner,
                                                                                  heard):
    """The game gives the walk its effect back in the middle of a phase: the warp is cancelled (another
    clip took over) and the walk moves the actor by its last frame's root motion, not by all of it
    since the warp started."""
    actor, warper = rig
    vault = warp_assets["vault"]
    runner(warper)
    warper.driver.loop("walk")
    walk = actor.getAnimControl("walk")
    bundle = actor.getPartBundle("modelRoot")
    step(base, 1 / 60)
    bundle.setControlEffect(walk, 0.0)   # the walk plays on, without effect
    warp = warper.play(vault, TARGETS)
    for _ in range(600):
        step(base, 1 / 60)
        if len(warp.results) == 1 and warp.in_phase:
            break
    for _ in range(5):
        step(base, 1 / 60)
    assert warper.is_warping and walk.isPlaying() and warp.in_phase
    before_pos, before_h, before_frame = actor.getPos(), actor.getH(), walk.getFullFframe()
    game_task(base, lambda: bundle.setControlEffect(walk, 1.0))
    step(base, 1 / 60)
    assert heard == [(CANCELLED, ("vault", TAKEN))]
    after_frame = walk.getFullFframe()
    assert 0.0 < after_frame - before_frame < 2.0   # one frame of the walk, no seam crossed
    track = warper.driver.tracks["walk"]
    (x0, y0, _, h0), (x1, y1, _, _) = track.sample(before_frame), track.sample(after_frame)
    turn = math.radians(h0)   # the step seen from the walk's own frame at its last clip time
    dx = math.cos(turn) * (x1 - x0) + math.sin(turn) * (y1 - y0)
    dy = math.cos(turn) * (y1 - y0) - math.sin(turn) * (x1 - x0)
    heading = math.radians(before_h)
    expected = (before_pos.x + math.cos(heading) * dx - math.sin(heading) * dy,
                before_pos.y + math.sin(heading) * dx + math.cos(heading) * dy)
    assert math.hypot(actor.getX() - expected[0], actor.getY() - expected[1]) < 1e-5
    assert math.hypot(dx, dy) > 1e-3   # the walk did move it
