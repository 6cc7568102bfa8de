"""Benchmark: the warper's cost per warping character per frame, next to Panda3D's own animation cost.

    python tests/bench/bench_warper.py [--characters 20] [--frames 600]

Each character loops the vault warped over a different box. Per frame and character it
times `actor.update(force=True)` (Panda3D computing the blended skeleton, which every
animated character pays) and `MotionWarper.step()` (motionwarp's root motion + warp),
and prints the medians and their ratio. CPU skinning of vertices at render time is not
included in Panda3D's figure, so the ratio is conservative.
"""
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.headless import options, shifted, windowless_base  # noqa: E402


def main():
    args = options(__doc__)
    base, clock = windowless_base()
    from motionwarp import MotionWarper, WarpAsset, load_actor
    from tests.warp_helpers import vault_targets

    asset = WarpAsset.load(ROOT / "assets" / "vault.warp.json")
    rigs = []
    for index in range(args.characters):
        actor = load_actor(ROOT / "assets" / "mannequin.glb")
        actor.reparentTo(base.render)
        actor.setX(index * 3.0)
        warper = MotionWarper(actor, render=base.render)
        base.taskMgr.remove(warper._task_name)  # the benchmark drives each step itself
        rigs.append((actor, warper, 0.6 + 0.04 * (index % 20)))

    update_us, warp_us, warping = [], [], 0
    for _ in range(args.frames):
        clock.tick()
        for actor, warper, height in rigs:
            if not warper.is_warping:
                actor.setPos(actor.getX(), 0, 0)
                warper.play(asset, shifted(vault_targets(height, 0.6, 1.0), actor.getX()))
            t0 = time.perf_counter()
            actor.update(force=True)
            t1 = time.perf_counter()
            warper.step()
            t2 = time.perf_counter()
            update_us.append((t1 - t0) * 1e6)
            warp_us.append((t2 - t1) * 1e6)
            warping += warper.is_warping
    panda, ours = statistics.median(update_us), statistics.median(warp_us)
    print(f"characters: {args.characters}, frames: {args.frames}, warping character-frames: {warping}")
    print(f"Panda3D actor.update(force=True): median {panda:7.1f} us per character-frame")
    print(f"motionwarp MotionWarper.step():   median {ours:7.1f} us per character-frame "
          f"(p90 {statistics.quantiles(warp_us, n=10)[-1]:.1f} us)")
    print(f"ratio motionwarp / Panda3D animation: {ours / panda:.2f}")


if __name__ == "__main__":
    main()
