"""Benchmark: the contact IK's cost per character-frame, by how many limbs it bends, next to Panda3D's own animation cost.

    python tests/bench/bench_contact_ik.py [--characters 20] [--frames 600] [--parts] [--python]

Each character loops the vault, warped over its own crate (0.5 to 1.4 m), with a ContactIK
reading the level through one SceneProbe. Per frame and character, after the warper's task, it
times `actor.update(force=True)` (Panda3D computing the blended skeleton, which every animated
character pays) and `ContactIK.step()` (finding the contacts' targets, solving every limb in
contact, and the freeze/update/release that writes them into the pose), and prints medians by
how many limbs were in contact, and the ratio to Panda3D's figure; frames with no contact
window active or blending ("resting": no joint read) apart. A last pass times walkers on flat
ground, with the feet-on-ground mode (two rays, nothing to bend) and without it (resting). It
ends with issues 20 and 29's contact IK goals, met or not. CPU time of the thread; `python -m
tests.bench` reports the IK's overall figure with the others. The limbs are bent in compiled
code when numba imports (ik.compiled), else and with `--python` in Python (ik.limbs, the
reference); the first line says which. `--parts` also prints where a
frame's time goes, by how many limbs it bends (tests/bench/ik_parts.py: each part's timer adds
about 1 us, so that run's totals are higher).
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
from tests.bench.ik_parts import PartTimers  # noqa: E402
from tests.bench.timing import CpuTimer  # noqa: E402

#: Issue 29's goals (and issue 20's resting one), in units of Panda3D's `actor.update()` of the same frames.
TWO_LIMBS_RATIO = 1.0      # a vaulting character with two limbs bent
FOUR_LIMBS_RATIO = 1.5     # hands and feet bent
FEET_ON_GROUND_RATIO = 0.3  # walking with the feet kept on the ground, nothing to bend
RESTING_RATIO = 0.1        # no limb in contact and no warp: next to nothing


def main():
    args = options(__doc__, [("--parts", "also time the IK's parts (adds about 1 us a part)"),
                             ("--python", "bend the limbs in Python even when numba imports")])
    base, clock = windowless_base()
    from motionwarp import ContactIK, SceneProbe

    timer = CpuTimer()
    herd = Vaulters(base, timer)
    vaulters = herd.add(args.characters)
    probe = SceneProbe.from_geometry(herd.level(args.characters))
    compiled = 0 if args.python else 1
    iks = [own_task(base.taskMgr, lambda v=v: ContactIK(v.actor, v.warper, probe, render=base.render,
                                                        compiled=compiled))[0] for v in vaulters]
    reads = [_count_reads(ik) for ik in iks]
    parts = PartTimers(iks) if args.parts else None
    part_us = collections.defaultdict(lambda: collections.defaultdict(list))
    update_us, ik_us = [], collections.defaultdict(list)
    for _ in range(args.frames):
        clock.tick()
        for vaulter, ik, read in zip(vaulters, iks, reads):
            herd.keep_warping(vaulter)
            run(vaulter.task)
            update_us.append(timer.us(panda_update, vaulter.actor)[0])
            before = read[0]
            us, limbs = timer.us(ik.step, clock.getDt())
            kind = "resting" if read[0] == before else limbs
            ik_us[kind].append(us)
            if parts is not None:
                for part, part_time in parts.frame().items():
                    part_us[kind][part].append(part_time)
    panda = statistics.median(update_us)
    everything = [v for values in ik_us.values() for v in values]
    print(f"characters: {args.characters}, frames: {args.frames} (vaults over 0.5-1.4 m crates, loop); limbs bent "
          f"{'in compiled code (numba)' if iks[0].compiled else 'in Python'}")
    print(f"Panda3D actor.update(force=True): median {panda:7.1f} us per character-frame")
    print(f"ContactIK.step(), all frames:      median {statistics.median(everything):7.1f} us, "
          f"mean {statistics.mean(everything):.1f} us  (ratio to Panda3D: median "
          f"{statistics.median(everything) / panda:.2f}, mean {statistics.mean(everything) / panda:.2f})")
    for limbs in sorted(ik_us, key=str):
        values = ik_us[limbs]
        what = "no contact (resting)" if limbs == "resting" else f"{limbs} limb(s) bent"
        print(f"  {what:>20}: {len(values):6d} character-frames, median {statistics.median(values):7.1f} us"
              f" (ratio {statistics.median(values) / panda:.2f})")
    if parts is not None:
        parts.restore()
        _print_parts(part_us, ik_us, panda)

    for vaulter, ik in zip(vaulters, iks):
        vaulter.warper.cancel()
        ik.destroy()
        vaulter.actor.loop("walk")
        vaulter.actor.setPos(vaulter.actor.getX(), -20, 0)
    flat = {}
    for feet_on_ground in (1, 0):
        walkers = [own_task(base.taskMgr, lambda v=v: ContactIK(v.actor, v.warper, probe, render=base.render,
                                                                  feet_on_ground=feet_on_ground))[0] for v in vaulters]
        flat[feet_on_ground] = []
        for _ in range(min(args.frames, 200)):
            clock.tick()
            for vaulter, walker in zip(vaulters, walkers):
                panda_update(vaulter.actor)
                flat[feet_on_ground].append(timer.us(walker.step, clock.getDt())[0])
        for walker in walkers:
            walker.destroy()
    for feet_on_ground, what in ((1, "feet on ground"), (0, "no feet on ground (resting)")):
        print(f"walking on flat ground, {what}: median {statistics.median(flat[feet_on_ground]):7.1f} us "
              f"(ratio {statistics.median(flat[feet_on_ground]) / panda:.2f})")

    print("\nGoals (issues 20 and 29, ratios to Panda3D's actor.update() of the same frames):")
    two = statistics.median(ik_us[2]) / panda if ik_us[2] else float("nan")
    four = statistics.median(ik_us[4]) / panda if ik_us[4] else float("nan")
    grounded = statistics.median(flat[1]) / panda
    walking = statistics.median(flat[0]) / panda
    vaulting = statistics.median(ik_us["resting"]) / panda if ik_us["resting"] else float("nan")
    for what, ratio, goal in (("two limbs bent", two, TWO_LIMBS_RATIO),
                              ("hands and feet bent", four, FOUR_LIMBS_RATIO),
                              ("feet on the ground, nothing bent (walking)", grounded, FEET_ON_GROUND_RATIO),
                              ("no limb in contact, no warp (walking)", walking, RESTING_RATIO)):
        print(f"- contact IK, {what}: {ratio:.2f}x update (goal: at most {goal:g}x): "
              f"{'met' if ratio <= goal else 'NOT met'}")
    print(f"  (vaulting outside every contact window: {vaulting:.2f}x, the clip time and the windows read, no joint)")


def _print_parts(part_us, ik_us, panda):
    """Each part's median us (and ratio to Panda3D's update) in the frames bending 2 and 4 limbs."""
    for limbs in (2, 4):
        if not ik_us[limbs]:
            continue
        count = len(ik_us[limbs])
        print(f"  parts of a {limbs}-limb frame (median us of the {count} frames, ratio; 0 in frames without it):")
        for part, values in sorted(part_us[limbs].items(), key=lambda item: -statistics.median(item[1])):
            values = values + [0.0] * (count - len(values))
            print(f"    {part:>26}: {statistics.median(values):7.1f} us ({statistics.median(values) / panda:.2f})")


def _count_reads(ik):
    """[how many times `ik` read the pose]: a frame that reads no joint is a resting one."""
    count, read = [0], ik.pose.read

    def counted():
        count[0] += 1
        read()
    ik.pose.read = counted
    return count


if __name__ == "__main__":
    main()
