"""Where a warper's frame goes, part by part, next to Panda3D's `actor.update()` of the same actors.

    python -m tests.bench.warper_parts [--characters 20] [--frames 200]

The characters vault crates in a loop (tests/bench/characters.py). Each frame, each character's
warper frame is run here as its task runs it, each part timed on the thread's CPU clock: for a plain
frame (motionwarp/warp/plainframe.py) the check (`PlainPhase.frame`: the clip time and what the game
may have changed), the pose update (Panda3D's), and the write (the placement and one `setPosQuat`,
or the clip's own root motion between phases, and the driver's bookkeeping); any other frame is the
warper's full pass (`MotionWarper._frame`). Then a forced `actor.update()` of the same character:
Panda3D's own cost. Medians per character-frame, and each part's share of that update. Then one
WarpBatch of the same characters: its pass over them (checks, pose updates, writes done at once)
and, from `_NUMPY_FROM` characters on, its numpy placement with the writes after it.
"""
import argparse
import collections
import statistics

from .characters import Vaulters, own_task, run
from .frame_costs import panda_update
from .headless import windowless_base
from .timing import CpuTimer


def own_frames(clock, herd, vaulters, timer, frames):
    """{part: [us per character-frame]} of each warper's frame as its own task runs it."""
    parts = collections.defaultdict(list)
    for _ in range(frames):
        clock.tick()
        for vaulter in vaulters:
            herd.keep_warping(vaulter)
            warp = vaulter.warper._warp
            plain = None if warp is None else warp._plain
            t0 = timer.start()
            cur = None if plain is None else plain.frame(warp)
            check = timer.since(t0)
            if cur is None:
                parts["full pass (not plain)"].append(timer.us(run, vaulter.task)[0])
            else:
                parts["plain: check"].append(check)
                parts["plain: pose update (Panda3D)"].append(timer.us(plain.update_pose)[0])
                kind = "in a phase" if hasattr(plain, "placement") else "between phases"
                parts[f"plain: write, {kind}"].append(timer.us(plain.write, warp, cur)[0])
            parts["forced actor.update()"].append(timer.us(panda_update, vaulter.actor)[0])
    return parts


def batch_frames(base, clock, herd, vaulters, timer, frames):
    """{part: [us per character-frame]} of one WarpBatch of `vaulters`: its whole task, its pass and its
    numpy placement (both per character of the frame), and the forced updates."""
    from motionwarp import WarpBatch
    batch, task = own_task(base.taskMgr, lambda: _batch_of(WarpBatch(base.taskMgr), vaulters))
    parts = collections.defaultdict(list)
    count = len(vaulters)
    for name in ("_pass", "_place"):
        original = getattr(batch, name)

        def timed(*args, original=original, name=name):
            t0 = timer.start()
            result = original(*args)
            parts[f"batch {name}"].append(timer.since(t0) / count)
            return result
        setattr(batch, name, timed)
    for _ in range(frames):
        clock.tick()
        for vaulter in vaulters:
            herd.keep_warping(vaulter)
        parts["batch task"].append(timer.us(run, task)[0] / count)
        t0 = timer.start()
        for vaulter in vaulters:
            panda_update(vaulter.actor)
        parts["forced actor.update()"].append(timer.since(t0) / count)
    batch.destroy()
    for vaulter in vaulters:
        base.taskMgr.remove(vaulter.warper._task_name)
    return parts


def _batch_of(batch, vaulters):
    for vaulter in vaulters:
        batch.add(vaulter.warper)
    return batch


def print_parts(title, parts, frames_total):
    update = statistics.median(parts["forced actor.update()"])
    print(f"\n{title}\n")
    print("| part | frames | median us | x update |")
    print("|---|---|---|---|")
    for name, samples in parts.items():
        median = statistics.median(samples)
        print(f"| {name} | {len(samples) / frames_total:.0%} | {median:.2f} | {median / update:.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--characters", type=int, default=20)
    parser.add_argument("--frames", type=int, default=200)
    args = parser.parse_args()
    base, clock = windowless_base()
    timer = CpuTimer()
    herd = Vaulters(base, timer)
    vaulters = herd.add(args.characters)
    total = args.characters * args.frames
    print_parts(f"Each warper's own task, {args.characters} characters, {args.frames} frames (share of the "
                "character-frames; medians)", own_frames(clock, herd, vaulters, timer, args.frames), total)
    print_parts(f"One WarpBatch of the same {args.characters} characters (per character of the frame)",
                batch_frames(base, clock, herd, vaulters, timer, args.frames), args.frames)


if __name__ == "__main__":
    main()
