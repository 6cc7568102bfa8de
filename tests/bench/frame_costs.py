"""Per character-frame costs: Panda3D's update, root motion alone, the whole warper task, the contact IK.

Every frame each vaulting character runs its warper's task (which calls `actor.update()`,
computing this frame's pose, then moves the character), then `actor.update(force=True)`
recomputes the same pose: Panda3D's own cost for that character and frame. The task's time
less that leaves motionwarp's share.
"""
import collections
import cProfile
import pstats

from .characters import own_task, run
from .timing import Summary


def panda_update(actor):
    """Panda3D computing the blended skeleton of `actor` (what every animated character pays)."""
    return actor.update(force=True)


def vaulting(clock, herd, vaulters, timer, frames, repeats):
    """{'update', 'task', 'task_minus_update'}: Summaries of microseconds per character-frame
    (`herd` is the Vaulters that made `vaulters`; it times their play() calls, each twice)."""
    got = collections.defaultdict(list)
    for _ in range(repeats):
        update, task, share = [], [], []
        for _ in range(frames):
            clock.tick()
            for vaulter in vaulters:
                herd.keep_warping(vaulter, again=True)
                task_us, _ = timer.us(run, vaulter.task)
                update_us, _ = timer.us(panda_update, vaulter.actor)
                update.append(update_us)
                task.append(task_us)
                share.append(task_us - update_us)
        got["update"].append(update)
        got["task"].append(task)
        got["task_minus_update"].append(share)
    return {name: Summary(values) for name, values in got.items()}


def profiled(clock, herd, vaulters, frames):
    """pstats.Stats of the vaulters' warper tasks over `frames` frames (untimed: profiling inflates calls)."""
    profiler = cProfile.Profile()
    for _ in range(frames):
        clock.tick()
        for vaulter in vaulters:
            herd.keep_warping(vaulter)
            profiler.enable()
            run(vaulter.task)
            profiler.disable()
    return pstats.Stats(profiler)


def root_motion(clock, walkers, timer, frames, repeats):
    """Summary of a RootMotionDriver's task on a walking character, microseconds per character-frame."""
    repeated = []
    for _ in range(repeats):
        samples = []
        for _ in range(frames):
            clock.tick()
            for _, task in walkers:
                samples.append(timer.us(run, task)[0])
        repeated.append(samples)
    return Summary(repeated)


def contact_ik(base, clock, herd, vaulters, timer, frames, repeats):
    """Summary of ContactIK's task on vaulting characters (after their warper task), microseconds
    per character-frame; the IKs are destroyed afterwards."""
    from motionwarp import ContactIK, SceneProbe
    level = herd.level(len(vaulters))
    probe = SceneProbe.from_geometry(level)
    iks = [own_task(base.taskMgr, lambda v=v: ContactIK(v.actor, v.warper, probe, render=base.render))
           for v in vaulters]
    repeated = []
    for _ in range(repeats):
        samples = []
        for _ in range(frames):
            clock.tick()
            for vaulter, (_, task) in zip(vaulters, iks):
                herd.keep_warping(vaulter)
                run(vaulter.task)
                samples.append(timer.us(run, task)[0])
        repeated.append(samples)
    for ik, _ in iks:
        ik.destroy()
    level.removeNode()
    return Summary(repeated)
