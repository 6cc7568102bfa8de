"""Pose-matched starts (issue 30; docs/design.md 4, 5.1): a vault played from a run starts at the
frame of its window whose feet and hips, relative to the root, are nearest the run's pose now, and
still ends every phase on its target. The expected frame is computed here, from a separate Actor
posed at each frame (Panda3D's own joint transforms), with the design's weighted squared distance."""
import json

import numpy as np
import pytest
from panda3d.core import Point3

from motionwarp import AssetError, WarpAsset, load_actor
from motionwarp.base.errors import UsageError

from .conftest import MANNEQUIN, step
from .warp_helpers import vault_targets

WINDOW = (0.0, 0.5)
#: Feet weigh 1, the hips 0.5 (design 4, Pose-matched starts).
WEIGHTS = {"foot_l": 1.0, "foot_r": 1.0, "hips": 0.5}


def _vault(warp_asset_dir, tmp_path, window=WINDOW):
    data = json.loads((warp_asset_dir / "vault.warp.json").read_text())
    data["model"] = str(MANNEQUIN)
    if window is not None:
        data["pose_match"] = {"window": list(window)}
    path = tmp_path / "vault.warp.json"
    path.write_text(json.dumps(data))
    return WarpAsset.load(path)


@pytest.fixture
def poser(base):
    """A separate mannequin Actor: joints read where Panda3D poses them, relative to the Actor."""
    actor = load_actor(MANNEQUIN)
    actor.reparentTo(base.render)
    joints = {name: actor.exposeJoint(None, "modelRoot", name) for name in WEIGHTS}

    def pose(clip, frame):
        actor.pose(clip, frame)
        actor.update(force=True)
        return {name: np.array(node.getPos(actor)) for name, node in joints.items()}
    yield pose
    actor.cleanup()
    actor.removeNode()


def _expected_start(poser, run_frame, clip="vault", window=WINDOW, fps=30):
    """The window's frame nearest the run's pose at `run_frame`: least sum of weight * squared distance."""
    now = poser("run", run_frame)
    frames = range(int(np.ceil(window[0] * fps)), int(np.floor(window[1] * fps)) + 1)
    costs = {f: sum(w * float(np.sum((poser(clip, f)[j] - now[j]) ** 2)) for j, w in WEIGHTS.items())
             for f in frames}
    return min(costs, key=costs.get), now


def _run_to(base, warper, frame):
    """Run from the origin until the run clip shows `frame` (clock steps of one clip frame)."""
    warper.actor.setPosHpr(0, 0, 0, 0, 0, 0)
    warper.driver.loop("run")
    control = warper.actor.getAnimControl("run")
    step(base, 1.0 / 30)
    for _ in range(200):
        if control.getFrame() == frame and warper.actor.getPos().length() > 0.5:
            return
        step(base, 1.0 / 30)
    raise AssertionError(f"the run never showed frame {frame}")


def _ahead(actor):
    """A 1 m box 1.2 m ahead of where the run has the actor (it runs +Y)."""
    targets = vault_targets(1.0, 0.6, 1.2)
    for target in targets:
        target.pos += Point3(actor.getX(), actor.getY(), 0)
    return targets


@pytest.mark.parametrize("run_frame", [3, 13])
def test_a_vault_from_a_run_starts_at_the_nearest_pose_and_ends_on_its_targets(base, rig, poser, warp_asset_dir,
                                                                               tmp_path, run_frame):
    actor, warper = rig
    asset = _vault(warp_asset_dir, tmp_path)
    expected, now = _expected_start(poser, run_frame)
    _run_to(base, warper, run_frame)
    targets = _ahead(actor)
    warp = warper.play(asset, targets)
    control = actor.getAnimControl("vault")
    assert warp.start_frame == expected
    assert control.getFullFframe() == pytest.approx(expected)   # the first frame the clip plays
    for _ in range(400):
        if not warper.is_warping:
            break
        step(base, 1.0 / 60)
    assert len(warp.results) == 3
    for result in warp.results:
        assert (result.arrived - result.target).length() < 1e-3, result.name   # within 1 mm
        assert result.start_frame == expected


def test_left_and_right_foot_forward_choose_different_frames(base, rig, poser, warp_asset_dir, tmp_path):
    _, warper = rig
    asset = _vault(warp_asset_dir, tmp_path)
    chosen = {}
    for run_frame in (3, 13):
        expected, now = _expected_start(poser, run_frame)
        _run_to(base, warper, run_frame)
        warp = warper.play(asset, _ahead(warper.actor), pose_match=True)
        chosen[run_frame] = (warp.start_frame, now["foot_l"][1] > now["foot_r"][1])
        warper.cancel()
    assert chosen[3][1] != chosen[13][1], "the two run frames have the same foot forward"
    assert chosen[3][0] != chosen[13][0]


def test_without_a_window_or_with_pose_match_false_the_clip_starts_at_0(base, rig, warp_asset_dir, tmp_path):
    actor, warper = rig
    _run_to(base, warper, 13)
    targets = _ahead(actor)
    warp = warper.play(_vault(warp_asset_dir, tmp_path), targets, pose_match=False)
    assert warp.start_frame == 0 and actor.getAnimControl("vault").getFullFframe() == 0
    warper.cancel()
    with pytest.raises(UsageError, match="names no pose_match window"):
        warper.play(_vault(warp_asset_dir, tmp_path, None), targets, pose_match=True)


@pytest.mark.parametrize("window, expected", [
    ([0.4, 0.2], r"pose_match\.window: expected \[t0, t1\] seconds of the clip with 0 <= t0 <= t1, got \[0\.4, 0\.2\]"),
    ([-0.1, 0.2], r"pose_match\.window: expected \[t0, t1\] .* 0 <= t0 <= t1"),
    ([0.0, 0.7], r"pose_match\.window: expected t1 before the first phase \('close_edge'\) ends \(0\.7 s\)"),
    (["a", 0.2], r"pose_match\.window: expected a list of two finite numbers"),
])
def test_a_bad_window_names_the_file_and_field(warp_asset_dir, tmp_path, window, expected):
    with pytest.raises(AssetError, match=r"vault\.warp\.json.*" + expected):
        _vault(warp_asset_dir, tmp_path, window)


def test_check_foresees_the_rates_of_the_matched_start(base, rig, warp_asset_dir, tmp_path):
    """check() walks the plan play() will play: the first phase from the matched frame, its rate the
    clip's remaining distance over the real one (design 4, Play rate), computed here from the track."""
    actor, warper = rig
    asset = _vault(warp_asset_dir, tmp_path)
    _run_to(base, warper, 13)
    targets = _ahead(actor)
    matched, plain = warper.check(asset, targets), warper.check(asset, targets, pose_match=False)
    warp = warper.play(asset, targets)
    track, phase = asset.track, asset.phases[0]
    clip = np.array(track.position(phase.end * track.fps)) - np.array(track.position(warp.start_frame))
    goal = targets[0].pos + Point3(*phase.t_offset)
    real = (goal - actor.getPos()).length()
    assert matched[0] == pytest.approx(min(max(np.linalg.norm(clip) / real, phase.min_rate), phase.max_rate), rel=1e-3)
    assert matched[0] != pytest.approx(plain[0], rel=1e-3)
    assert matched[1:] == pytest.approx(plain[1:], rel=1e-3)
