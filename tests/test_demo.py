"""main.py as a user meets it: no display, bad options, and an offscreen screenshot of a vault."""
import json
import math
import os
import subprocess
import sys

import pytest
from panda3d.core import Filename, PNMImage

from .conftest import ROOT, SAMPLES, in_process


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
    (["--window-size", "800"], "argument --window-size: expected WIDTHxHEIGHT in pixels from 320x240 to 7680x4320, "
                               "like 1920x1080, got '800'"),
    (["--window-size", "100x100"], "argument --window-size: expected WIDTHxHEIGHT in pixels from 320x240 to "
                                   "7680x4320, like 1920x1080, got 100x100"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, message):
    """In process: the demo's `main` (named as `python -m motionwarp_demo`) refuses these before it opens a window or loads a model (the
    subprocess tests around it cover the entry point)."""
    from motionwarp_demo.app.cli import main
    status, stderr = in_process(main, args, capsys)
    assert status == 2
    assert len(stderr.splitlines()) == 1 and message in stderr and stderr.startswith("python -m motionwarp_demo: ")


def test_window_size_sets_the_screenshots_size_and_nothing_else_is_printed(tmp_path, warp_asset_dir):
    png = tmp_path / "small.png"
    result = run_main("--headless", "--autopilot", "--assets", str(warp_asset_dir), "--window-size", "400x300",
                      "--show-help", "--screenshot", str(png), "--at", "0.5", env=without_display())
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and result.stdout == "0.50 s simulated: walking\n"   # no console noise
    image = PNMImage(Filename.fromOsSpecific(str(png)))
    assert (image.getXSize(), image.getYSize()) == (400, 300)


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


def test_the_screenshot_is_the_frame_drawn_with_the_contact_ik(tmp_path, warp_asset_dir):
    """The saved picture is the frame the game draws, after the warper and the contact IK: mid
    close_edge (3.0 s, the hands reaching for the crate) the pictures with and without the IK
    differ by thousands of pixels in the scene (4,183 measured; 0 when the picture was
    rendered after the step, redrawn from the plain animation). The HUD, whose fps counter is
    wall-clock time, is left out."""
    character = json.loads((SAMPLES / "characters" / "mannequin.json").read_text())
    character["model"] = str(SAMPLES / "assets" / "mannequin.glb")
    shots = {}
    for ik in (True, False):
        path = tmp_path / f"ik-{ik}.json"
        path.write_text(json.dumps(dict(character, contact_ik=ik)))
        shots[ik] = tmp_path / f"ik-{ik}.png"
        result = run_main("--headless", "--autopilot", "--character", str(path), "--assets", str(warp_asset_dir),
                          "--screenshot", str(shots[ik]), "--at", "3.0", env=without_display())
        assert result.returncode == 0, result.stderr
        assert "3.00 s simulated: vault: phase close_edge" in result.stdout
    drawn, plain = (PNMImage(Filename.fromOsSpecific(str(shots[ik]))) for ik in (True, False))
    width, height = drawn.getXSize(), drawn.getYSize()
    scene = range(height // 8, height * 7 // 8)   # below the HUD's lines, above the prompt
    changed = sum(1 for y in scene for x in range(width) if (drawn.getXel(x, y) - plain.getXel(x, y)).length() > 0.05)
    assert changed > 1000, changed


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
    scene = {o["name"]: o for o in json.loads((SAMPLES / "scenes" / "course.json").read_text())["obstacles"]}
    taken = [(i["obstacle"], i["asset"]) for i in report["interactions"]]
    # Along the path: boxes (0.6, 1.0, 1.4 m) and meshes (log, wedge crate) vaulted, both mantles.
    assert taken == [("crate", "vault"), ("log", "vault"), ("low crate", "vault"), ("wedge crate", "vault"),
                     ("tall crate", "vault"), ("chamfered ledge", "mantle"), ("high ledge", "mantle_high")]
    for interaction in report["interactions"]:
        assert interaction["completed"]
        # met in their middle, from the source assets' first frame; nothing there moves to switch off
        assert not interaction["mirrored"] and interaction["start_frame"] == 0 and not interaction["switched_off"]
        assert len(interaction["phases"]) == {"vault": 3, "mantle": 2}[interaction["kind"]]
        for phase in interaction["phases"]:
            assert phase["error_m"] < 1e-3 and phase["error_deg"] < 0.1
            assert 0.5 <= phase["play_rate"] <= 1.6
        box = scene[interaction["obstacle"]].get("size")
        if box is not None:   # a box: the providers measured its height from the scene file's size
            assert interaction["obstacle_height"] == pytest.approx(box[2], abs=0.01)
            if interaction["kind"] == "vault":   # and landed beyond it
                assert interaction["final_pos"][1] > scene[interaction["obstacle"]]["pos"][1] + box[1] / 2
    high = scene["high ledge"]
    assert report["interactions"][-1]["final_pos"][2] == pytest.approx(high["size"][2], abs=0.01)   # on top
    # Refusals stand on the path: each met in front of its near face, facing it, with the providers' reason.
    assert report["stopped"] is None   # the path then goes round them
    refusals = {r["obstacle"]: r for r in report["refusals"]}
    assert list(refusals) == ["walled crate", "roofed ledge"]
    assert "landing blocked by wall behind" in refusals["walled crate"]["reason"]
    assert "no head room on top (1.20 m < 1.80 m)" in refusals["roofed ledge"]["reason"]
    for name, refusal in refusals.items():
        near_face = scene[name]["pos"][1] - scene[name]["size"][1] / 2
        assert near_face - 1.6 < refusal["pos"][1] < near_face and abs(refusal["pos"][0]) < 0.3
        assert 0 < refusal["sim_seconds"] < report["sim_seconds"]
    assert report["skipped"] == [{"obstacle": r["obstacle"], "reason": r["reason"]} for r in report["refusals"]]
    # It walks off the back of both ledges: a fall from each one's top, landing on the ground beyond it.
    chamfered = next(i for i in report["interactions"] if i["obstacle"] == "chamfered ledge")
    first, second = report["falls"]
    assert first["height"] == pytest.approx(chamfered["final_pos"][2], abs=0.01) and first["landed"][2] == 0.0
    assert first["landed"][1] > scene["chamfered ledge"]["pos"][1]
    assert second["height"] == pytest.approx(high["size"][2], abs=0.01) and second["landed"][2] == 0.0
    assert second["landed"][1] > high["pos"][1] + high["size"][1] / 2
    x, y, z = report["end"]["pos"]
    assert z == pytest.approx(0.0, abs=1e-4) and math.dist((x, y), report_end_waypoint()) < 0.6


def report_end_waypoint():
    """The course's last waypoint, from the scene file."""
    return json.loads((SAMPLES / "scenes" / "course.json").read_text())["autopilot"][-1]


def course_report(tmp_path, warp_asset_dir, obstacles, waypoints):
    """The headless report of the default course's ground with other obstacles and waypoints."""
    scene = json.loads((SAMPLES / "scenes" / "course.json").read_text())
    scene["obstacles"], scene["autopilot"] = obstacles, waypoints
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(scene))
    out = tmp_path / "report.json"
    result = run_main("--headless", "--autopilot", "--assets", str(warp_asset_dir), "--scene", str(path),
                      "--report", str(out), env=without_display())
    assert result.returncode == 0, result.stderr
    return json.loads(out.read_text())


def test_headless_report_names_what_was_skipped(tmp_path, warp_asset_dir):
    report = course_report(tmp_path, warp_asset_dir,
                           [{"name": "tower", "shape": "box", "pos": [0, 2, 0], "size": [2, 2, 3.0]},
                            {"name": "platform", "shape": "box", "pos": [0, 9, 0], "size": [3, 3, 2.1]}],
                           [[0, -3], [0, 12]])
    # the traversal's and the jump's refusals of the one tower, joined (design 7 "One chooser")
    reason = "too high to vault (3.00 m > 1.50 m) or mantle (3.00 m > 2.30 m) or jump onto (3.00 m > 0.90 m)"
    assert report["skipped"] == [{"obstacle": "tower", "reason": reason}]
    # The tower stands across the path: the autopilot stops in front of it instead of walking through.
    assert report["interactions"] == []
    assert report["stopped"] == {"obstacle": "tower", "reason": reason}
    x, y, z = report["end"]["pos"]
    tower_face, capsule_radius = 1.0, 0.3
    assert z == pytest.approx(0.0, abs=1e-4)
    assert tower_face - 0.5 < y + capsule_radius <= tower_face + 1e-4


@pytest.mark.parametrize("height", [3.0, 0.9])
def test_a_character_without_warp_assets_stops_naming_the_obstacle(tmp_path, warp_asset_dir, height):
    """With no warp assets the providers name nothing; `stopped` still names the box across the path,
    one below the chest too (the Knight's autopilot stopped "at something" before a 1 m crate)."""
    character = json.loads((SAMPLES / "characters" / "mannequin.json").read_text())
    del character["warp_assets"]
    character["model"] = str(SAMPLES / "assets" / "mannequin.glb")
    (tmp_path / "plain.json").write_text(json.dumps(character))
    scene = json.loads((SAMPLES / "scenes" / "course.json").read_text())
    scene["obstacles"] = [{"name": "tower", "shape": "box", "pos": [0, 2, 0], "size": [2, 2, height]}]
    scene["autopilot"] = [[0, -3], [0, 12]]
    (tmp_path / "scene.json").write_text(json.dumps(scene))
    out = tmp_path / "report.json"
    result = run_main("--headless", "--autopilot", "--character", str(tmp_path / "plain.json"),
                      "--scene", str(tmp_path / "scene.json"), "--report", str(out), env=without_display())
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    assert report["stopped"] == {"obstacle": "tower",
                                 "reason": f"this character has no warp assets to vault or mantle with ({tmp_path / 'plain.json'} "
                                           "lists none in warp_assets; `python -m motionwarp author` writes them)"}
    assert report["end"]["pos"][1] + 0.3 == pytest.approx(1.0, abs=0.5)   # the capsule against the tower's face


def test_headless_report_takes_what_the_path_meets_after_a_fall(tmp_path, warp_asset_dir):
    report = course_report(tmp_path, warp_asset_dir,
                           [{"name": "platform", "shape": "box", "pos": [0, 9, 0], "size": [3, 3, 2.1]}],
                           [[0, -3], [0, 9], [0, 14]])
    assert [(i["obstacle"], i["asset"]) for i in report["interactions"]] == [("platform", "mantle_high")]
    assert report["interactions"][0]["final_pos"][2] == pytest.approx(2.1, abs=0.01)
    # It walks off the far side (y = 10.5), falls 2.1 m and ends on the ground at the last waypoint.
    assert report["stopped"] is None
    x, y, z = report["end"]["pos"]
    assert z == pytest.approx(0.0, abs=1e-4) and 13.0 < y < 14.5


def test_headless_report_records_mirrored_vaults_and_pose_matched_starts(tmp_path, warp_asset_dir):
    """Three 1.2 m crates across the line x = 0: shifted 0.45 m left (its right end 0.15 m from the
    line, the left 1.05 m), centred, shifted right. Only the first has its nearer end to the right, so
    only its vault plays mirrored (design 7); the report keeps `asset` the source's name. The vault's
    `pose_match.window` is one frame wide, [0.2, 0.2] s: every vault starts at that clip frame, which
    the test computes from the clip's own frame rate, and still ends each phase on its target."""
    from motionwarp import WarpAsset
    assets = tmp_path / "assets"
    assets.mkdir()
    for source in warp_asset_dir.iterdir():
        data = json.loads(source.read_text()) if source.name.endswith(".warp.json") else None
        if data is not None:
            data["model"] = str(SAMPLES / "assets" / "mannequin.glb")
            if data["clip"] == "vault":
                data["pose_match"] = {"window": [0.2, 0.2]}
            (assets / source.name).write_text(json.dumps(data))
        else:
            (assets / source.name).write_bytes(source.read_bytes())
    fps = WarpAsset.load(assets / "vault.warp.json").track.fps
    crates = [("right end near", -0.45, 2.0), ("centred", 0.0, 7.0), ("left end near", 0.45, 12.0)]
    scene = json.loads((SAMPLES / "scenes" / "course.json").read_text())
    scene["obstacles"] = [{"name": name, "shape": "box", "pos": [x, y, 0], "size": [1.2, 0.6, 1.0], "h": 0}
                          for name, x, y in crates]
    scene["autopilot"] = [[0, -3], [0, 16]]
    (tmp_path / "scene.json").write_text(json.dumps(scene))
    out = tmp_path / "report.json"
    result = run_main("--headless", "--autopilot", "--assets", str(assets), "--scene", str(tmp_path / "scene.json"),
                      "--report", str(out), env=without_display())
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    taken = [(i["obstacle"], i["asset"], i["mirrored"]) for i in report["interactions"]]
    assert taken == [("right end near", "vault", True), ("centred", "vault", False), ("left end near", "vault", False)]
    for interaction, (_, x, y) in zip(report["interactions"], crates):
        assert interaction["start_frame"] == round(0.2 * fps)
        assert interaction["completed"] and not interaction["switched_off"] and "reason" not in interaction
        assert all(phase["error_m"] < 1e-3 and phase["error_deg"] < 0.1 for phase in interaction["phases"])
        assert interaction["final_pos"][1] > y + 0.3   # landed beyond the crate's far face
