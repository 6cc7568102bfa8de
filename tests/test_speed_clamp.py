"""The speed clamp `max_speed` (issue 30; docs/design.md 4, Play rate): the root never moves faster
than the phase allows, measured frame by frame from the actor's real position, and still arrives."""
import pytest
from panda3d.core import Point3

from motionwarp import AssetError, WarpTarget

from .test_turning import walk_asset
from .warp_helpers import WarpRun

#: The walk covers 1.4 m in its 1 s phase; stretched to 2.6 m at max_rate 1 it peaks near 3.6 m/s.
STRETCHED = [WarpTarget(Point3(0.0, 2.6, 0.0))]


@pytest.mark.parametrize("fps", [30, 60, 144])
def test_the_root_never_moves_faster_than_max_speed(base, rig, fps):
    actor, warper = rig
    free = WarpRun(base, warper, walk_asset(), STRETCHED, fps)
    actor.setPos(0, 0, 0)
    capped = WarpRun(base, warper, walk_asset(max_speed=2.0), STRETCHED, fps)
    assert free.max_speed() > 2.5, "the walk is not stretched enough for the clamp to matter"
    # Per frame at most 2 m/s (sampled at half clip frames; the smoothstep between them adds ~0.5 %).
    assert capped.max_speed() <= 2.0 * 1.01
    assert capped.max_speed() >= 2.0 * 0.97, "the clamp slowed the clip more than it had to"
    for run in (free, capped):
        result = run.warp.results[0]
        assert (result.arrived - result.target).length() < 1e-3
    rate = capped.warp.results[0].play_rate
    assert rate < 1.0   # below min_rate (1): the clamp wins
    assert all(r == pytest.approx(rate) for _, r in capped.rates)


def test_a_base_rate_counts_against_the_clamp(base, rig):
    actor, warper = rig
    asset = walk_asset(max_speed=2.0, max_rate=1.6)
    rates = warper.check(asset, STRETCHED, rate=2.0)
    plain = warper.check(asset, STRETCHED, rate=1.0)
    assert rates[0] == pytest.approx(plain[0] / 2.0, rel=1e-6)


def test_a_slow_phase_keeps_its_rate(base, rig):
    """Where the warped path stays under the cap, the rate is design 4's clamp(|A| / |T - P0|)."""
    _, warper = rig
    rates = warper.check(walk_asset(max_speed=5.0, min_rate=0.5, max_rate=1.6), [WarpTarget(Point3(0, 1.0, 0))])
    assert rates[0] == pytest.approx(1.4 / 1.0, rel=1e-3)


def test_max_speed_must_be_positive():
    with pytest.raises(AssetError, match=r"phases\[0\]\.max_speed: expected metres per second with 0 < max_speed "
                                         r"\(or null: no limit\), got 0"):
        walk_asset(max_speed=0)


def test_an_unstretched_walk_is_slowed_to_the_cap(base, rig):
    """The walk's own speed is above 1 m/s: capped at 1 m/s its 1 s phase lasts about 1.4 s or more."""
    actor, warper = rig
    run = WarpRun(base, warper, walk_asset(max_speed=1.0), [WarpTarget(Point3(0, 1.4, 0))], 60)
    assert run.max_speed() <= 1.01
    assert len(run.rates) / 60.0 >= 1.35
    result = run.warp.results[0]
    assert (result.arrived - result.target).length() < 1e-3
