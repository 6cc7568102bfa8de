"""A warp plays the same whatever the clock's time when it starts (docs/design.md 9): a phase end that
a frame lands on exactly is reached in that frame, not one frame later because the clock's absolute
time rounded the clip time a hair below it (the real-prop sweep's vault rows moved with the
placements played before them: docs/real-props.md)."""
import numpy as np
from panda3d.core import ClockObject

from .conftest import step
from .warp_helpers import vault_targets

#: Clock times a warp starts at (rising: the rig's driver sees no clock going back); at 30 fps they
#: round the run-up's last frame on either side of its end.
STARTS = (20.611011, 21.0909253333333333, 22.011010999999999, 23.706278333333331, 1234.5678)


def played_from(base, warper, asset, targets, start, fps=30):
    """Per frame (clip frame, phase index, actor position) of the warp played from clock time `start`."""
    ClockObject.getGlobalClock().setFrameTime(start)
    warper.actor.setPos(0, 0, 0)
    warper.actor.setHpr(0, 0, 0)
    warp = warper.play(asset, targets)
    rows = []
    while warper.is_warping:
        step(base, 1.0 / fps)
        rows.append((round(warp.control.getFullFframe(), 6), warp.phase_index, tuple(np.round(warper.actor.getPos(), 6))))
        assert len(rows) < 10 * fps, "the warp did not end"
    return rows


def test_a_warp_plays_frame_for_frame_the_same_from_any_clock_time(base, rig, warp_assets):
    _, warper = rig
    runs = [played_from(base, warper, warp_assets["vault"], vault_targets(1.0, 0.6, 1.0), start) for start in STARTS]
    for start, run in zip(STARTS[1:], runs[1:]):
        first = next((i for i, (a, b) in enumerate(zip(run, runs[0])) if a != b), None)
        assert run == runs[0], f"from {start} s, frame {first} differs: {run[first]} != {runs[0][first]}"
