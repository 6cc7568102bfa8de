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
import dataclasses
import math
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


@dataclasses.dataclass
class BentCosts:
    """Vaulting characters with a ContactIK each: Panda3D's update (median us per character-frame) and the
    IK's step times by how many limbs it bent ("resting": no joint read)."""
    characters: int
    frames: int
    update_us: float
    by_limbs: dict
    compiled: bool = False
    parts: dict = dataclasses.field(default_factory=dict)   # limbs -> part -> [us] (with `parts=True`)

    def median(self, limbs):
        values = self.by_limbs.get(limbs)
        return statistics.median(values) if values else float("nan")

    def ratio(self, limbs):
        """The median step with `limbs` bent over the median update (nan when no frame bent so many)."""
        return self.median(limbs) / self.update_us


@dataclasses.dataclass
class FlatCosts:
    """Walking on flat ground: the IK's step times with the feet kept on the ground and without, and Panda3D's
    update of the vaulting run (us)."""
    grounded_us: list
    resting_us: list
    update_us: float

    def ratio(self, feet_on_ground):
        return statistics.median(self.grounded_us if feet_on_ground else self.resting_us) / self.update_us


def bent(base, clock, herd, vaulters, probe, timer, frames, compiled=1, parts=False):
    """BentCosts of `vaulters` (from `herd`) looping their vaults for `frames` frames, each with a ContactIK
    over `probe` (destroyed afterwards); `compiled` 0 bends in Python even when numba imports; `parts`
    also times the IK's parts (tests/bench/ik_parts.py)."""
    from motionwarp import ContactIK
    iks = [own_task(base.taskMgr, lambda v=v: ContactIK(v.actor, v.warper, probe, render=base.render,
                                                        compiled=compiled))[0] for v in vaulters]
    reads = [_count_reads(ik) for ik in iks]
    timers = PartTimers(iks) if parts else None
    part_us = collections.defaultdict(lambda: collections.defaultdict(list))
    update_us, ik_us = [], collections.defaultdict(list)
    for _ in range(frames):
        clock.tick()
        for vaulter, ik, read in zip(vaulters, iks, reads):
            herd.keep_warping(vaulter)
            run(vaulter.task)
            update_us.append(timer.us(panda_update, vaulter.actor)[0])
            before = read[0]
            us, limbs = timer.us(ik.step, clock.getDt())
            kind = "resting" if read[0] == before else limbs
            ik_us[kind].append(us)
            if timers is not None:
                for part, part_time in timers.frame().items():
                    part_us[kind][part].append(part_time)
    if timers is not None:
        timers.restore()
    costs = BentCosts(len(vaulters), frames, statistics.median(update_us), dict(ik_us), bool(iks[0].compiled),
                      {limbs: dict(times) for limbs, times in part_us.items()})
    for ik in iks:
        ik.destroy()
    return costs


def flat(base, clock, vaulters, probe, timer, frames, update_us):
    """FlatCosts of `vaulters` walking on flat ground for `frames` frames (their warps cancelled: they are
    left walking), with the feet-on-ground mode and without; `update_us`: Panda3D's update to divide by."""
    from motionwarp import ContactIK
    for vaulter in vaulters:
        vaulter.warper.cancel()
        vaulter.actor.loop("walk")
        vaulter.actor.setPos(vaulter.actor.getX(), -20, 0)
    times = {}
    for feet_on_ground in (1, 0):
        walkers = [own_task(base.taskMgr, lambda v=v: ContactIK(v.actor, v.warper, probe, render=base.render,
                                                                  feet_on_ground=feet_on_ground))[0] for v in vaulters]
        times[feet_on_ground] = []
        for _ in range(frames):
            clock.tick()
            for vaulter, walker in zip(vaulters, walkers):
                panda_update(vaulter.actor)
                times[feet_on_ground].append(timer.us(walker.step, clock.getDt())[0])
        for walker in walkers:
            walker.destroy()
    return FlatCosts(times[1], times[0], update_us)


def goal_rows(bent_by_count, flat_costs):
    """Issue 29's contact IK rows (and issue 20's resting one): [(what, [ratio per count], goal)], the counts
    those of `bent_by_count` ({characters: BentCosts})."""
    counts = list(bent_by_count)
    return [(f"two limbs bent, characters {' / '.join(map(str, counts))}",
             [bent_by_count[c].ratio(2) for c in counts], TWO_LIMBS_RATIO),
            (f"hands and feet bent, characters {' / '.join(map(str, counts))}",
             [bent_by_count[c].ratio(4) for c in counts], FOUR_LIMBS_RATIO),
            ("feet on the ground, nothing bent (walking)", [flat_costs.ratio(1)], FEET_ON_GROUND_RATIO),
            ("no limb in contact, no warp (walking)", [flat_costs.ratio(0)], RESTING_RATIO)]


def ratios_met(ratios, goals):
    """("a / b / c" of `ratios`, "no such frame" for nan; whether each is within its goal: nan is not)."""
    shown = " / ".join("no such frame" if math.isnan(r) else f"{r:.2f}" for r in ratios)
    return shown, all(r <= goal for r, goal in zip(ratios, goals))


def goal_line(what, ratios, goal):
    """One goal's line: each ratio, met when every one is within the goal (a goal with no frame is not)."""
    shown, met = ratios_met(ratios, [goal] * len(ratios))
    return f"contact IK, {what}: {shown}x update (goal: at most {goal:g}x): {'met' if met else 'NOT met'}"


def main():
    args = options(__doc__, [("--parts", "also time the IK's parts (adds about 1 us a part)"),
                             ("--python", "bend the limbs in Python even when numba imports")])
    base, clock = windowless_base()
    from motionwarp import SceneProbe

    timer = CpuTimer()
    herd = Vaulters(base, timer)
    vaulters = herd.add(args.characters)
    probe = SceneProbe.from_geometry(herd.level(args.characters))
    costs = bent(base, clock, herd, vaulters, probe, timer, args.frames, 0 if args.python else 1, args.parts)
    panda = costs.update_us
    everything = [v for values in costs.by_limbs.values() for v in values]
    print(f"characters: {args.characters}, frames: {args.frames} (vaults over 0.5-1.4 m crates, loop); limbs bent "
          f"{'in compiled code (numba)' if costs.compiled else 'in Python'}")
    print(f"Panda3D actor.update(force=True): median {panda:7.1f} us per character-frame")
    print(f"ContactIK.step(), all frames:      median {statistics.median(everything):7.1f} us, "
          f"mean {statistics.mean(everything):.1f} us  (ratio to Panda3D: median "
          f"{statistics.median(everything) / panda:.2f}, mean {statistics.mean(everything) / panda:.2f})")
    for limbs in sorted(costs.by_limbs, key=str):
        values = costs.by_limbs[limbs]
        what = "no contact (resting)" if limbs == "resting" else f"{limbs} limb(s) bent"
        print(f"  {what:>20}: {len(values):6d} character-frames, median {statistics.median(values):7.1f} us"
              f" (ratio {statistics.median(values) / panda:.2f})")
    if args.parts:
        _print_parts(costs.parts, costs.by_limbs, panda)
    walking = flat(base, clock, vaulters, probe, timer, min(args.frames, 200), panda)
    for values, what in ((walking.grounded_us, "feet on ground"), (walking.resting_us, "no feet on ground (resting)")):
        print(f"walking on flat ground, {what}: median {statistics.median(values):7.1f} us "
              f"(ratio {statistics.median(values) / panda:.2f})")

    print("\nGoals (issues 20 and 29, ratios to Panda3D's actor.update() of the same frames):")
    for row in goal_rows({args.characters: costs}, walking):
        print(f"- {goal_line(*row)}")
    print(f"  (vaulting outside every contact window: {costs.ratio('resting'):.2f}x, the clip time and the windows "
          "read, no joint)")


def _print_parts(part_us, ik_us, panda):
    """Each part's median us (and ratio to Panda3D's update) in the frames bending 2 and 4 limbs."""
    for limbs in (2, 4):
        if not ik_us.get(limbs):
            continue
        count = len(ik_us[limbs])
        print(f"  parts of a {limbs}-limb frame (median us of the {count} frames, ratio; 0 in frames without it):")
        for part, values in sorted(part_us.get(limbs, {}).items(), key=lambda item: -statistics.median(item[1])):
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
