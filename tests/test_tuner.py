"""The demo's asset hotkeys: edits are validated, applied to the next warp, and saved atomically."""
import json
import shutil

import pytest

from motionwarp_demo.app.app import Demo
from motionwarp_demo.level.scene import Scene

from .conftest import SAMPLES, copy_warp_assets


def course_demo(base, tmp_path, warp_asset_dir):
    """A demo on the default course whose warp assets are private copies, in `tmp_path`, of the derived
    ones (the model stays in assets/)."""
    copy_warp_assets(warp_asset_dir, tmp_path)
    shutil.copymode(warp_asset_dir / "vault.warp.json", tmp_path / "vault.warp.json")
    return Demo(base, Scene.load(SAMPLES / "scenes" / "course.json"), asset_dir=tmp_path)


@pytest.fixture
def demo(base, tmp_path, warp_asset_dir):
    demo = course_demo(base, tmp_path, warp_asset_dir)
    yield demo
    demo.destroy()


def press(base, *keys):
    for key in keys:
        base.messenger.send(key)


def test_offset_keys_edit_the_selected_phase_until_saved(base, demo, tmp_path):
    path = tmp_path / "vault.warp.json"
    before = path.read_text()
    y = demo.assets["vault"].phases[0].t_offset[1]
    press(base, "i", "i", "u")
    phase = demo.assets["vault"].phases[0]
    assert phase.t_offset[1] == pytest.approx(y + 0.02) and phase.t_offset[2] == pytest.approx(demo.tuner.phase.t_offset[2])
    assert "(unsaved)" in demo.tuner.describe()
    assert path.read_text() == before  # nothing written until F5
    press(base, "f5")
    saved = json.loads(path.read_text())
    assert saved["phases"][0]["t_offset"][1] == pytest.approx(y + 0.02)
    assert "saved" in demo.tuner.describe() and "(unsaved)" not in demo.tuner.describe()


def test_values_the_asset_rules_refuse_are_not_kept(base, demo):
    press(base, *["0"] * 20)  # min_rate may not go above 1
    assert demo.assets["vault"].phases[0].min_rate == pytest.approx(1.0)
    assert "not changed: expected 0 < min_rate <= 1" in demo.tuner.describe()


def test_tab_and_brackets_select_asset_and_phase(base, demo):
    press(base, "]", "]")
    assert demo.tuner.phase.name == "landing"
    press(base, "tab")
    assert demo.tuner.asset.clip == "mantle" and demo.tuner.phase.name == "ledge_top"
    press(base, "l")
    assert demo.assets["mantle"].phases[0].t_offset[0] == pytest.approx(0.01)
    assert demo.assets["vault"].phases[2].t_offset[0] == pytest.approx(0.0)


def test_the_next_warp_uses_the_edited_asset(base, demo):
    press(base, *["tab"] * len(demo.assets), "9")  # round every asset back to the vault; close_edge's min rate - 0.05
    edited = demo.assets["vault"]
    assert edited.phases[0].min_rate == pytest.approx(0.45)
    demo.actor.setPos(0, 1.0, 0)  # 0.7 m before the crate's near face (at y = 1.7), facing it
    assert demo.interact()
    assert demo.warper.current.asset is edited


def test_a_read_only_asset_is_saved_to_a_copy_beside_it(base, demo, tmp_path):
    path = tmp_path / "vault.warp.json"
    before = path.read_text()
    path.chmod(0o444)
    try:
        press(base, "i", "f5")
        copy = tmp_path / "vault.edited.warp.json"
        assert path.read_text() == before
        saved = json.loads(copy.read_text())
        assert saved["phases"][0]["t_offset"][1] == pytest.approx(json.loads(before)["phases"][0]["t_offset"][1] + 0.01)
        assert f"saved {copy}" in demo.tuner.describe()
    finally:
        path.chmod(0o644)


def test_unsaved_means_unlike_the_file_so_undoing_back_to_it_clears_it(base, demo, tmp_path):
    """`(unsaved)` is shown exactly while the asset differs from its file; Z says what it undid."""
    path = tmp_path / "vault.warp.json"
    on_file = lambda: json.loads(path.read_text())["phases"]  # noqa: E731
    press(base, "i")
    assert "(unsaved)" in demo.tuner.describe()
    press(base, "z")
    assert "(unsaved)" not in demo.tuner.describe()   # back to what the file holds
    press(base, "]", "]", "i", "f5", "i")   # the landing's y offset +1 cm, saved, then +1 cm more
    x, y, z = on_file()[2]["t_offset"]
    assert "(unsaved)" in demo.tuner.describe()
    press(base, "z")
    assert demo.assets["vault"].phases[2].t_offset[1] == pytest.approx(y)
    assert "(unsaved)" not in demo.tuner.describe()   # undone back to the saved file
    assert demo.status.getText() == (f"Z undid vault: landing t_offset [{x:+.2f}, {y + 0.01:+.2f}, {z:+.2f}] -> "
                                     f"[{x:+.2f}, {y:+.2f}, {z:+.2f}]")
    press(base, "z")
    assert "(unsaved)" in demo.tuner.describe() and on_file()[2]["t_offset"][1] == pytest.approx(y)


def test_tab_clears_the_previous_assets_message(base, demo):
    press(base, "i", "z")
    assert demo.tuner.describe().endswith("undone")
    press(base, "tab")
    assert demo.tuner.asset.clip == "mantle" and "undone" not in demo.tuner.describe()


def test_rotation_and_limit_keys_edit_the_new_phase_fields(base, demo, tmp_path):
    """Issue 30's fields (docs/design.md 5.1) like the others: R cycles the rotation mode, 7 8 the
    rotation time, 5 6 the turn-rate cap (from off, and back to off at 0), 1 2 the switch-off distance,
    and F5 writes them."""
    press(base, "r", "7", "7", "6", "6", "6", "2", "m", "4")
    phase = demo.assets["vault"].phases[0]
    assert (phase.rotation, phase.rotation_time, phase.max_turn_rate) == ("facing", pytest.approx(0.8), 270.0)
    assert (phase.switch_off_distance, phase.switch_off_angle, phase.max_speed) == (0.25, 15.0, 0.5)
    assert "rotation facing in 0.8 of the phase, turn 270 deg/s, speed 0.5 m/s" in demo.tuner.describe()
    press(base, "5", "5", "5", "3", "r", "r")
    phase = demo.assets["vault"].phases[0]
    assert (phase.max_turn_rate, phase.max_speed, phase.rotation) == (None, None, "target")
    assert "turn any, speed any" in demo.tuner.describe()
    press(base, "f5")
    saved = json.loads((tmp_path / "vault.warp.json").read_text())["phases"][0]
    assert saved["rotation_time"] == pytest.approx(0.8) and saved["switch_off_distance"] == 0.25
    assert "max_turn_rate" not in saved and "rotation" not in saved


def test_a_rotation_the_rules_refuse_is_not_kept(base, demo):
    """`use` aligns hand_r: a facing rotation would need its end rotation before the root is there."""
    press(base, *["tab"] * demo.tuner.names.index("use"))
    assert demo.tuner.asset.clip == "use"
    press(base, "r")
    assert demo.assets["use"].phases[0].rotation == "target"
    assert "not changed: expected 'target' with an align_joint" in demo.tuner.describe()
