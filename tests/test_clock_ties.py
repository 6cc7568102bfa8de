"""A warp plays the same whatever the clock's time when it starts (docs/design.md 9): a phase end that
a frame lands on exactly is reached in that frame, not one frame later because the clock's absolute
time rounded the clip time a hair below it (the real-prop sweep's vault rows moved with the
placements played before them: docs/real-props.md). The contact IK likewise: a frame landing exactly
on a contact's start or end is inside its window (stone_largeB x3@90's hips read 126 or 154 mm by when
the sweep's process started)."""
from types import SimpleNamespace

import numpy as np
from panda3d.core import ClockObject

from .conftest import step
from .contact_helpers import HIPS, ContactRun, Level
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


def test_the_contact_ik_bends_frame_for_frame_the_same_from_any_clock_time(base, warp_assets):
    """A 0.7 m box 1.4 m deep, 2 m ahead: the run-up plays at its least rate (0.5) and far_edge at its
    least (0.7), so a frame lands exactly on the hands' contact end (0.98 s: 0.70 + 12 x 0.7 / 30). Read a
    hair above it, the hands were let go there (their last correction easing out) instead of held: the
    hips and hands of the frames after differed by up to 80 mm (a 0.6 m box) by when the clock started."""
    level = Level(base.render, 0.7, 1.4, 2.0)
    found = SimpleNamespace(asset=warp_assets["vault"], targets=vault_targets(0.7, 1.4, 2.0))
    runs = []
    for start in STARTS:
        ClockObject.getGlobalClock().setFrameTime(start)
        run = ContactRun(base, level, None, 30, found=found)
        assert run.finished
        runs.append(np.array([[frame["t"]] + [v for joint in (HIPS, "hand_l", "hand_r") for v in frame["pos"][joint]]
                              for frame in run.frames]))
    assert np.any(np.abs(runs[0][:, 0] - 0.98) < 1e-9), "no frame lands on the hands' contact end"
    for start, run in zip(STARTS[1:], runs[1:]):
        assert run.shape == runs[0].shape, f"from {start} s: {len(run)} frames, not {len(runs[0])}"
        apart = np.abs(run - runs[0]).max(axis=1)
        worst = int(np.argmax(apart))
        # float32 joint matrices: the same pose read a few 1e-7 m apart
        assert apart[worst] < 1e-5, f"from {start} s, frame {worst} (t={run[worst, 0]:.3f}) is {apart[worst]:.4f} m apart"
