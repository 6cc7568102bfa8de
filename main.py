"""motionwarp demo: walk a mannequin into boxes and watch it vault and mantle with motion warping.

    python main.py                                   # a window; the keys are shown on screen
    python main.py --headless --autopilot --report out/course.json [--screenshot out/course.png]
"""
import argparse
import contextlib
import pathlib
import sys

from panda3d.core import ClockObject, Filename, loadPrcFileData

SCENES = pathlib.Path(__file__).resolve().parent / "scenes"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        """One line and exit status 2, instead of argparse's usage block."""
        self.exit(2, f"main.py: {message} (see --help)\n")


def parse_args(argv):
    parser = _Parser(description="motionwarp demo: vault and mantle with motion warping")
    parser.add_argument("--scene", default=str(SCENES / "course.json"), help="obstacle course (default scenes/course.json)")
    parser.add_argument("--headless", action="store_true", help="no window: simulate, then report or screenshot")
    parser.add_argument("--autopilot", action="store_true", help="walk the scene's waypoints and take every box met")
    parser.add_argument("--report", metavar="JSON", help="with --headless: write the run's report here")
    parser.add_argument("--screenshot", metavar="PNG", help="with --headless: save a rendered frame here")
    parser.add_argument("--at", type=float, metavar="SECONDS", help="simulated time of the screenshot (default: the end)")
    parser.add_argument("--fps", type=int, default=60, help="simulation frame rate with --headless (default 60)")
    parser.add_argument("--max-seconds", type=float, default=60.0, help="longest headless run (default 60)")
    parser.add_argument("--view", choices=("follow", "side"), default="follow",
                        help="camera: behind the character (default) or beside it")
    parser.add_argument("--assets", metavar="DIR", default=str(SCENES.parent / "assets"),
                        help="folder of the *.warp.json to play and tune (default assets/)")
    args = parser.parse_args(argv)
    if (args.report or args.screenshot or args.at is not None) and not args.headless:
        parser.error("--report, --screenshot and --at need --headless")
    if args.fps <= 0 or args.max_seconds <= 0 or (args.at is not None and args.at < 0):
        parser.error("--fps and --max-seconds must be positive, --at not negative")
    return args


def open_base(headless, render_frames):
    """A ShowBase, or None with one line saying why there is no window.

    Headless frames render with p3headlessgl (Mesa), or the software p3tinydisplay where
    that does not work.
    """
    loadPrcFileData("main", "window-title motionwarp demo\naudio-library-name null\nsync-video true")
    displays = ("p3headlessgl", "p3tinydisplay") if headless else (None,)
    if headless:
        window = "offscreen" if render_frames else "none"
        loadPrcFileData("main-headless", f"window-type {window}\nwin-size 960 540")
    from direct.showbase.ShowBase import ShowBase
    for display in displays:
        if display:
            loadPrcFileData("main-display", f"load-display {display}")
        try:
            return ShowBase()
        except Exception as exc:  # Panda3D raises a bare Exception when no window can be opened
            problem = exc
    hint = "" if headless else "; try --headless --autopilot --report out/course.json"
    print(f"main.py: cannot open a window ({problem}: no display here?){hint}", file=sys.stderr)
    return None


def run_headless(base, demo, args):
    """Step the simulation at --fps until the autopilot is done (or --max-seconds); 0 on success."""
    from demo.report import RunReport
    report = RunReport(demo, args.scene, args.fps) if args.report else None
    clock = ClockObject.getGlobalClock()
    clock.setMode(ClockObject.MNonRealTime)
    clock.setFrameRate(args.fps)
    for path in filter(None, (args.report, args.screenshot)):
        with contextlib.suppress(OSError):  # a folder that cannot be made fails at the write, with its message
            pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
    last_frame = round(args.max_seconds * args.fps)
    shot_frame = round(args.at * args.fps) if args.at is not None else None
    frames = 0
    while frames < last_frame and frames != shot_frame and not demo.done:
        base.taskMgr.step()
        frames += 1
    if args.screenshot:
        base.graphicsEngine.renderFrame()
        if not base.win.saveScreenshot(Filename.fromOsSpecific(args.screenshot)):
            print(f"main.py: could not write {args.screenshot}", file=sys.stderr)
            return 2
    if report is not None:
        try:
            report.write(args.report, frames)
        except OSError as exc:
            print(f"main.py: could not write {args.report}: {exc}", file=sys.stderr)
            return 2
    print(f"{frames / args.fps:.2f} s simulated: {demo.status.getText() or 'walking'}")
    return 0


def main(argv=None):
    args = parse_args(argv)
    from motionwarp import MotionWarpError
    from demo.scene import Scene
    try:
        scene = Scene.load(args.scene)
    except MotionWarpError as exc:
        print(f"main.py: {exc}", file=sys.stderr)
        return 2
    base = open_base(args.headless, render_frames=bool(args.screenshot))
    if base is None:
        return 2
    from demo.app import Demo
    demo = Demo(base, scene, autopilot=args.autopilot, view=args.view, asset_dir=pathlib.Path(args.assets))
    if args.headless:
        return run_headless(base, demo, args)
    base.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
