"""Measure: how big a pose jump the switch into and out of each warp makes, against the clip's own motion.

    python tests/bench/bench_warp_pops.py [--scene scenes/course.json] [--fps 60]

The demo's autopilot runs the course. Every frame, just before rendering, the model-space
position of every joint is read; a frame's jump is the largest distance any joint moved since
the frame before. For each interaction it prints the largest jump while the warp clip takes the
Actor (start: from its first frame with any effect to its first at full effect) and while it
hands it back (end: from its last frame at full effect to its first with none), next to the
largest per-frame move of any joint inside the warp clip itself at the same frame rate (its
peak joint speed times the frame time). A ratio well above 1 is a visible pop (a warp played at
full effect from its first frame and dropped at its last: a switch in one frame). For contrast
it prints the largest jump between warps, where locomotion clips cross-fade.
"""
import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from motionwarp import samples  # noqa: E402

SAMPLES = samples.folder()

from panda3d.core import ClockObject, LMatrix4f, loadPrcFileData  # noqa: E402

WARP_CLIPS = ("vault", "mantle", "mantle_high")


def joint_positions(actor, force=False):
    """Model-space position of every joint of the current (blended) pose."""
    actor.update(force=force)
    matrix = LMatrix4f()
    out = []
    for joint in actor.getJoints():
        joint.getNetTransform(matrix)
        out.append(matrix.getRow3(3))
    return out


def largest_move(a, b):
    return max((p - q).length() for p, q in zip(a, b))


def peak_joint_speed(clip):
    """Largest speed (m/s) of any joint in `clip` alone, from its baked frames (a fresh Actor, no blending;
    it shares the demo's clips, already stripped of their root motion)."""
    from motionwarp import load_actor
    actor = load_actor(SAMPLES / "assets" / "mannequin.glb")
    control = actor.getAnimControl(clip)
    frames, fps = control.getNumFrames(), control.getFrameRate()
    poses = []
    for frame in range(frames):
        actor.pose(clip, frame)
        poses.append(joint_positions(actor, force=True))
    actor.cleanup()
    actor.removeNode()
    return max(largest_move(a, b) for a, b in zip(poses, poses[1:])) * fps


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scene", default=str(SAMPLES / "scenes" / "course.json"))
    parser.add_argument("--fps", type=int, default=60)
    args = parser.parse_args(argv)
    loadPrcFileData("bench", "window-type none\naudio-library-name null\nnotify-level-device fatal")
    from direct.showbase.ShowBase import ShowBase
    from motionwarp_demo.app.app import Demo
    from motionwarp_demo.level.scene import Scene
    base = ShowBase()
    demo = Demo(base, Scene.load(args.scene), autopilot=True)
    peaks = {clip: peak_joint_speed(clip) for clip in WARP_CLIPS}
    bundle = demo.actor.getPartBundle("modelRoot")
    controls = {clip: demo.actor.getAnimControl(clip) for clip in WARP_CLIPS}
    names = []
    demo.on_start = lambda name, found, warp: names.append(name)
    record = []   # per frame: (warp clip with any effect or None, its effect, joint positions)

    def measure(task):
        effects = {clip: bundle.getControlEffect(control) for clip, control in controls.items()}
        holder = next((clip for clip, effect in effects.items() if effect > 0.0), None)
        record.append((holder, effects.get(holder, 0.0), joint_positions(demo.actor)))
        return task.cont
    base.taskMgr.add(measure, "bench-measure", sort=49)
    clock = ClockObject.getGlobalClock()
    clock.setMode(ClockObject.MNonRealTime)
    clock.setFrameRate(args.fps)
    frames = 0
    while not demo.done and frames < 120 * args.fps:
        base.taskMgr.step()
        frames += 1
    dt = 1.0 / args.fps
    print(f"{args.scene}, {args.fps} fps, locomotion cross-fade {demo.controller.locomotion.blend_time:.2f} s")
    print(f"{'obstacle':18s} {'clip':12s} {'peak m/frame':>12s} {'start jump':>10s} {'ratio':>6s} {'end jump':>9s} {'ratio':>6s}")
    starts = [i for i in range(1, len(record)) if record[i][0] and not record[i - 1][0]]

    def jump(i):
        return largest_move(record[i][2], record[i - 1][2])
    for n, start in enumerate(starts):
        clip = record[start][0]
        end = next((i for i in range(start + 1, len(record)) if record[i][0] != clip), None)
        full = next((i for i in range(start, end or len(record)) if record[i][1] >= 1.0), start)
        peak = peaks[clip] * dt
        jump_in = max(jump(i) for i in range(start, full + 1))
        line = f"{names[n] if n < len(names) else '?':18s} {clip:12s} {peak:12.4f} {jump_in:10.4f} {jump_in / peak:6.1f}"
        if end is not None:
            last_full = max((i for i in range(start, end) if record[i][1] >= 1.0), default=end - 1)
            jump_out = max(jump(i) for i in range(last_full + 1, end + 1))
            line += f" {jump_out:9.4f} {jump_out / peak:6.1f}"
        print(line)
    between = [jump(i) for i in range(1, len(record)) if not record[i][0] and not record[i - 1][0]]
    print(f"largest jump between warps (locomotion and its cross-fades): {max(between):.4f} m/frame")
    print("peak joint speed of each clip (m/s): " + ", ".join(f"{c} {v:.2f}" for c, v in peaks.items()))
    demo.destroy()


if __name__ == "__main__":
    main()
