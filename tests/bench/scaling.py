"""Whole warper tasks per frame for 1 to 500 warping characters, next to Panda3D animating the same actors.

One frame's time is all N warper tasks run back to back (each calling `actor.update()`), then
all N `actor.update(force=True)` (the same poses again): milliseconds of CPU per frame. The batched
path (`WarpBatch`, one task for all N) is timed the same way over the next frames, in turns of
`frames` frames each way (a game runs one way every frame: alternating single frames would leave
each path the other's cache), so both see the same characters, clips and load; their shares are
compared in per-frame ratios to Panda3D's update of those frames.
"""
import gc
import statistics

from .characters import own_task, run
from .frame_costs import panda_update
from .timing import Summary

FRAME_BUDGET_MS = 12.0


class Scaled:
    """One count's samples: per frame, the tasks' ms and Panda3D's update ms of the same actors."""

    def __init__(self, count):
        self.count = count
        self.warp, self.panda = [], []

    def add_repeat(self):
        self.warp.append([])
        self.panda.append([])

    def add(self, warp_ms, panda_ms):
        self.warp[-1].append(warp_ms)
        self.panda[-1].append(panda_ms)

    @property
    def summaries(self):
        return Summary(self.warp), Summary(self.panda)

    @property
    def share_ratio(self):
        """Median over frames of (tasks - update) / update: motionwarp's share in units of Panda3D's update."""
        return statistics.median((w - p) / p for ws, ps in zip(self.warp, self.panda) for w, p in zip(ws, ps))

    @property
    def share_us(self):
        """Median over frames of motionwarp's share per character, microseconds."""
        return statistics.median((w - p) * 1e3 / self.count for ws, ps in zip(self.warp, self.panda)
                                 for w, p in zip(ws, ps))


def scaling(clock, herd, counts, timer, frames, repeats, taskmgr):
    """({count: Scaled of the warpers' own tasks}, {count: Scaled of one WarpBatch}), taking turns."""
    from motionwarp import WarpBatch
    herd.add(max(counts) - len(herd.all))
    single, batched = {}, {}
    for count in counts:
        vaulters = herd.all[:count]
        batch, task = own_task(taskmgr, lambda: _batch_of(WarpBatch(taskmgr), vaulters))
        one = single[count] = Scaled(count)
        many = batched[count] = Scaled(count)
        for _ in range(repeats):
            one.add_repeat()
            many.add_repeat()
            for scaled, tasks in ((one, [v.task for v in vaulters]), (many, [task])):
                for _ in range(frames):
                    clock.tick()
                    for vaulter in vaulters:
                        herd.keep_warping(vaulter)
                    t0 = timer.start()
                    for each in tasks:
                        run(each)
                    warp_ms = timer.since(t0) / 1e3
                    t0 = timer.start()
                    for vaulter in vaulters:
                        panda_update(vaulter.actor)
                    scaled.add(warp_ms, timer.since(t0) / 1e3)
        batch.destroy()   # the benchmark runs the warpers' own tasks itself: the ones given back go
        for vaulter in vaulters:
            taskmgr.remove(vaulter.warper._task_name)
    return single, batched


def _batch_of(batch, vaulters):
    for vaulter in vaulters:
        batch.add(vaulter.warper)
    return batch


def growth(clock, herd, counts, timer, frames):
    """Where the single path's per-character share grows with the count: {count: {case: us}}, the
    median time of a warper's own work per character-frame (its task after Panda3D's pose update: a
    plain frame's write, else `MotionWarper.step`), as it runs ("as is"), with the garbage collector
    off ("no GC"), and run a second time at once, the first untimed ("warm": its data in the CPU caches)."""
    out = {}
    for count in counts:
        vaulters = herd.all[:count]
        cases = {"as is": [], "no GC": [], "warm": []}
        for _ in range(frames):
            for case, samples in cases.items():
                clock.tick()
                for vaulter in vaulters:
                    herd.keep_warping(vaulter)
                if case == "no GC":
                    gc.disable()
                total = 0.0
                for vaulter in vaulters:
                    work = _after_pose(vaulter.warper)
                    if case == "warm":
                        work()
                    t0 = timer.start()
                    work()
                    total += timer.since(t0)
                gc.enable()
                samples.append(total / count)
        out[count] = {case: statistics.median(samples) for case, samples in cases.items()}
    return out


def _after_pose(warper):
    """The warper's work this frame after its pose update (done here): what its task does next."""
    warp = warper._warp
    plain = None if warp is None else warp._plain
    cur = None if plain is None else plain.frame(warp)
    if cur is None:
        warper._update_pose()
        return warper.step
    plain.update_pose()
    return lambda: plain.write(warp, cur)
