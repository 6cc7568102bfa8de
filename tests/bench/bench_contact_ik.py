"""Benchmark: the contact IK's cost per character-frame, by how many limbs it bends, next to Panda3D's own animation cost.

    python tests/bench/bench_contact_ik.py [--characters 20] [--frames 600] [--crowds 10,100]

Each character loops the vault, warped over its own crate (0.5 to 1.4 m), with a ContactIK
reading the level through one SceneProbe. Per frame and character, after the warper's task, it
times `actor.update(force=True)` (Panda3D computing the blended skeleton, which every animated
character pays) and `ContactIK.step()` (finding the contacts' targets, solving every limb in
contact, and the freeze/update/release that writes them into the pose), and prints medians by
how many limbs were in contact, and the ratio to Panda3D's figure; frames with no contact
window active or blending ("resting": no joint read) apart. Then the same characters, and
crowds of each size in `--crowds`, run in one IKBatch: each character-frame counts its own goal
step and pose writing plus its share of the batch's bend of every limb (the bend's time split by
limbs bent), by how many limbs it bent. A last pass times walkers on flat ground, with the
feet-on-ground mode (two rays, nothing to bend) and without it (resting). It ends with issue 20's
contact IK goals, met or not. CPU time of the thread; `python -m tests.bench` reports the
batched IK's overall figure with the others.
"""
import argparse
import collections
import pathlib
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.characters import Vaulters, own_task, run  # noqa: E402
from tests.bench.frame_costs import panda_update  # noqa: E402
from tests.bench.headless import windowless_base  # noqa: E402
from tests.bench.timing import CpuTimer  # noqa: E402

#: Issue 20's goals, in units of Panda3D's `actor.update()` of the same frames.
TWO_LIMBS_RATIO = 1.5      # a vaulting character with two limbs in contact
RESTING_RATIO = 0.1        # no limb in contact and no warp: next to nothing


def main():
    args = _options()
    base, clock = windowless_base()
    from motionwarp import ContactIK, SceneProbe

    timer = CpuTimer()
    herd = Vaulters(base, timer)
    vaulters = herd.add(max([args.characters] + args.crowds))
    probe = SceneProbe.from_geometry(herd.level(len(vaulters)))
    some = vaulters[:args.characters]
    iks = [own_task(base.taskMgr, lambda v=v: ContactIK(v.actor, v.warper, probe, render=base.render))[0]
           for v in some]

    reads = [_count_reads(ik) for ik in iks]
    update_us, ik_us = [], collections.defaultdict(list)
    for _ in range(args.frames):
        clock.tick()
        for vaulter, ik, read in zip(some, iks, reads):
            herd.keep_warping(vaulter)
            run(vaulter.task)
            update_us.append(timer.us(panda_update, vaulter.actor)[0])
            before = read[0]
            us, limbs = timer.us(ik.step, clock.getDt())
            ik_us["resting" if read[0] == before else limbs].append(us)
    for ik in iks:
        ik.destroy()
    panda = statistics.median(update_us)
    everything = [v for values in ik_us.values() for v in values]
    print(f"characters: {args.characters}, frames: {args.frames} (vaults over 0.5-1.4 m crates, loop)")
    print(f"Panda3D actor.update(force=True): median {panda:7.1f} us per character-frame")
    print(f"ContactIK.step(), each in its own task, all frames: median {statistics.median(everything):7.1f} us, "
          f"mean {statistics.mean(everything):.1f} us  (ratio to Panda3D: median "
          f"{statistics.median(everything) / panda:.2f}, mean {statistics.mean(everything) / panda:.2f})")
    _print_by_limbs(ik_us, panda)

    batched = {}
    for count in sorted(set([args.characters] + args.crowds)):
        by_limbs, updates = _batched(base, clock, herd, vaulters[:count], probe, timer, args.frames)
        crowd_panda = statistics.median(updates)
        batched[count] = by_limbs, crowd_panda
        everything = [v for values in by_limbs.values() for v in values]
        print(f"\nIKBatch of {count} characters (their actor.update(force=True): median {crowd_panda:.1f} us), per "
              f"character-frame, its own part and its share of the bend: median {statistics.median(everything):7.1f} us "
              f"(ratio {statistics.median(everything) / crowd_panda:.2f})")
        _print_by_limbs(by_limbs, crowd_panda)

    flat = _walking(base, clock, some, probe, timer, args.frames)
    for feet_on_ground, what in ((1, "feet on ground"), (0, "no feet on ground (resting)")):
        print(f"walking on flat ground, {what}: median {statistics.median(flat[feet_on_ground]):7.1f} us "
              f"(ratio {statistics.median(flat[feet_on_ground]) / panda:.2f})")

    print("\nGoals (issue 20, ratios to Panda3D's actor.update() of the same frames):")
    walking = statistics.median(flat[0]) / panda
    for count, (by_limbs, crowd_panda) in batched.items():
        two = statistics.median(by_limbs[2]) / crowd_panda if by_limbs[2] else float("nan")
        _goal(f"contact IK, two limbs in contact, IKBatch of {count}", two, TWO_LIMBS_RATIO)
    two = statistics.median(ik_us[2]) / panda if ik_us[2] else float("nan")
    _goal("contact IK, two limbs in contact, each ContactIK in its own task", two, TWO_LIMBS_RATIO)
    _goal("contact IK, no limb in contact, no warp (walking)", walking, RESTING_RATIO)
    vaulting = statistics.median(ik_us["resting"]) / panda if ik_us["resting"] else float("nan")
    print(f"  (vaulting outside every contact window: {vaulting:.2f}x, the clip time and the windows read, no joint)")


def _options():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--characters", type=int, default=20)
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--crowds", default="100", help="IKBatch sizes to time besides --characters (comma-separated)")
    args = parser.parse_args()
    args.crowds = [int(count) for count in args.crowds.split(",") if count]
    return args


def _goal(what, ratio, goal):
    print(f"- {what}: {ratio:.2f}x update (goal: at most {goal:g}x): {'met' if ratio <= goal else 'NOT met'}")


def _print_by_limbs(by_limbs, panda):
    for limbs in sorted(by_limbs, key=str):
        values = by_limbs[limbs]
        what = "no contact (resting)" if limbs == "resting" else f"{limbs} limb(s) bent"
        print(f"  {what:>20}: {len(values):6d} character-frames, median {statistics.median(values):7.1f} us"
              f" (ratio {statistics.median(values) / panda:.2f})")


def _batched(base, clock, herd, vaulters, probe, timer, frames):
    """({limbs bent or "resting": [us per character-frame]}, [us of each actor.update(force=True)]) of
    `vaulters` run by one IKBatch: each character's goal step and pose writing (timed apart), plus
    the batch's bend split by limbs; Panda3D's update timed after each warper task, as above."""
    from motionwarp import ContactIK, IKBatch
    iks = [own_task(base.taskMgr, lambda v=v: ContactIK(v.actor, v.warper, probe, render=base.render))[0]
           for v in vaulters]
    batch = IKBatch(base.taskMgr)
    for ik in iks:
        batch.add(ik)
    base.taskMgr.remove(batch._task_name)   # the benchmark runs its frames itself
    own = {ik: _timed(ik, ("gather", "finish"), timer) for ik in iks}
    bend = _timed(batch._limbs, ("bend",), timer)
    reads = {ik: _count_reads(ik) for ik in iks}
    by_limbs, updates = collections.defaultdict(list), []
    for _ in range(frames):
        clock.tick()
        for vaulter in vaulters:
            herd.keep_warping(vaulter)
            run(vaulter.task)
            updates.append(timer.us(panda_update, vaulter.actor)[0])
        before = {ik: reads[ik][0] for ik in iks}
        counts = batch.step(clock.getDt())
        share = bend[0] / max(1, sum(counts))
        for ik, limbs in zip(iks, counts):
            by_limbs["resting" if reads[ik][0] == before[ik] else limbs].append(own[ik][0] + share * limbs)
            own[ik][0] = 0.0
        bend[0] = 0.0
    batch.destroy()
    for ik in iks:
        ik.destroy()
    return by_limbs, updates


def _timed(obj, names, timer):
    """[microseconds] the methods `names` of `obj` took since it was last reset (the caller resets it)."""
    spent = [0.0]
    for name in names:
        def timed(*args, method=getattr(obj, name)):
            us, result = timer.us(method, *args)
            spent[0] += us
            return result
        setattr(obj, name, timed)
    return spent


def _walking(base, clock, vaulters, probe, timer, frames):
    """{feet_on_ground (1 or 0): [us per ContactIK.step]} of `vaulters` walking on flat ground."""
    from motionwarp import ContactIK
    for vaulter in vaulters:
        vaulter.warper.cancel()
        vaulter.actor.loop("walk")
        vaulter.actor.setPos(vaulter.actor.getX(), -20, 0)
    flat = {}
    for feet_on_ground in (1, 0):
        walkers = [own_task(base.taskMgr, lambda v=v: ContactIK(v.actor, v.warper, probe, render=base.render,
                                                                  feet_on_ground=feet_on_ground))[0] for v in vaulters]
        flat[feet_on_ground] = []
        for _ in range(min(frames, 200)):
            clock.tick()
            for vaulter, walker in zip(vaulters, walkers):
                panda_update(vaulter.actor)
                flat[feet_on_ground].append(timer.us(walker.step, clock.getDt())[0])
        for walker in walkers:
            walker.destroy()
    return flat


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
