"""The pose invariant (docs/design.md 3): a stripped, driven clip puts every joint where the
untouched clip does, plus the cycles it travelled, on rigs other authors make."""
import shutil

import pytest

from . import rig_samples
from .pose_oracle import KNIGHT, authored_seconds, height_errors, invariant_errors, loop_period

TOLERANCE = 1e-3  # of the model's height

knight_only = pytest.mark.skipif(KNIGHT is None, reason="../shared/rigs/Knight.glb is not beside the project")


@pytest.mark.parametrize("fps", [30, 144])
@pytest.mark.parametrize("mode", ["bone", "projected"])
@pytest.mark.parametrize("rig", sorted(rig_samples.RIGS))
def test_generated_rigs_keep_their_pose(base, tmp_path, rig, mode, fps):
    path = rig_samples.write_rig(tmp_path / f"{rig}.glb", rig)
    for clip, (frames, *_rest) in rig_samples.CLIPS.items():
        # Without projected yaw the turn stays in the pose: that cycle cannot loop seamlessly, play it once.
        loop = not (mode == "projected" and clip == "turn")
        errors, _ = invariant_errors(base, path, clip, "hips", mode, 1.0 / fps, 2.5 * frames / rig_samples.FPS, loop)
        assert errors.max() < TOLERANCE * rig_samples.HEIGHT, (clip, errors.max(), int(errors.argmax()))


@pytest.fixture(scope="session")
def knight_copies(tmp_path_factory):
    """The Knight under a path of its own per (root joint, mode), each copy stripped by the first test
    that drives it and shared by the later ones, as Actors of one file share their bundles in a game.
    (A bundle is stripped for one root joint and mode; converting the Knight costs seconds.)"""
    folder, copies = tmp_path_factory.mktemp("knight"), {}

    def copy(joint, mode):
        if (joint, mode) not in copies:
            copies[joint, mode] = shutil.copy(KNIGHT, folder / f"Knight-{joint}-{mode}.glb")
        return copies[joint, mode]
    return copy


@pytest.fixture
def knight_copy(knight_copies):
    """The Knight driven by its root bone (the copy the root-bone tests share)."""
    return knight_copies("root", "bone")


@knight_only
@pytest.mark.parametrize("fps", [30, 144])
@pytest.mark.parametrize("joint,mode", [("root", "bone"), ("hips", "projected")])
def test_knight_keeps_its_pose(base, knight_copies, joint, mode, fps):
    for clip, loop in (("Walking_A", True), ("Running_A", True), ("Idle", True), ("Dodge_Forward", False)):
        errors, height = invariant_errors(base, knight_copies(joint, mode), clip, joint, mode, 1.0 / fps, 2.5, loop)
        assert errors.max() < TOLERANCE * height, (clip, errors.max() / height)


# 26 switches held for uneven times, so most land mid-cycle.
HOLDS = [0.37, 0.53, 0.29, 0.61] * 6 + [0.37, 0.53]


@pytest.mark.parametrize("fps", [30, 144])
def test_switching_clips_leaves_no_height_drift_on_a_generated_rig(base, tmp_path, fps):
    path = rig_samples.write_rig(tmp_path / "offset_hips.glb", "offset_hips")
    errors, _ = height_errors(base, path, "hips", "bone", ["walk", "in_place"], HOLDS, 1.0 / fps)
    assert errors.max() < TOLERANCE * rig_samples.HEIGHT, (errors.max(), int(errors.argmax()))


@knight_only
@pytest.mark.parametrize("fps", [30, 144])
def test_switching_clips_leaves_no_height_drift_on_the_knight(base, knight_copy, fps):
    errors, height = height_errors(base, knight_copy, "root", "bone", ["Running_A", "Idle"], HOLDS, 1.0 / fps)
    assert errors.max() < TOLERANCE * height, (errors.max() / height, int(errors.argmax()))


def test_a_looped_cycle_lasts_its_authored_length_on_a_generated_rig(base, tmp_path):
    path = rig_samples.write_rig(tmp_path / "fox_root.glb", "fox_root")
    for clip in ("walk", "stride32"):
        assert loop_period(base, path, clip, "hips", 1 / 144, 6.0) == pytest.approx(authored_seconds(path, clip), abs=1e-6)


@knight_only
def test_a_looped_cycle_lasts_its_authored_length_on_the_knight(base, knight_copy):
    for clip in ("Walking_A", "Running_A", "Idle"):
        assert loop_period(base, knight_copy, clip, "root", 1 / 144, 6.0) == pytest.approx(authored_seconds(knight_copy, clip), abs=1e-6)
