"""Benchmark: the demo on a scene of many static boxes, headless: its start-up and its frames, next to the
same demo on one box and to Panda3D's own update of the character's pose.

    python tests/bench/bench_boxes.py [--boxes 5000] [--frames 300]

Issue 28: 5,000 boxes cost 15 to 27 ms a frame and 1.7 to 3.6 s to start. Each configuration runs in a
process of its own (a ShowBase's PRC is read once), as `main.py --headless` opens it (motionwarp_demo.app.cli.open_base,
which turns ShowBase's state garbage collection off), with the autopilot walking between the boxes; the
last configuration opens ShowBase with its default (the collection on, tests/bench/headless.py) to show
what that costs. Frame and start-up times are CPU
time of the thread (tests/bench/timing.py); start-up is split into building the scene (the boxes'
geometry), the probe's static world (SceneProbe.from_geometry) and the rest of the demo (the character,
its warp assets, the HUD). Goal: under 2 ms a frame with 5,000 boxes.
"""
import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.machine import describe, load_line  # noqa: E402
from tests.bench.timing import CpuTimer, p90  # noqa: E402

#: The goal (issue 28): milliseconds of a frame with 5,000 static boxes, headless.
FRAME_GOAL_MS = 2.0
#: Metres between two boxes' centres on the grid (the autopilot walks the lanes between them).
SPACING = 3.0
#: Frames walked before timing: the first frames load and compile what later frames reuse.
WARM_UP = 30


def write_scene(folder, count):
    """A scene file of `count` boxes on a square grid of SPACING, of cycling heights and headings, with
    the spawn and a walk along a lane between two columns of them; returns its path."""
    side = max(1, int(count ** 0.5 + 0.999))
    obstacles = [{"name": f"box {index}", "shape": "box", "h": 15.0 * (index % 6),
                  "pos": [(index % side - side / 2) * SPACING, (index // side) * SPACING + 4.0, 0.0],
                  "size": [1.0, 0.6, 0.4 + 0.2 * (index % 8)]} for index in range(count)]
    lane = (side // 2 - side / 2) * SPACING + SPACING / 2   # midway between the two columns nearest x = 0
    ground = side * SPACING + 20.0
    scene = {"format": "motionwarp.scene/1", "ground": {"size": [ground, ground]},
             "spawn": {"pos": [lane, 0.0, 0.0], "h": 0.0}, "obstacles": obstacles,
             "autopilot": [[lane, 0.0], [lane, side * SPACING + 4.0]]}
    path = pathlib.Path(folder) / f"boxes-{count}.json"
    path.write_text(json.dumps(scene))
    return path


def measure(scene_path, frames, collect_states):
    """In this process: {start-up parts in ms, frame CPU ms per frame, the pose update's us}."""
    from panda3d.core import ClockObject, ConfigVariableBool, NodePath
    if collect_states:   # ShowBase's default, without a window as main.py --headless opens it
        from tests.bench.headless import windowless_base
        base, clock = windowless_base(prc=["garbage-collect-states true"])
    else:
        from motionwarp_demo.app.cli import open_base
        base = open_base(headless=True, render_frames=False)
        clock = ClockObject.getGlobalClock()
        clock.setMode(ClockObject.MNonRealTime)
        clock.setFrameRate(60)
    if ConfigVariableBool("garbage-collect-states").getValue() != collect_states:
        raise RuntimeError("the demo's garbage-collect-states is not what this benchmark expects: update it")
    from motionwarp_demo.app.app import Demo
    from motionwarp_demo.level.scene import Scene
    from motionwarp import SceneProbe
    timer = CpuTimer()
    scene = Scene.load(scene_path)
    scratch = NodePath("scratch")
    build_us, _ = timer.us(scene.build, scratch, base.loader)
    probe_us, _ = timer.us(SceneProbe.from_geometry, scratch)
    scratch.removeNode()
    demo_us, demo = timer.us(Demo, base, scene, True)
    for _ in range(WARM_UP):
        base.taskMgr.step()
    times = []
    for _ in range(frames):
        t0 = timer.start()
        base.taskMgr.step()
        times.append(timer.since(t0) / 1e3)
    update = [timer.us(lambda: demo.actor.update(force=True))[0] for _ in range(200)]
    walked = demo.actor.getPos(base.render).y - scene.spawn_pos[1]
    demo.destroy()
    return {"build_ms": build_us / 1e3, "probe_ms": probe_us / 1e3, "demo_ms": demo_us / 1e3, "frames": times,
            "update_us": statistics.median(update), "walked_m": walked}


def run_child(scene_path, frames, collect_states):
    """`measure` in a process of its own (its ShowBase and PRC): its result."""
    command = [sys.executable, "-m", "tests.bench.bench_boxes", "--child", str(scene_path), "--frames", str(frames)]
    if collect_states:
        command.append("--collect-states")
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(name, result, empty=None):
    frames = result["frames"]
    median, update = statistics.median(frames), result["update_us"] / 1e3
    line = (f"{name}: frame {median:.2f} ms median, {p90(frames):.2f} p90 ({median / update:.0f} x the character's "
            f"actor.update(force=True), {result['update_us']:.0f} us)")
    if empty is not None:
        extra = median - statistics.median(empty["frames"])
        line += f"; the boxes add {extra:+.2f} ms a frame"
    print(line)
    print(f"    start-up: Demo() {result['demo_ms']:.0f} ms CPU, which builds the scene's geometry (alone: "
          f"{result['build_ms']:.0f} ms) and the probe's static world over it (alone: {result['probe_ms']:.0f} ms), "
          f"then the character, its warp assets and the HUD; the autopilot walked {result['walked_m']:.1f} m")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boxes", type=int, default=5000)
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--collect-states", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child, args.frames, args.collect_states)))
        return 0
    print(describe())
    print(load_line())
    with tempfile.TemporaryDirectory(prefix="motionwarp-boxes-") as folder:
        empty = run_child(write_scene(folder, 1), args.frames, False)   # a scene holds at least one
        boxes = run_child(write_scene(folder, args.boxes), args.frames, False)
        collected = run_child(write_scene(folder, args.boxes), max(10, args.frames // 10), True)
    report("1 box", empty)
    report(f"{args.boxes} boxes", boxes, empty)
    report(f"{args.boxes} boxes, ShowBase's state garbage collection on", collected, empty)
    met = statistics.median(boxes["frames"]) < FRAME_GOAL_MS
    print(f"goal: under {FRAME_GOAL_MS:g} ms a frame with {args.boxes} boxes: {'met' if met else 'NOT met'}")
    print(load_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
