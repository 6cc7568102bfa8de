"""The demo's command line: options, the window or a headless run, the report and screenshot.

    python -m motionwarp_demo                        # a window; the keys are shown on screen
    python -m motionwarp_demo --headless --autopilot --report out/course.json [--screenshot out/course.png]

The same runs as `motionwarp-demo` (the wheel's script) and as `python main.py` in a clone; each
names itself in its messages.
"""
import argparse
import contextlib
import errno
import os
import pathlib
import sys

from panda3d.core import ClockObject, Filename, PNMImage, loadPrcFileData

from motionwarp import samples
from motionwarp.base.errors import shown_text


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        """One line and exit status 2, instead of argparse's usage block."""
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


#: Accepted ranges of the numeric options (a run is simulated frame by frame: keep it finite).
FPS_RANGE = (1, 1000)
SECONDS_RANGE = (0.0, 3600.0)
#: Accepted window sizes (pixels, width and height), and the headless frame's when none is given.
WINDOW_SIZE_RANGE = ((320, 240), (7680, 4320))
HEADLESS_SIZE = (960, 540)


def _in_range(kind, low, high, low_open=False):
    """An argparse type: a `kind` number from `low` to `high` (above `low` when `low_open`)."""
    def parse(text):
        what = "a whole number" if kind is int else "a number"
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text[:40]!r}") from None
        if not ((value > low if low_open else value >= low) and value <= high):  # NaN fails both
            bounds = f"above {low:g} and at most {high:g}" if low_open else f"from {low:g} to {high:g}"
            raise argparse.ArgumentTypeError(f"expected {what} {bounds}, got {text[:40]}")
        return value
    return parse


def _window_size(text):
    """An argparse type: `WIDTHxHEIGHT` in pixels, each within WINDOW_SIZE_RANGE, as (width, height)."""
    (low_w, low_h), (high_w, high_h) = WINDOW_SIZE_RANGE
    expected = f"expected WIDTHxHEIGHT in pixels from {low_w}x{low_h} to {high_w}x{high_h}, like 1920x1080"
    width, sep, height = text.lower().partition("x")
    if not (sep and width.isdigit() and height.isdigit()):
        raise argparse.ArgumentTypeError(f"{expected}, got {text[:40]!r}")
    size = int(width), int(height)
    if not (low_w <= size[0] <= high_w and low_h <= size[1] <= high_h):
        raise argparse.ArgumentTypeError(f"{expected}, got {text[:40]}")
    return size


#: How the installed package is run; `python main.py` in a clone passes its own name.
PROG = "python -m motionwarp_demo"


def parse_args(argv, prog=PROG):
    """The options; `args.prog` is the command as the user typed it, for messages."""
    parser = _Parser(prog=prog, description="motionwarp demo: vault and mantle with motion warping")
    parser.add_argument("--scene", default=samples.path("scenes/course.json"),
                        help="obstacle course (default the samples' scenes/course.json)")
    parser.add_argument("--headless", action="store_true", help="no window: simulate, then report or screenshot")
    parser.add_argument("--autopilot", action="store_true", help="walk the scene's waypoints and take every box met")
    parser.add_argument("--report", metavar="JSON", help="with --headless: write the run's report here")
    parser.add_argument("--screenshot", metavar="PNG", help="with --headless: save a rendered frame here")
    parser.add_argument("--at", type=_in_range(float, *SECONDS_RANGE), metavar="SECONDS",
                        help="simulated time of the screenshot, 0 to 3600 (default: the end)")
    parser.add_argument("--fps", type=_in_range(int, *FPS_RANGE), default=60,
                        help="simulation frame rate with --headless, 1 to 1000 (default 60)")
    parser.add_argument("--max-seconds", type=_in_range(float, *SECONDS_RANGE, low_open=True), default=60.0,
                        metavar="SECONDS", help="longest headless run, above 0 up to 3600 (default 60)")
    parser.add_argument("--view", choices=("follow", "side"), default="follow",
                        help="camera: behind the character (default) or beside it")
    parser.add_argument("--window-size", type=_window_size, metavar="WxH",
                        help="window size in pixels, like 1920x1080 (default 800x600; headless frames 960x540)")
    parser.add_argument("--debug-view", action="store_true",
                        help="start with the debug view (F2) on: targets, edges, normal, root trails")
    parser.add_argument("--show-help", action="store_true", help="start with the help panel (F1) open")
    parser.add_argument("--character", metavar="JSON", default=samples.path("characters/mannequin.json"),
                        help="character file: model, root joint and mode, clips (default the samples' mannequin.json)")
    parser.add_argument("--assets", metavar="DIR",
                        help="folder of the *.warp.json to play and tune (default: assets/ beside the character file's folder)")
    args = parser.parse_args(argv)
    if (args.report or args.screenshot or args.at is not None) and not args.headless:
        parser.error("--report, --screenshot and --at need --headless")
    if args.at is not None and not args.screenshot:
        parser.error("--at needs --screenshot (it is the screenshot's time)")
    if args.at is not None and args.at > args.max_seconds:
        parser.error(f"--at {args.at:g} is past the run's end (--max-seconds {args.max_seconds:g})")
    if args.report and args.screenshot and _same_file(args.report, args.screenshot):
        parser.error(f"--report and --screenshot name the same file ({shown_text(args.report)}); "
                     "each needs its own")
    if args.headless and not args.autopilot:
        parser.error("--headless needs --autopilot (without a window nothing else moves the character)")
    args.prog = prog
    return args


def _same_file(first, second):
    """True when two paths name one file (through links and relative parts), existing or not."""
    try:
        return os.path.samefile(first, second)
    except OSError:   # one does not exist yet
        return os.path.realpath(first) == os.path.realpath(second)


def open_base(headless, render_frames, window_size=None, prog=PROG):
    """A ShowBase, or None with one line saying why there is no window (beginning with `prog`);
    `window_size` (width, height) in pixels, or Panda3D's default window (800x600) and HEADLESS_SIZE headless.

    Headless frames render with p3headlessgl (Mesa), or the software p3tinydisplay where
    that does not work.
    """
    # The demo reads no gamepads: without /dev/input, Panda3D's device manager would print errors.
    from motionwarp_demo.views.looks import window_prc
    # ShowBase's state garbage collection walks every TransformState each frame: with a scene of 5,000 boxes,
    # 0.4 s a frame; without it a state is freed when its last user lets go (tests/bench/bench_boxes.py).
    loadPrcFileData("main", "window-title motionwarp demo\naudio-library-name null\nsync-video true\n"
                            "notify-level-device fatal\nprint-pipe-types false\ngarbage-collect-states false\n"
                            + window_prc())
    displays = ("p3headlessgl", "p3tinydisplay") if headless else (None,)
    if headless:
        window = "offscreen" if render_frames else "none"
        loadPrcFileData("main-headless", f"window-type {window}")
    width, height = window_size or (HEADLESS_SIZE if headless else (800, 600))
    loadPrcFileData("main-size", f"win-size {width} {height}")
    from direct.showbase.ShowBase import ShowBase
    from motionwarp_demo.level.quiet import captured_output
    for display in displays:
        if display:
            loadPrcFileData("main-display", f"load-display {display}")
        try:
            with captured_output():  # Panda3D's own lines about each display it tried: ours says it once
                return ShowBase()
        except Exception as exc:  # Panda3D raises a bare Exception when no window can be opened
            problem = exc
    if headless:
        advice = ("neither p3headlessgl nor p3tinydisplay could open an offscreen buffer: install Mesa's EGL "
                  "(libegl1), or leave out --screenshot (a report needs no window)")
    else:
        command = _command(prog)
        advice = (f"no display here: run it on a desktop, or under a virtual display (xvfb-run {command}), "
                  f"or without a window: {command} --headless --autopilot --report out/course.json")
    print(f"{prog}: cannot open a window ({problem}); {advice}", file=sys.stderr)
    return None


def _command(prog):
    """The command line that runs `prog` again: a script's name needs its interpreter."""
    return f"python {prog}" if prog.endswith(".py") else prog


def save_screenshot(window, path):
    """Save the window's last frame to `path` atomically: a failed save leaves no empty file behind."""
    from motionwarp.base.atomicfile import write_atomic

    def write(temp):
        if not window.saveScreenshot(Filename.fromOsSpecific(temp)):
            raise OSError(errno.EIO, "Panda3D could not save the image (is it a .png or .jpg name?)")
        check_image(temp)
    write_atomic(path, write, suffix=os.path.splitext(path)[1])


def check_image(path):
    """An OSError unless `path` holds an image that reads back: `saveScreenshot` reports success
    even when the disk filled up and the file is empty or cut short."""
    image = PNMImage()
    if os.path.getsize(path) == 0 or not image.read(Filename.fromOsSpecific(path)) or image.getXSize() == 0:
        raise OSError(errno.ENOSPC, "the saved image is empty or does not read back (is the disk full?)")


def set_drawing(base, active):
    """Turn drawing on or off in every window and offscreen buffer."""
    for output in base.graphicsEngine.getWindows():
        output.setActive(active)


def run_headless(base, demo, args):
    """Step the simulation at --fps until the autopilot is done (or --max-seconds); 0 on success."""
    from motionwarp_demo.views.report import RunReport
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
    if args.screenshot:
        # Only the saved frame is drawn: inactive windows and buffers (simplepbr's scene buffer, the
        # sun's shadow map) are skipped by the render loop, and the simulation does not need them
        # (a report run has no window at all).
        set_drawing(base, False)
    drawn = False
    while frames < last_frame and frames != shot_frame and not demo.done:
        # The saved frame is drawn inside its own step, after the warper and the contact IK: a frame
        # rendered after the step would redraw the character from its plain animation.
        drawn = bool(args.screenshot) and frames + 1 in (last_frame, shot_frame)
        if drawn:
            set_drawing(base, True)
        base.taskMgr.step()
        frames += 1
    try:
        if args.screenshot:
            if not drawn:   # the run ended early (or --at 0): one more frame of it, drawn
                set_drawing(base, True)
                base.taskMgr.step()
                frames += 1
            save_screenshot(base.win, args.screenshot)
        if report is not None:
            report.write(args.report, frames)
    except OSError as exc:
        print(f"{args.prog}: could not write {shown_text(exc.filename)}: {exc.strerror}", file=sys.stderr)
        return 2
    if shot_frame is not None and frames < shot_frame:
        print(f"{args.prog}: the run ended at {frames / args.fps:.2f} s, before --at {args.at:g}: "
              "the screenshot shows its last frame", file=sys.stderr)
    print(f"{frames / args.fps:.2f} s simulated: {demo.status.getText() or 'walking'}")
    return 0


def script():
    """The `motionwarp-demo` console script: the demo under the name the user typed."""
    return main(prog="motionwarp-demo")


def main(argv=None, prog=PROG):
    """Run the demo with `argv` (default the command line's); the exit status."""
    args = parse_args(argv, prog)
    from motionwarp import MotionWarpError
    from motionwarp_demo.level.scene import Scene
    from motionwarp_demo.character.character_file import Character
    try:
        scene = Scene.load(args.scene)
        character = Character.load(args.character)
    except MotionWarpError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    base = open_base(args.headless, render_frames=bool(args.screenshot), window_size=args.window_size, prog=prog)
    if base is None:
        return 2
    from motionwarp_demo.app.app import Demo
    from motionwarp_demo.views.looks import Looks
    looks = Looks.choose(base)
    looks.install(base)
    try:
        demo = Demo(base, scene, autopilot=args.autopilot, view=args.view, asset_dir=args.assets and pathlib.Path(args.assets),
                    character=character, looks=looks)
    except MotionWarpError as exc:  # a scene model, the character or a warp asset that does not load
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    if args.debug_view:
        demo.debug.toggle()
    if args.show_help:
        demo.hud.toggle_help()
    if args.headless:
        return run_headless(base, demo, args)
    base.run()
    return 0

