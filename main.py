"""motionwarp demo: walk a mannequin into boxes and watch it vault and mantle with motion warping.

    python main.py                          # a window; keys are shown on screen
    python main.py --screenshot out.png     # no window: the autopilot walks, the frame at --at is saved
"""
import argparse
import sys

import pathlib

from panda3d.core import ClockObject, Filename, loadPrcFileData

SCENES = pathlib.Path(__file__).resolve().parent / "scenes"


def parse_args(argv):
    parser = argparse.ArgumentParser(description="motionwarp demo: vault and mantle with motion warping")
    parser.add_argument("--scene", default=str(SCENES / "course.json"), help="obstacle course (default scenes/course.json)")
    parser.add_argument("--screenshot", metavar="PNG", help="render offscreen with the autopilot and save this frame")
    parser.add_argument("--at", type=float, default=4.0, metavar="SECONDS",
                        help="simulated seconds before the screenshot (default 4)")
    parser.add_argument("--fps", type=int, default=60, help="simulation frame rate for --screenshot (default 60)")
    parser.add_argument("--view", choices=("follow", "side"), default="follow",
                        help="camera: behind the character (default) or beside it")
    return parser.parse_args(argv)


def open_base(offscreen):
    """A ShowBase, or None with one line saying why there is no window."""
    loadPrcFileData("main", "window-title motionwarp demo\naudio-library-name null\nsync-video true")
    if offscreen:
        loadPrcFileData("main-offscreen", "load-display p3headlessgl\nwindow-type offscreen\nwin-size 960 540")
    from direct.showbase.ShowBase import ShowBase
    try:
        return ShowBase()
    except Exception as exc:  # Panda3D raises a bare Exception when no window can be opened
        hint = "" if offscreen else "; try --screenshot out.png to render without a display"
        print(f"main.py: cannot open a window ({exc}: no display here?){hint}", file=sys.stderr)
        return None


def main(argv=None):
    args = parse_args(argv)
    if args.fps <= 0 or args.at < 0:
        print("main.py: --fps must be positive and --at not negative", file=sys.stderr)
        return 2
    from motionwarp import MotionWarpError
    from demo.scene import Scene
    try:
        scene = Scene.load(args.scene)
    except MotionWarpError as exc:
        print(f"main.py: {exc}", file=sys.stderr)
        return 2
    base = open_base(offscreen=args.screenshot is not None)
    if base is None:
        return 2
    from demo.app import Demo
    demo = Demo(base, scene, autopilot=args.screenshot is not None, view=args.view)
    if args.screenshot is None:
        base.run()
        return 0
    clock = ClockObject.getGlobalClock()
    clock.setMode(ClockObject.MNonRealTime)
    clock.setFrameRate(args.fps)
    for _ in range(round(args.at * args.fps)):
        base.taskMgr.step()
    base.graphicsEngine.renderFrame()
    if not base.win.saveScreenshot(Filename.fromOsSpecific(args.screenshot)):
        print(f"main.py: could not write {args.screenshot}", file=sys.stderr)
        return 2
    print(f"wrote {args.screenshot} at {args.at:.2f} s: {demo.status.getText() or 'walking'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
