"""The curve editor through real mouse and key events: main.py in a window on a virtual X
display (Xvfb), driven by xdotool as a user's hand would, then the asset F5 wrote is checked.

Skipped where Xvfb, xdotool or ImageMagick's `import` is missing, or where no OpenGL window
opens on Xvfb. Nothing sleeps blindly: Xvfb says when it is ready (-displayfd), and the rest is
polled with short waits under a bounded deadline (an external process can only be watched, not
stepped): the window is looked for with `xdotool search`, the demo is ready once F5 rewrites the
asset, and each mouse step waits until the window shows it (the handle's colour, read from the
screen as a user sees it), since Panda3D reads all the X events of a frame at once.
"""
import os
import shutil
import subprocess
import sys
import time

import pytest

from motionwarp_demo.editor.curves import BOX as PANEL_BOX
from motionwarp import WarpAsset

from .conftest import ROOT, SAMPLES, copy_warp_assets

DEADLINE_S = 60.0
POLL_S = 0.1
HOVER, HELD = (255, 255, 102), (255, 140, 26)  # a handle under the mouse, and held by it (motionwarp_demo/editor/curves.py)


def _tools():
    missing = [tool for tool in ("Xvfb", "xdotool", "import") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not installed: no X display to send real mouse events to")


@pytest.fixture
def display():
    """A fresh Xvfb display (":N"), stopped afterwards."""
    _tools()
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()  # Xvfb writes its display number once it accepts clients
    if not number:
        server.kill()
        server.wait()
        pytest.skip("Xvfb did not start")
    yield f":{number}"
    server.terminate()
    server.wait(timeout=10)


def _xdotool(env, *args):
    return subprocess.run(["xdotool", *args], env=env, check=True, capture_output=True, text=True,
                          timeout=DEADLINE_S).stdout


def _colour(env, window, x, y):
    """The (r, g, b) of the window's pixel (x, y) on screen."""
    text = subprocess.run(["import", "-window", window, "-crop", f"1x1+{x}+{y}", "-depth", "8", "txt:-"], env=env,
                          check=True, capture_output=True, text=True, timeout=DEADLINE_S).stdout
    hex_colour = text.splitlines()[-1].split("#")[1][:6]  # after the header: "0,0: (r,g,b)  #RRGGBB ..."
    return tuple(int(hex_colour[i:i + 2], 16) for i in (0, 2, 4))


def _shows(env, window, point, colour):
    return lambda: all(abs(a - b) <= 8 for a, b in zip(_colour(env, window, *point), colour))


def _poll(what, ready, demo):
    """Wait for `ready()` with short waits up to the deadline; fail (with main.py's output) if it never is."""
    end = time.monotonic() + DEADLINE_S
    while time.monotonic() < end:
        if demo.poll() is not None:
            output = demo.stdout.read()
            pytest.skip(f"main.py could not run on Xvfb (exit {demo.returncode}): {output[-300:]}")
        if ready():
            return
        time.sleep(POLL_S)
    pytest.fail(f"timed out waiting for {what}")


def test_dragging_a_handle_with_the_mouse_then_f5_saves_the_moved_edge(display, tmp_path):
    copy_warp_assets(SAMPLES / "assets", tmp_path)
    path = tmp_path / "vault.warp.json"
    before = WarpAsset.load(path)
    env = dict(os.environ, DISPLAY=display, PYTHONPATH=str(ROOT))
    demo = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "--assets", str(tmp_path)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        windows = []

        def window_shown():
            windows[:] = subprocess.run(["xdotool", "search", "--name", "motionwarp demo"], env=env,
                                        capture_output=True, text=True, timeout=DEADLINE_S).stdout.split()
            return bool(windows)
        _poll("the demo window", window_shown, demo)
        window = windows[0]
        # The window opens before the demo is built: it is ready once F5 rewrites the asset file.
        first = path.stat().st_ino

        def saved_once():
            _xdotool(env, "key", "--window", window, "F5")
            return path.stat().st_ino != first
        _poll("the demo to answer F5", saved_once, demo)
        geometry = dict(line.split("=") for line in _xdotool(env, "getwindowgeometry", "--shell", window).split())
        width, height = int(geometry["WIDTH"]), int(geometry["HEIGHT"])

        def pixel(x, z):
            """Window pixel of panel point (x, z): a2dBottomLeft is aspect2d's (-aspect, -1), and aspect2d
            is render2d scaled by 1 / aspect across (a window wider than high)."""
            aspect = width / height
            rx, ry = (x - aspect) / aspect, z - 1.0
            return round((rx + 1) / 2 * width), round((1 - ry) / 2 * height)

        fps, duration = before.track.fps, (before.track.num_frames - 1) / before.track.fps
        left, right, bottom, top = PANEL_BOX
        end = before.phases[2].end
        grab = pixel(left + (right - left) * end / duration - 0.008, (bottom + top) / 2)
        # Three frames to the right, in whole pixels: the snapped frame must not depend on a pixel's rounding.
        step_px = round(3.0 / fps / duration * (right - left) * width / 2 / (width / height))
        moved_frames = step_px * 2 / width * (width / height) / (right - left) * duration * fps
        assert abs(moved_frames - round(moved_frames)) < 0.3
        _xdotool(env, "mousemove", "--window", window, str(grab[0]), str(grab[1]))
        _poll("the handle to light under the mouse", _shows(env, window, grab, HOVER), demo)
        _xdotool(env, "mousedown", "1")
        _poll("the handle to be held", _shows(env, window, grab, HELD), demo)
        moved = (grab[0] + step_px, grab[1])
        _xdotool(env, "mousemove", "--window", window, *map(str, moved))
        _poll("the edge to follow the mouse", _shows(env, window, moved, HELD), demo)
        _xdotool(env, "mouseup", "1")
        saved = path.stat().st_ino
        _xdotool(env, "key", "--window", window, "F5")
        _poll("F5 to save the edit", lambda: path.stat().st_ino != saved, demo)
    finally:
        demo.terminate()
        demo.wait(timeout=10)
    after = WarpAsset.load(path)
    expected = min(round((end * fps + moved_frames)) / fps, duration)
    assert after.phases[2].end == pytest.approx(expected, abs=1e-5)
    assert [(p.start, p.end) for p in after.phases[:2]] == [(p.start, p.end) for p in before.phases[:2]]
    assert after.phases[2].start == pytest.approx(before.phases[2].start)
