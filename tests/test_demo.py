"""main.py as a user meets it: no display, bad options, and an offscreen screenshot of a vault."""
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


def test_unknown_option_exits_2():
    result = run_main("--warp-speed")
    assert result.returncode == 2 and "unrecognized arguments: --warp-speed" in result.stderr


def test_screenshot_shows_the_vault(tmp_path):
    png = tmp_path / "vault.png"
    result = run_main("--screenshot", str(png), "--at", "3.6", env=without_display())
    assert result.returncode == 0, result.stderr
    assert "vault: phase far_edge" in result.stdout
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
    assert result.stderr.strip() == f"main.py: {scene}: spawn.pos: expected a list of three finite numbers, got [0, 0]"
