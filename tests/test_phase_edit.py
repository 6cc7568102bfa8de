"""Phase-window edits as functions: snapped to frames, stopped by neighbours, validated, undoable, saved."""
import functools
import json

import pytest

from motionwarp_demo.editor.phase_edit import EditHistory, move_phase, phase_motion, resize_phase, snap
from motionwarp import WarpAsset

from .conftest import MANNEQUIN

near = functools.partial(pytest.approx, abs=1e-5)  # phase times are stored to 6 decimals


@pytest.fixture
def vault(warp_asset_dir, tmp_path):
    data = json.loads((warp_asset_dir / "vault.warp.json").read_text())
    data["model"] = str(MANNEQUIN)  # the copy lives elsewhere: it names the model by its full path
    path = tmp_path / "vault.warp.json"
    path.write_text(json.dumps(data))
    return WarpAsset.load(path)


def windows(asset):
    return [(p.start, p.end) for p in asset.phases]


def flat(asset):
    """Every phase's start and end in one list: pytest.approx compares no nested sequences."""
    return [t for window in windows(asset) for t in window]


def test_a_drag_moves_the_window_by_whole_frames_and_keeps_its_length(vault):
    fps = vault.track.fps
    vault = resize_phase(vault, 1, "end", vault.phases[1].end - 3 / fps)  # room before the next phase
    (s0, e0), (s1, e1) = windows(vault)[:2]
    moved = move_phase(vault, 1, 1.4 / fps)  # 1.4 frames: snaps to 1
    assert moved.phases[1].start == near(s1 + 1 / fps) and moved.phases[1].end == near(e1 + 1 / fps)
    assert windows(moved)[0] == (s0, e0)
    # Dragged far left, it stops against the phase before it.
    stopped = move_phase(vault, 1, -10.0)
    assert stopped.phases[1].start == near(e0)
    assert stopped.phases[1].end - stopped.phases[1].start == near(e1 - s1)


def test_a_resize_snaps_each_edge_and_stays_a_frame_long(vault):
    fps = vault.track.fps
    start, end = windows(vault)[0]
    grown = resize_phase(vault, 0, "end", end + 2.6 / fps)
    assert grown.phases[0].end == near(min(round((end + 2.6 / fps) * fps) / fps, vault.phases[1].start))
    shrunk = resize_phase(vault, 0, "end", start - 5.0)
    assert shrunk.phases[0].end == near(start + 1 / fps)
    assert snap(0.51, 30) == near(15 / 30)
    with pytest.raises(ValueError, match="edge must be"):
        resize_phase(vault, 0, "middle", 0.2)


def test_the_phase_motion_follows_the_window(vault):
    track = vault.track
    phase = vault.phases[0]
    first, last = round(phase.start * track.fps), round(phase.end * track.fps)
    if first == phase.start * track.fps and last == phase.end * track.fps:  # whole frames: the raw track is the oracle
        expected = track.positions[last] - track.positions[first]
        assert phase_motion(vault, 0) == pytest.approx(tuple(expected), abs=1e-4)
    shorter = resize_phase(vault, 0, "end", phase.end - 3 / track.fps)
    assert phase_motion(shorter, 0) != near(phase_motion(vault, 0))


def test_undo_then_save_and_reload_give_the_same_asset(vault):
    history = EditHistory()
    history.record(vault)
    edited = move_phase(vault, 2, -1 / vault.track.fps)
    assert history.undo(edited) is vault and history.undo(vault) is vault
    edited.save()
    reloaded = WarpAsset.load(edited.path)
    assert reloaded.to_dict() == edited.to_dict() and flat(reloaded) == near(flat(edited))
