"""Benchmark: the contact IK's cost per character-frame, by how many limbs it bends, next to Panda3D's own animation cost.

    python tests/bench/bench_contact_ik.py [--characters 20] [--frames 600]

Each character loops the vault, warped over its own crate (0.5 to 1.4 m), with a ContactIK
reading the level through one SceneProbe. Per frame and character, after the warper's task, it
times `actor.update(force=True)` (Panda3D computing the blended skeleton, which every animated
character pays) and `ContactIK.step()` (finding the contacts' targets, solving every limb in
contact, and the freeze/update/release that writes them into the pose), and prints medians by
how many limbs were in contact, and the ratio to Panda3D's figure. A last pass times the
feet-on-ground mode on flat ground (two rays, nothing to bend). CPU time of the thread;
`python -m tests.bench` reports the IK's overall figure with the others.
"""
import collections
import pathlib
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.characters import Vaulters, own_task, run  # noqa: E402
from tests.bench.frame_costs import panda_update  # noqa: E402
from tests.bench.headless import options, windowless_base  # noqa: E402
from tests.bench.timing import CpuTimer  # noqa: E402


def main():
    args = options(__doc__)
    base, clock = windowless_base()
    from motionwarp import ContactIK, SceneProbe

    timer = CpuTimer()
    herd = Vaulters(base, timer)
    vaulters = herd.add(args.characters)
    probe = SceneProbe.from_geometry(herd.level(args.characters))
    iks = [own_task(base.taskMgr, lambda v=v: ContactIK(v.actor, v.warper, probe, render=base.render))[0]
           for v in vaulters]

    update_us, ik_us = [], collections.defaultdict(list)
    for _ in range(args.frames):
        clock.tick()
        for vaulter, ik in zip(vaulters, iks):
            herd.keep_warping(vaulter)
            run(vaulter.task)
            update_us.append(timer.us(panda_update, vaulter.actor)[0])
            us, limbs = timer.us(ik.step, clock.getDt())
            ik_us[limbs].append(us)
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
    for vaulter, ik in zip(vaulters, iks):
        vaulter.warper.cancel()
        ik.destroy()
        vaulter.actor.loop("walk")
        vaulter.actor.setPos(vaulter.actor.getX(), -20, 0)
    walkers = [own_task(base.taskMgr, lambda v=v: ContactIK(v.actor, v.warper, probe, render=base.render,
                                                              feet_on_ground=1))[0] for v in vaulters]
    for _ in range(min(args.frames, 200)):
        clock.tick()
        for vaulter, walker in zip(vaulters, walkers):
            panda_update(vaulter.actor)
            flat.append(timer.us(walker.step, clock.getDt())[0])
    print(f"feet on ground, walking on flat ground: median {statistics.median(flat):7.1f} us "
          f"(ratio {statistics.median(flat) / panda:.2f})")


if __name__ == "__main__":
    main()
