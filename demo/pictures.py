"""Regenerate the README's demo pictures: `PYTHONPATH=. python -m demo.pictures` (headless, ~10 s).

docs/demo_vault.png: four moments of the first vault, side view, tiled 2x2 at half size.
docs/demo_hud.png: the HUD and the debug view (targets, edges, root trails) as that vault lands, side view.
docs/demo_compare.png: the tall crate (1.4 m, the clip was authored over 1.0 m) vaulted with warping (top)
and with warping off (bottom, the demo's compare key C), at the same moments, debug view on.

Each picture is one run of the course by the autopilot in this process, drawn in the demo's
own look (demo.looks) and only at the frames saved.
"""
import pathlib
import tempfile

from panda3d.core import ClockObject, Filename, PNMImage, TextNode

from main import open_base, save_screenshot, set_drawing

from .app import Demo
from .hud import panel_text
from .looks import Looks
from .scene import Scene

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
COURSE = ROOT / "scenes" / "course.json"
FPS = 60
VAULT_MOMENTS = (2.9, 3.3, 3.7, 4.3)  # seconds into the course: approach, hands on, over, landing
#: Seconds after the tall crate's vault starts: hands on the edge, over the top.
COMPARE_MOMENTS = (0.75, 1.25)
COMPARE_OBSTACLE = "tall crate"


class CourseRun:
    """The default course walked by the autopilot, one frame at a time, drawing only what is saved."""

    def __init__(self, base, looks, debug_view=False, warping=True):
        for child in base.render.getChildren():   # the previous run's scene
            if child != base.camera:
                child.removeNode()
        self.base = base
        self.demo = Demo(base, Scene.load(COURSE), autopilot=True, view="side", looks=looks)
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

    def shoot(self, path):
        set_drawing(self.base, True)
        self.base.graphicsEngine.renderFrame()
        save_screenshot(self.base.win, str(path))

    def shoot_at(self, seconds, path):
        self.run_until(lambda: self.seconds >= seconds - 1e-9)
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
    print(f"wrote {DOCS / 'demo_vault.png'}, {DOCS / 'demo_hud.png'} and {DOCS / 'demo_compare.png'}")


if __name__ == "__main__":
    main()
