"""main.py as a user meets it: no display, bad options, and an offscreen screenshot of a vault."""
import json
import os
import subprocess
import sys

import pytest
from panda3d.core import Filename, PNMImage

from .conftest import ROOT


def run_main(*args, env=None):
    return subprocess.run([sys.executable, "main.py", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=env)


def without_display():
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return env


@pytest.mark.skipif(bool(os.environ.get("DISPLAY")), reason="a display is available here")
def test_no_display_is_one_clear_line():
    result = run_main(env=without_display())
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("main.py:")]
    assert len(lines) == 1 and "cannot open a window" in lines[0]


@pytest.mark.parametrize("args, message", [
    (["--warp-speed"], "unrecognized arguments: --warp-speed"),
    (["--report", "r.json"], "--report, --screenshot and --at need --headless"),
    (["--headless", "--autopilot", "--fps", "0"], "argument --fps: expected a whole number from 1 to 1000, got 0"),
    (["--headless", "--autopilot", "--scene", "nowhere.json"], "nowhere.json: file not found"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    result = run_main(*args, env=without_display())
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1 and message in result.stderr and result.stderr.startswith("main.py: ")


def test_screenshot_shows_the_vault(tmp_path, warp_asset_dir):
    png = tmp_path / "shots" / "vault.png"  # main.py makes the folder
    result = run_main("--headless", "--autopilot", "--assets", str(warp_asset_dir), "--screenshot", str(png),
                      "--at", "3.6", env=without_display())
    assert result.returncode == 0, result.stderr
    assert "3.60 s simulated: vault: phase far_edge" in result.stdout
    image = PNMImage(Filename.fromOsSpecific(str(png)))
    # The mannequin's blue shirt is in the middle of the frame, above the crate.
    width, height = image.getXSize(), image.getYSize()
    shirt = [image.getXel(x, y) for x in range(width * 2 // 5, width * 3 // 5, 4) for y in range(height // 4, height * 3 // 4, 4)]
    assert sum(1 for c in shirt if c[2] > 0.5 and c[2] > c[0] + 0.25) > 20


def test_bad_scene_is_one_clear_line(tmp_path):
    scene = tmp_path / "broken.json"
    scene.write_text('{"format": "motionwarp.scene/1", "ground": {"size": [10, 10]}, "spawn": {"pos": [0, 0]}, "obstacles": []}')
    result = run_main("--scene", str(scene), env=without_display())
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (f"main.py: {scene}: spawn.pos: expected a list of three finite numbers "
                                     f"from -100000 to 100000, got [0, 0]")


def test_headless_report_of_the_course(tmp_path, warp_asset_dir):
    out = tmp_path / "out" / "report.json"  # main.py makes the folder
    result = run_main("--headless", "--autopilot", "--assets", str(warp_asset_dir), "--report", str(out),
                      "--fps", "30", env=without_display())
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    assert report["fps"] == 30 and report["sim_seconds"] == pytest.approx(report["frames"] / 30, abs=1e-3)
    assert report["scene"].endswith("course.json")
    taken = [(i["obstacle"], i["asset"]) for i in report["interactions"]]
    assert taken == [("crate", "vault"), ("log", "vault"), ("wedge crate", "vault"), ("stone wall", "vault"),
                     ("barrel", "vault"), ("crate", "vault"), ("chamfered ledge", "mantle")]
    for interaction in report["interactions"]:
        assert interaction["completed"]
        assert len(interaction["phases"]) == (3 if interaction["kind"] == "vault" else 1)
        for phase in interaction["phases"]:
            assert phase["error_m"] < 1e-3 and phase["error_deg"] < 0.1
            assert 0.5 <= phase["play_rate"] <= 1.6
    crate_north, crate_south = (i for i in report["interactions"] if i["obstacle"] == "crate")
    assert crate_north["final_pos"][1] > 2.3 and crate_south["final_pos"][1] < 1.7  # over it both ways
    ledge = next(i for i in report["interactions"] if i["obstacle"] == "chamfered ledge")
    assert ledge["final_pos"][2] == pytest.approx(1.6, abs=0.01)  # standing on top
    assert report["end"]["pos"][2] == pytest.approx(1.6, abs=0.01)  # and still there at the end
    skipped = {s["obstacle"]: s["reason"] for s in report["skipped"]}
    assert set(skipped) == {"roofed ledge", "walled crate"}
    assert "no head room on top (1.20 m < 1.80 m)" in skipped["roofed ledge"]
    assert "landing blocked by wall behind" in skipped["walled crate"]


def test_headless_report_names_what_was_skipped(tmp_path, warp_asset_dir):
    scene = json.loads((ROOT / "scenes" / "course.json").read_text())
    scene["obstacles"] = [{"name": "tower", "shape": "box", "pos": [0, 2, 0], "size": [2, 2, 3.0]},
                          {"name": "platform", "shape": "box", "pos": [0, 9, 0], "size": [3, 3, 2.1]}]
    scene["autopilot"] = [[0, -3], [0, 12]]
    path = tmp_path / "walls.json"
    path.write_text(json.dumps(scene))
    out = tmp_path / "report.json"
    result = run_main("--headless", "--autopilot", "--assets", str(warp_asset_dir), "--scene", str(path),
                      "--report", str(out), env=without_display())
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    assert [(i["obstacle"], i["asset"]) for i in report["interactions"]] == [("platform", "mantle_high")]
    assert report["skipped"] == [{"obstacle": "tower", "reason": "too high to vault (3.00 m > 1.50 m) or mantle (3.00 m > 2.30 m)"}]
