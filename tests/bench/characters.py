"""The characters the benchmarks time: mannequins vaulting crates in a loop, and walkers.

Each motionwarp object's task is taken out of the task manager (whatever it named it) so a
benchmark can run it itself and time it; `run(task)` calls a task's function as the
task manager would.
"""
import pathlib
from dataclasses import dataclass

from motionwarp import samples

from .headless import shifted

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = samples.folder()
MANNEQUIN = SAMPLES / "assets" / "mannequin.glb"
SPACING_M = 3.0   # between characters along X
CRATE_DEPTH_M, CRATE_DISTANCE_M = 0.6, 1.0


def own_task(taskmgr, make):
    """(what `make()` returns, the one task it added to `taskmgr`), that task removed from it."""
    before = {task.id for task in taskmgr.getTasks()}
    made = make()
    added = [task for task in taskmgr.getTasks() if task.id not in before]
    for task in added:
        taskmgr.remove(task)
    if len(added) != 1:
        raise RuntimeError(f"{type(made).__name__}() added {len(added)} tasks ({[t.name for t in added]}); "
                           "the benchmark times one task per character: update tests/bench")
    return made, added[0]


def run(task):
    """One run of `task` (a PythonTask), as the task manager does it."""
    return task.getFunction()(task)


def crate_height(index):
    """Crate heights cycle 0.5 to 1.4 m, the range the vault asset takes."""
    return 0.5 + 0.9 * (index % 10) / 9


@dataclass
class Vaulter:
    actor: object
    warper: object
    task: object        # the warper's task
    height: float       # of its crate
    plays: int = 0      # warps started


class Vaulters:
    """Characters in a row along X, each vaulting its own crate in a loop (the warper's own task
    moves them: root motion plus warp)."""

    def __init__(self, base, timer):
        from motionwarp import WarpAsset
        self.base, self.timer = base, timer
        self.asset = WarpAsset.load(SAMPLES / "assets" / "vault.warp.json")
        self.all = []
        self.load_us, self.construct_us = [], []
        self.first_play_us, self.later_play_us = [], []   # a warper's first play() of the asset, and the others
        self.again_play_us = []   # the same play() once more at once, its caches warm

    def add(self, count):
        """Load `count` more characters, timing load_actor() and MotionWarper()."""
        from motionwarp import MotionWarper, load_actor
        for _ in range(count):
            index = len(self.all)
            us, actor = self.timer.us(load_actor, MANNEQUIN)
            self.load_us.append(us)
            actor.reparentTo(self.base.render)
            actor.setX(index * SPACING_M)
            t0 = self.timer.start()
            warper, task = own_task(self.base.taskMgr, lambda: MotionWarper(actor, render=self.base.render))
            self.construct_us.append(self.timer.since(t0))
            self.all.append(Vaulter(actor, warper, task, crate_height(index)))
        return self.all[len(self.all) - count:]

    def keep_warping(self, vaulter, again=False):
        """Start the vault again (from in front of the crate) once the last one ended; times play().
        `again`: then cancel it and time the same play() at once (warm CPU caches)."""
        if not vaulter.warper.is_warping:
            actor = vaulter.actor
            actor.setPos(actor.getX(), 0, 0)
            targets = shifted(vault_targets(vaulter.height), actor.getX())
            us, _ = self.timer.us(vaulter.warper.play, self.asset, targets)
            (self.later_play_us if vaulter.plays else self.first_play_us).append(us)
            vaulter.plays += 1
            if again:
                vaulter.warper.cancel(blend_out=0.0)
                self.again_play_us.append(self.timer.us(vaulter.warper.play, self.asset, targets)[0])

    def level(self, count):
        """A 400 m ground and the crates of the first `count` characters, for a contact IK's probe."""
        from tests.obstacles import box_profile, prism
        level = self.base.render.attachNewNode("level")
        prism(level, "ground", box_profile(400.0, 0.1), 400.0, pos=(0, 0, -0.1))
        for index in range(count):
            height = crate_height(index)
            prism(level, f"crate{index}", box_profile(CRATE_DEPTH_M, height), 1.2,
                  pos=(index * SPACING_M, CRATE_DISTANCE_M + CRATE_DEPTH_M / 2, 0))
        return level


def vault_targets(height):
    from tests.warp_helpers import vault_targets as targets
    return targets(height, CRATE_DEPTH_M, CRATE_DISTANCE_M)


def walkers(base, count, x0=-100.0):
    """`count` characters looping the walk clip with a RootMotionDriver each: [(actor, driver's task)]."""
    from motionwarp import RootMotionDriver, load_actor
    out = []
    for index in range(count):
        actor = load_actor(MANNEQUIN)
        actor.reparentTo(base.render)
        actor.setPos(x0 - index * SPACING_M, -50, 0)
        driver, task = own_task(base.taskMgr, lambda: RootMotionDriver(actor))
        driver.loop("walk")
        out.append((actor, task))
    return out
