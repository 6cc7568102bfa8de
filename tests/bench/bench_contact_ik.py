"""Benchmark: the contact IK's cost per character-frame, next to Panda3D's own animation cost.

    python tests/bench/bench_contact_ik.py [--characters 20] [--frames 600]

Each character loops the vault, warped over its own crate (0.5 to 1.4 m), with a ContactIK
reading the level through one SceneProbe. Per frame and character it times
`actor.update(force=True)` (Panda3D computing the blended skeleton, which every animated
character pays) and `ContactIK.step()` (finding the contacts' targets, solving every limb in
contact, and the freeze/update/release that writes them into the pose), and prints medians by
how many limbs were in contact, and the ratio to Panda3D's figure. A last pass times the
feet-on-ground mode on flat ground (two rays, nothing to bend).
"""
import collections
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
    from motionwarp import ContactIK, MotionWarper, SceneProbe, WarpAsset, load_actor
    from tests.obstacles import box_profile, prism
    from tests.warp_helpers import vault_targets

    asset = WarpAsset.load(ROOT / "assets" / "vault.warp.json")
    level = base.render.attachNewNode("level")
    prism(level, "ground", box_profile(400.0, 0.1), 400.0, pos=(0, 0, -0.1))
    heights = [0.5 + 0.9 * (index % 10) / 9 for index in range(args.characters)]
    for index, height in enumerate(heights):
        prism(level, f"crate{index}", box_profile(0.6, height), 1.2, pos=(index * 3.0, 1.3, 0))
    probe = SceneProbe.from_geometry(level)
    rigs = []
    for index, height in enumerate(heights):
        actor = load_actor(ROOT / "assets" / "mannequin.glb")
        actor.reparentTo(base.render)
        actor.setX(index * 3.0)
        warper = MotionWarper(actor, render=base.render)
        ik = ContactIK(actor, warper, probe, render=base.render)
        base.taskMgr.remove(warper._task_name)  # the benchmark drives each step itself
        base.taskMgr.remove(ik._task_name)
        rigs.append((actor, warper, ik, height))

    update_us, ik_us = [], collections.defaultdict(list)
    for _ in range(args.frames):
        clock.tick()
        for actor, warper, ik, height in rigs:
            if not warper.is_warping:
                actor.setPos(actor.getX(), 0, 0)
                warper.play(asset, shifted(vault_targets(height, 0.6, 1.0), actor.getX()))
            t0 = time.perf_counter()
            actor.update(force=True)
            t1 = time.perf_counter()
            warper.step()
            t2 = time.perf_counter()
            limbs = ik.step(clock.getDt())
            t3 = time.perf_counter()
            update_us.append((t1 - t0) * 1e6)
            ik_us[limbs].append((t3 - t2) * 1e6)
    panda = statistics.median(update_us)
    everything = [v for values in ik_us.values() for v in values]
    print(f"characters: {args.characters}, frames: {args.frames} (vaults over 0.5-1.4 m crates, loop)")
    print(f"Panda3D actor.update(force=True): median {panda:7.1f} us per character-frame")
    print(f"ContactIK.step(), all frames:      median {statistics.median(everything):7.1f} us, "
          f"mean {statistics.mean(everything):.1f} us  (ratio to Panda3D: median "
          f"{statistics.median(everything) / panda:.2f}, mean {statistics.mean(everything) / panda:.2f})")
    for limbs in sorted(ik_us):
        values = ik_us[limbs]
        print(f"  {limbs} limb(s) bent: {len(values):6d} character-frames, median {statistics.median(values):7.1f} us"
              f" (ratio {statistics.median(values) / panda:.2f})")

    flat = []
    for actor, warper, ik, _ in rigs:
        warper.cancel()
        ik.destroy()
        actor.loop("walk")
        actor.setPos(actor.getX(), -20, 0)
    walkers = [ContactIK(actor, warper, probe, render=base.render, feet_on_ground=1) for actor, warper, _, _ in rigs]
    for walker in walkers:
        base.taskMgr.remove(walker._task_name)
    for _ in range(min(args.frames, 200)):
        clock.tick()
        for (actor, _, _, _), walker in zip(rigs, walkers):
            actor.update(force=True)
            t0 = time.perf_counter()
            walker.step(clock.getDt())
            flat.append((time.perf_counter() - t0) * 1e6)
    print(f"feet on ground, walking on flat ground: median {statistics.median(flat):7.1f} us "
          f"(ratio {statistics.median(flat) / panda:.2f})")


if __name__ == "__main__":
    main()
