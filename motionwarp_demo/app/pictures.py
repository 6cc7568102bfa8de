"""Regenerate the README's demo pictures: `PYTHONPATH=. python -m motionwarp_demo.app.pictures` (headless, ~12 s).

docs/demo_vault.png: four moments of the first vault, side view, tiled 2x2 at half size.
docs/demo_hud.png: the HUD and the debug view (targets, edges, root trails) as that vault lands, side view.
docs/demo_compare.png: the tall crate (1.4 m, the clip was authored over 1.0 m) vaulted with warping (top)
and with warping off (bottom, the demo's compare key C), at the same moments, debug view on.
docs/editor.png: the curve editor mid-drag, in front of the first crate with the vault on offer.
docs/hud_800x600.png: the HUD in an 800x600 window with two long refusals, wrapped.

Each picture is one run of the course in this process, by the autopilot, or for the editor by
Panda3D's mouse and key input (motionwarp_demo/character/virtual_input.py), drawn in the demo's own look (motionwarp_demo.views.looks)
and only at the frames saved.
"""
import pathlib
import tempfile

from panda3d.core import ClockObject, Filename, PNMImage, TextNode

from motionwarp import samples

from .app import Demo
from .cli import open_base, save_screenshot, set_drawing
from ..views.hud import panel_text
from ..views.looks import Looks
from ..editor.panel_map import EDGE_REACH, Grab, x_at
from ..level.scene import Scene
from ..character.virtual_input import VirtualInput

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
COURSE = samples.path("course.json")
FPS = 60
VAULT_MOMENTS = (2.9, 3.3, 3.7, 4.3)  # seconds into the course: approach, hands on, over, landing
#: Seconds after the tall crate's vault starts: hands on the edge, over the top.
COMPARE_MOMENTS = (0.75, 1.25)
COMPARE_OBSTACLE = "tall crate"
#: The editor picture: walk up to this obstacle until the vault is offered this near (metres, the
#: clip was authored 1.0 m from the face), then drag the landing's end handle by this many frames.
EDITOR_OBSTACLE = "crate"
EDITOR_STOP_M = 1.1
EDITOR_DRAG_FRAMES = 4


class CourseRun:
    """The default course walked by the autopilot, one frame at a time, drawing only what is saved."""

    def __init__(self, base, looks, debug_view=False, warping=True, autopilot=True, view="side"):
        for child in base.render.getChildren():   # the previous run's scene
            if child != base.camera:
                child.removeNode()
        self.base = base
        self.demo = Demo(base, Scene.load(COURSE), autopilot=autopilot, view=view, looks=looks)
        if debug_view:
            self.demo.debug.toggle()
        if not warping:
            self.demo.interact = self._compare
        self.started = {}   # obstacle name -> seconds into the run when its interaction began
        self.demo.on_start = lambda name, found, warp: self.started.setdefault(name, self.seconds)
        self.frames = 0

    @property
    def seconds(self):
        return self.frames / FPS

    def _compare(self, within=None):
        """The autopilot's interact, played unwarped (compare) where it would have played the warp."""
        found = self.demo.offer()
        if not found or (within is not None and found.distance > within(found.asset.clip)):
            return False
        if not self.demo.compare():
            return False
        self.started.setdefault(self.demo.obstacle_name(found.node), self.seconds)
        return True

    def run_until(self, done):
        set_drawing(self.base, False)
        while not done() and self.seconds < 60:
            self.base.taskMgr.step()
            self.frames += 1

    def step(self, frames=1):
        end = self.frames + frames
        self.run_until(lambda: self.frames >= end)

    def shoot(self, path):
        """Save the next frame as the game draws it: stepped with drawing on, so the picture shows
        the warper's and the contact IK's pose (a render after the step redraws the plain animation)."""
        set_drawing(self.base, True)
        self.base.taskMgr.step()
        self.frames += 1
        save_screenshot(self.base.win, str(path))

    def shoot_at(self, seconds, path):
        self.run_until(lambda: self.seconds >= seconds - 1.0 / FPS - 1e-9)
        self.shoot(path)

    def destroy(self):
        self.demo.destroy()


def tile(paths, out):
    """The images in `paths` at half size, left to right then top to bottom, two per row."""
    first = PNMImage(Filename.fromOsSpecific(str(paths[0])))
    half_w, half_h = first.getXSize() // 2, first.getYSize() // 2
    sheet = PNMImage(half_w * 2, half_h * ((len(paths) + 1) // 2))
    for index, path in enumerate(paths):
        image = PNMImage(Filename.fromOsSpecific(str(path)))
        small = PNMImage(half_w, half_h)
        small.quickFilterFrom(image)
        sheet.copySubImage(small, (index % 2) * half_w, (index // 2) * half_h)
    if not sheet.write(Filename.fromOsSpecific(str(out))):
        raise OSError(f"could not write {out}")


def compare_frames(base, looks, warping, folder):
    """Frames of the tall crate's vault, warped or not, at COMPARE_MOMENTS after it starts."""
    run = CourseRun(base, looks, debug_view=True, warping=warping)
    label = panel_text(base.a2dTopCenter, (0, -0.3), TextNode.ACenter, scale=0.09, fg=(1, 1, 0.6, 1))
    label.setText("warped" if warping else "warping off (C)")
    run.run_until(lambda: COMPARE_OBSTACLE in run.started)
    if COMPARE_OBSTACLE not in run.started:
        raise RuntimeError(f"the autopilot never took the {COMPARE_OBSTACLE} ({'warped' if warping else 'unwarped'})")
    paths = []
    for index, after in enumerate(COMPARE_MOMENTS):
        paths.append(folder / f"compare_{warping}_{index}.png")
        run.shoot_at(run.started[COMPARE_OBSTACLE] + after, paths[-1])
    label.destroy()
    run.destroy()
    return paths


def editor_picture(base, looks, path):
    """The curve editor mid-drag, driven through Panda3D's mouse and keys (a VirtualMouse, as a window's).

    The character walks (W) up to the first crate and stops with the vault on offer, the game is
    paused (P), and the mouse takes the landing's end handle and drags it EDITOR_DRAG_FRAMES frames
    later, still held when the picture is taken: the window, its rate and the info line show the drag.
    """
    hand = VirtualInput(base)
    run = CourseRun(base, looks, autopilot=False, view="follow")
    demo = run.demo

    def vault_offered(within):
        found = demo.offer()
        return bool(found) and found.asset.clip == "vault" and demo.obstacle_name(found.node) == EDITOR_OBSTACLE \
            and found.distance <= within
    hand.press("w")
    run.run_until(lambda: vault_offered(EDITOR_STOP_M))
    hand.release("w")
    run.run_until(lambda: demo.playing_clip() == "idle" and demo.controller.locomotion.weights["idle"] > 0.99)
    if not vault_offered(EDITOR_STOP_M):
        raise RuntimeError(f"the character did not stop in front of the {EDITOR_OBSTACLE} with the vault on offer")
    for key in ("p", "f3"):   # pause, and open the editor (hidden at start)
        hand.press(key)
        run.step()
        hand.release(key)
    asset = demo.tuner.asset
    if asset.clip != "vault" or not demo.time.paused:
        raise RuntimeError(f"expected the vault selected and the game paused, got {asset.clip}, paused "
                           f"{demo.time.paused}")
    box, last, track = demo.curves.box, len(asset.phases) - 1, asset.track
    grab_x = x_at(box, track.duration, asset.phases[last].end) - EDGE_REACH / 3   # on the handle, inside
    middle = (box[2] + box[3]) / 2
    hand.move_to(*hand.pixel(demo.curves.root, grab_x, middle))
    run.step()
    hand.press("mouse1")
    run.step()
    drag_x = grab_x + (box[1] - box[0]) * EDITOR_DRAG_FRAMES / track.fps / track.duration
    hand.move_to(*hand.pixel(demo.curves.root, drag_x, middle))
    run.step(2)
    editor = demo.editor
    moved = round((editor.preview.phases[last].end - asset.phases[last].end) * track.fps) \
        if editor.mode == "edit" else None
    if editor.grab != Grab(last, "end") or moved != EDITOR_DRAG_FRAMES:
        raise RuntimeError(f"the editor should hold phase {last}'s end handle dragged {EDITOR_DRAG_FRAMES} frames, "
                           f"it holds {editor.grab} ({editor.mode}) dragged {moved}")
    run.shoot(path)
    run.destroy()
    hand.remove()


#: The small-window picture: Space 1.25 m before the high ledge (too far: the providers' refusals, with the
#: warper's numbers for mantle_high, stay on the status line), then the roofed ledge in front (its two reasons on the prompt).
SMALL_WINDOW = (800, 600)
HIGH_LEDGE_AT, ROOFED_LEDGE_AT = (0.0, 36.0), (0.0, 25.3)


def small_window_picture(base, looks, path):
    """The HUD in an 800x600 window (Panda3D's default size) with two long refusals, wrapped to fit."""
    base.win.setSize(*SMALL_WINDOW)
    base.adjustWindowAspectRatio(SMALL_WINDOW[0] / SMALL_WINDOW[1])
    run = CourseRun(base, looks, autopilot=False, view="side")
    demo = run.demo
    demo.controller.place((*HIGH_LEDGE_AT, 0), 0)
    run.step()
    if demo.interact():
        raise RuntimeError("the high ledge was taken from 1.25 m: the picture needs its refusal")
    demo.controller.place((*ROOFED_LEDGE_AT, 0), 0)
    demo.camera.update(snap=True)
    run.step(2)
    run.shoot(path)
    run.destroy()


def main():
    base = open_base(headless=True, render_frames=True)
    if base is None:
        raise SystemExit(2)
    clock = ClockObject.getGlobalClock()
    clock.setMode(ClockObject.MNonRealTime)
    clock.setFrameRate(FPS)
    looks = Looks.choose(base)
    looks.install(base)
    with tempfile.TemporaryDirectory() as temp:
        temp = pathlib.Path(temp)
        run = CourseRun(base, looks)
        frames = [temp / f"vault{i}.png" for i in range(len(VAULT_MOMENTS))]
        for path, at in zip(frames, VAULT_MOMENTS):
            run.shoot_at(at, path)
        run.destroy()
        tile(frames, DOCS / "demo_vault.png")
        run = CourseRun(base, looks, debug_view=True)
        run.shoot_at(VAULT_MOMENTS[-1], DOCS / "demo_hud.png")
        run.destroy()
        tile(compare_frames(base, looks, True, temp) + compare_frames(base, looks, False, temp),
             DOCS / "demo_compare.png")
    editor_picture(base, looks, DOCS / "editor.png")
    small_window_picture(base, looks, DOCS / "hud_800x600.png")   # last: it resizes the window
    print(f"wrote {DOCS / 'demo_vault.png'}, {DOCS / 'demo_hud.png'}, {DOCS / 'demo_compare.png'}, "
          f"{DOCS / 'editor.png'} and {DOCS / 'hud_800x600.png'}")


if __name__ == "__main__":
    main()
