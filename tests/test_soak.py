"""Soak: the demo's autopilot over a long generated course, at mixed frame rates with hitches,
with interactions cancelled at random. Nothing raises, every completed interaction ends at the
height its obstacle implies, and tasks, scene nodes and memory do not grow.

Slow (minutes of CPU on a busy 2-core machine): it runs with MOTIONWARP_SLOW=1, as `.ci/run` does
after the suite, over SOAK_INTERACTIONS obstacles; `MOTIONWARP_SLOW=1 MOTIONWARP_SOAK=2000 python -m
pytest tests/test_soak.py -s` runs a longer course and prints the numbers.
"""
import gc
import json
import os
import random
import time
import tracemalloc

import pytest

from motionwarp_demo.app.app import Demo
from motionwarp_demo.level.scene import Scene
from motionwarp.scene.measure import _LINES, _MOST_KEYS, _MOST_LINES

from .conftest import step

SOAK_INTERACTIONS = 200
#: Interactions that leave the character on the top of the obstacle they name (a jump across a gap lands on it).
JUMPS_ONTO_THE_TOP = ("jump_gap", "jump_onto")
FRAME_RATES = (20, 30, 60, 120)
HITCH_CHANCE = 0.01          # per frame: one frame of 0.1 to 0.3 s
CANCEL_CHANCE = 0.15         # per interaction
HEIGHT_TOLERANCE_M = 1e-3
# Growth allowed between the middle and the end of the run (the run itself keeps no history).
PYTHON_GROWTH_BYTES = 128 * 1024
RSS_GROWTH_BYTES = 16 * 1024 * 1024


def soak_course(seed, count):
    """A scene with `count` obstacles in a row along +Y, and the height each one leaves the character at.

    Vault boxes stand on the ground (the character lands at 0). Ledges are mantled (it stands
    on top); the character walks off their far side and falls to the ground; a vault box always
    follows a ledge. From a ledge's top the character may instead jump the gap onto the next
    box's top (jump_gap, design 7): a jump leaves it on the top of the obstacle it lands on,
    which is each obstacle's size[2].
    """
    rng = random.Random(seed)
    obstacles, rest_height = [], {}
    y = 0.0
    previous = None
    for index in range(count):
        kind = "vault" if previous != "vault" else rng.choices(("vault", "mantle", "mantle_high"), (6, 2, 2))[0]
        name = f"{kind}-{index}"
        if kind == "vault":
            width, depth, height = rng.uniform(1.4, 2.4), rng.uniform(0.25, 1.1), rng.uniform(0.6, 1.35)
            gap = rng.uniform(2.3, 3.2)        # the landing is 1 m past the far face
            rest_height[name] = 0.0
        else:
            width, depth = 3.0, rng.uniform(1.5, 2.5)     # deeper than a vault takes
            height = rng.uniform(1.0, 1.7) if kind == "mantle" else rng.uniform(1.8, 2.2)
            gap = rng.uniform(1.5, 2.2)
            rest_height[name] = height
        obstacles.append({"name": name, "shape": "box", "pos": [round(rng.uniform(-0.15, 0.15), 3), round(y + depth / 2, 3), 0],
                          "size": [round(width, 3), round(depth, 3), round(height, 3)], "h": round(rng.uniform(-10, 10), 2)})
        rest_height[name] = round(rest_height[name], 3)
        y += depth + gap
        previous = kind
    # A waypoint on every obstacle keeps the walk on the row (the autopilot passes over them).
    waypoints = [[0, -3]] + [o["pos"][:2] for o in obstacles] + [[0, y + 2]]
    scene = {"format": "motionwarp.scene/1", "ground": {"size": [2 * y + 20, 2 * y + 20]},
             "spawn": {"pos": [0, -3, 0], "h": 0}, "obstacles": obstacles, "autopilot": waypoints}
    return scene, rest_height


def obstacle_index(name):
    return int(name.rsplit("-", 1)[1])


def frame_times(rng):
    """Endless frame durations: a few seconds at one rate, then another, with the odd hitch."""
    while True:
        dt = 1.0 / rng.choice(FRAME_RATES)
        for _ in range(int(rng.uniform(2.0, 6.0) / dt)):
            yield rng.uniform(0.1, 0.3) if rng.random() < HITCH_CHANCE else dt


def rss_bytes():
    """Resident memory of this process (Linux), or None elsewhere."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return None


class Soak:
    """Drives the demo's autopilot frame by frame and checks each interaction as it ends."""

    def __init__(self, base, demo, rest_height, seed):
        self.base, self.demo = base, demo
        # Per obstacle index (names are "kind-index"), allocated up front so the run keeps no
        # growing history: its resting height, and whether it was taken on or refused.
        self.rest_height = [rest_height[name] for name in sorted(rest_height, key=obstacle_index)]
        self.top_height = [o.size[2] for o in sorted(demo.scene.obstacles, key=lambda o: obstacle_index(o.name))]
        self.taken_on, self.refused = bytearray(len(rest_height)), bytearray(len(rest_height))
        self.rng = random.Random(seed)
        self.completed = self.cancelled = self.frames = 0
        self.worst_height_error = 0.0
        self.obstacle = self.kind = self.cancel_at = self.cancel_how = None
        demo.on_start = self._started
        demo.on_skip = lambda name, reason: self.refused.__setitem__(obstacle_index(name), 1)
        base.accept("motionwarp-finished", self._ended, [True])
        base.accept("motionwarp-cancelled", self._ended, [False])

    def _started(self, name, interaction, warp):
        self.obstacle, self.kind = name, interaction.kind
        self.taken_on[obstacle_index(name)] = 1
        self.cancel_at = None
        if self.rng.random() < CANCEL_CHANCE:
            self.cancel_at = self.rng.uniform(0.0, warp.track.num_frames / warp.track.fps)
            self.cancel_how = self.rng.choice(("cancel", "another clip"))

    def _ended(self, completed, warper, clip, reason=None):
        if not completed:
            self.cancelled += 1
            return
        self.completed += 1
        z = self.demo.actor.getZ(self.base.render)
        index = obstacle_index(self.obstacle)
        rest = self.top_height[index] if self.kind in JUMPS_ONTO_THE_TOP else self.rest_height[index]
        error = abs(z - rest)
        self.worst_height_error = max(self.worst_height_error, error)
        assert error < HEIGHT_TOLERANCE_M, f"{self.obstacle}: ended at z = {z:.4f}"

    def run_frames(self, frames, dts):
        for _ in range(frames):
            if self.demo.done:
                return
            step(self.base, next(dts))
            self.frames += 1
            warp = self.demo.warper.current
            if warp is not None and self.cancel_at is not None and warp.control.getFullFframe() / warp.track.fps >= self.cancel_at:
                self.cancel_at = None
                if self.cancel_how == "cancel":
                    self.demo.warper.cancel()
                else:
                    self.demo.actor.setControlEffect(warp.asset.clip, 0.0)   # another clip takes over the Actor

    def counts(self):
        return {"tasks": len(self.base.taskMgr.getAllTasks()),
                "nodes": self.base.render.findAllMatches("**").getNumPaths(),
                "nodes_2d": self.base.render2d.findAllMatches("**").getNumPaths()}

    def close(self):
        self.base.ignore("motionwarp-finished")
        self.base.ignore("motionwarp-cancelled")


@pytest.fixture
def soak_count():
    return int(os.environ.get("MOTIONWARP_SOAK") or SOAK_INTERACTIONS)


@pytest.mark.slow
def test_long_course_at_mixed_frame_rates_with_random_cancels(base, tmp_path, warp_asset_dir, soak_count):
    scene, rest_height = soak_course(seed=11, count=soak_count)
    path = tmp_path / "soak.json"
    path.write_text(json.dumps(scene))
    demo = Demo(base, Scene.load(path), autopilot=True, asset_dir=warp_asset_dir)
    soak = Soak(base, demo, rest_height, seed=5)
    dts = frame_times(random.Random(3))
    started = time.perf_counter()
    try:
        soak.run_frames(10, dts)                 # the first frames start the walk cycle
        at_start = soak.counts()
        while sum(soak.taken_on) < soak_count // 2 and not demo.done:
            soak.run_frames(60, dts)
        # Second half: only what this half allocates and still holds at the end is traced.
        tracemalloc.start()
        rss_middle = rss_bytes()
        soak.run_frames(10 ** 7, dts)
        # The probe's kept measurements are a cache bounded by design (design 7): at most _MOST_KEYS
        # lines of _MOST_LINES each. Checked against that bound, then let go, so what is traced is
        # everything else the second half still holds.
        lines = demo.probe.kept(_LINES)
        assert len(lines) <= _MOST_KEYS and all(len(line) <= _MOST_LINES for line in lines.values())
        demo.probe.changed()
        demo.probe.kept(_LINES)
        del lines
        # Held means reachable: garbage in reference cycles (kept answers dropped with their lines, about
        # 0.6 MiB here) is the cyclic collector's, which a game's next full collection frees.
        gc.collect()
        held = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
        tracemalloc.stop()
        python_growth = sum(stat.size for stat in held.statistics("filename"))
        rss_end = rss_bytes()
        at_end = soak.counts()
        assert demo.done, "the autopilot did not reach the end of the course"
    finally:
        soak.close()
        demo.destroy()
    seconds = time.perf_counter() - started
    rss_growth = None if rss_middle is None else rss_end - rss_middle
    met = [taken or refused for taken, refused in zip(soak.taken_on, soak.refused)]
    print(f"\nsoak: {soak_count} obstacles, {sum(soak.taken_on)} taken on, {sum(met) - sum(soak.taken_on)} only "
          f"refused; {soak.completed} interactions completed, "
          f"{soak.cancelled} cancelled; {soak.frames} frames in {seconds:.1f} s; worst resting height error "
          f"{soak.worst_height_error * 1000:.3f} mm; start {at_start}, end {at_end}; second half: python "
          f"+{python_growth / 1024:.0f} KiB, RSS {'n/a' if rss_growth is None else f'{rss_growth / 2 ** 20:+.1f} MiB'}")
    # Every obstacle is met: taken on, or refused with a reason (a mantle started closer than
    # 0.37 m to the face, which a hitch can cause, is refused: the target would be behind).
    assert all(met), [index for index, ok in enumerate(met) if not ok]
    assert soak.completed >= 0.8 * soak_count
    assert soak.cancelled >= 0.05 * soak_count
    assert at_end == at_start
    assert python_growth < PYTHON_GROWTH_BYTES, "\n".join(map(str, held.statistics("lineno")[:8]))
    assert rss_growth is None or rss_growth < RSS_GROWTH_BYTES
