"""Switch-off rules for moving targets (issue 30; docs/design.md 4, End): a followed target that moves
or turns past its phase's limit ends the warp with a reason, within one frame; below the limit the
warp follows it as before. The target's path is the test's own: a node it moves every frame."""
import pytest
from panda3d.core import Point3

from motionwarp import CANCELLED, FINISHED, AssetError, WarpTarget

from .conftest import step
from .test_turning import walk_asset

FPS = 60


class Mover:
    """A node that moves `speed` m/s along +X and turns `turn` deg/s, in a task before the warper's."""

    def __init__(self, base, speed=0.0, turn=0.0):
        self.node = base.render.attachNewNode("enemy")
        self.node.setPos(0.0, 1.4, 0.0)
        self.speed, self.turn, self.seconds = speed, turn, 0.0
        self.base = base
        base.taskMgr.add(self._move, "enemy-move", sort=10)

    def _move(self, task):
        self.node.setPos(self.speed * self.seconds, 1.4, 0.0)
        self.node.setH(self.turn * self.seconds)
        self.seconds += 1.0 / FPS   # this frame's time: the frames are 1/FPS
        return task.cont

    def remove(self):
        self.base.taskMgr.remove("enemy-move")


def run(base, rig, asset, mover):
    """Play toward the mover's node; per frame the mover's time when the warper ran, and the events."""
    actor, warper = rig
    events = []
    base.accept(CANCELLED, lambda w, clip, reason: events.append((mover.seconds - 1.0 / FPS, "cancelled", reason)))
    base.accept(FINISHED, lambda w, clip: events.append((mover.seconds - 1.0 / FPS, "finished", None)))
    warp = warper.play(asset, [WarpTarget(Point3(0, 0, 0), follow=mover.node)])
    frames = 0
    while warper.is_warping and frames < 4 * FPS:
        step(base, 1.0 / FPS)
        frames += 1
    mover.remove()
    base.ignoreAll()
    return warp, events


def test_a_target_moving_past_the_distance_switches_the_warp_off(base, rig):
    # 0.5 m/s: the target passes 0.3 m from its start at 0.6 s, within the 1 s phase.
    mover = Mover(base, speed=0.5)
    warp, events = run(base, rig, walk_asset(switch_off_distance=0.3, max_rate=1.6), mover)
    assert len(events) == 1
    when, kind, reason = events[0]
    assert kind == "cancelled"
    assert reason.startswith("the target of phase 'approach' moved 0.3")
    assert "(switch_off_distance 0.3 m)" in reason
    assert warp.switched_off == reason   # the warp says a rule ended it, and why
    passed = 0.3 / 0.5
    assert passed <= when + 1e-9 <= passed + 1.0 / FPS + 1e-9   # the first frame past the limit, or the next
    assert warp.results == []   # the phase never ended
    assert not rig[0].getAnimControl("walk").isPlaying()
    assert rig[0].getAnimControl("walk").getPlayRate() == 1.0


def test_a_target_turning_past_the_angle_switches_the_warp_off(base, rig):
    mover = Mover(base, turn=90.0)   # passes 30 degrees at 1/3 s
    _, events = run(base, rig, walk_asset(switch_off_angle=30.0, max_rate=1.6), mover)
    when, kind, reason = events[0]
    assert kind == "cancelled"
    assert "turned 3" in reason and "(switch_off_angle 30 degrees)" in reason
    assert 1.0 / 3.0 <= when + 1e-9 <= 1.0 / 3.0 + 1.0 / FPS + 1e-9


def test_within_the_limits_the_warp_follows_its_target_to_the_end(base, rig):
    mover = Mover(base, speed=0.2, turn=10.0)   # 0.2 m and 10 degrees in the 1 s phase
    warp, events = run(base, rig, walk_asset(switch_off_distance=0.3, switch_off_angle=30.0, max_rate=1.6), mover)
    assert [kind for _, kind, _ in events] == ["finished"]
    assert warp.switched_off is None
    result = warp.results[0]
    assert (result.arrived - result.target).length() < 1e-3
    assert result.target[0] > 0.15   # it followed the target that moved


def test_a_fixed_target_never_switches_off(base, rig):
    actor, warper = rig
    warp = warper.play(walk_asset(switch_off_distance=0.01, max_rate=1.6), [WarpTarget(Point3(0.3, 1.4, 0))])
    for _ in range(2 * FPS):
        step(base, 1.0 / FPS)
    assert not warper.is_warping and len(warp.results) == 1


@pytest.mark.parametrize("phase, message", [
    ({"switch_off_distance": 0}, r"phases\[0\]\.switch_off_distance: expected metres with 0 < switch_off_distance "
                                 r"\(or null: no limit\), got 0"),
    ({"switch_off_angle": 190}, r"phases\[0\]\.switch_off_angle: expected degrees with 0 < switch_off_angle <= 180 "
                                r"\(or null: no limit\), got 190"),
    ({"switch_off_angle": "far"}, r"phases\[0\]\.switch_off_angle: .* got 'far'"),
])
def test_bad_switch_off_fields_are_named(phase, message):
    with pytest.raises(AssetError, match=message):
        walk_asset(**phase)


def test_the_run_report_records_the_switch_off_reason(base, rig):
    """The headless report (docs/design.md 8) keeps the CANCELLED event's reason."""
    import types

    from motionwarp_demo.views.report import RunReport
    asset = walk_asset(switch_off_distance=0.3, max_rate=1.6)
    demo = types.SimpleNamespace(base=base, actor=rig[0], on_start=None, on_skip=None,
                                 asset_name=lambda played: "takedown" if played is asset else None)
    report = RunReport(demo, "course.json", FPS)
    mover = Mover(base, speed=0.5)
    _, warper = rig
    warp = warper.play(asset, [WarpTarget(Point3(0, 0, 0), follow=mover.node)])
    interaction = types.SimpleNamespace(kind="use", asset=asset, height=0.0, depth=0.0)
    demo.on_start("enemy", interaction, warp)
    for _ in range(2 * FPS):
        step(base, 1.0 / FPS)
    mover.remove()
    report.ignoreAll()
    record = report.interactions[0]
    assert record["completed"] is False and record["switched_off"] is True
    assert record["reason"].startswith("the target of phase 'approach' moved")
    assert record["mirrored"] is False and record["start_frame"] == 0 and record["asset"] == "takedown"
