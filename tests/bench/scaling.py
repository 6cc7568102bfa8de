"""Whole warper tasks per frame for 1 to 500 warping characters, next to Panda3D animating the same actors.

One frame's time is all N warper tasks run back to back (each calling `actor.update()`), then
all N `actor.update(force=True)` (the same poses again): milliseconds of CPU per frame.
"""
from .characters import run
from .frame_costs import panda_update
from .timing import Summary

FRAME_BUDGET_MS = 12.0


def scaling(clock, herd, counts, timer, frames, repeats):
    """{count: (Summary of the warper tasks' ms per frame, Summary of Panda3D's ms per frame)}."""
    herd.add(max(counts) - len(herd.all))
    out = {}
    for count in counts:
        vaulters = herd.all[:count]
        warp, panda = [], []
        for _ in range(repeats):
            warp.append([])
            panda.append([])
            for _ in range(frames):
                clock.tick()
                for vaulter in vaulters:
                    herd.keep_warping(vaulter)
                t0 = timer.start()
                for vaulter in vaulters:
                    run(vaulter.task)
                warp[-1].append(timer.since(t0) / 1e3)
                t0 = timer.start()
                for vaulter in vaulters:
                    panda_update(vaulter.actor)
                panda[-1].append(timer.since(t0) / 1e3)
        out[count] = (Summary(warp), Summary(panda))
    return out
