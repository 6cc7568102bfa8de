"""IKBatch: the contact IK of many characters in one task, every limb they bend solved at once.

A ContactIK alone pays numpy's cost per call for its own two or four limbs each frame; a crowd
of them, each in its own task, pays it once per character. The batch runs every ContactIK it
holds in one task: each character's goal step (ik.goals) and its reads of the animated pose, one
bend of every limb of every character (ik.limbs: the two-bone solve and the turn limit as array
arithmetic), then each character's pose written (ik.pose_writer). Per character the Python left
is the goal step, reading its limbs' joints and freezing the bent ones; the results are the
ContactIK's own, which bends its limbs through the same code with a batch of one.
"""
from panda3d.core import ClockObject

from ..base.config import from_base
from .limbs import LimbBatch


class IKBatch:
    """Runs the ContactIKs added to it in one task at `sort` (default: the first one's
    `ik_task_sort`), instead of each one's own task.

    `add(ik)` takes a ContactIK over (its own task is removed), `remove(ik)` gives it back its task,
    `destroy()` gives every one back. A ContactIK destroyed or whose actor was removed leaves the
    batch. Each character's joints end each frame where its own task puts them (to float32 rounding).
    """

    def __init__(self, taskmgr=None, sort=None):
        self._taskmgr = taskmgr or from_base("taskMgr")
        self._sort = sort
        self._task_name = f"motionwarp-ik-batch-{id(self)}"
        self._task_added = False
        self.iks = []
        self._limbs = LimbBatch()

    def add(self, ik):
        """Run `ik` in this batch from the next frame on."""
        if ik in self.iks:
            return
        ik.leave_task()
        self.iks.append(ik)
        if not self._task_added:
            sort = self._sort if self._sort is not None else ik.settings.ik_task_sort
            self._taskmgr.add(self._task, self._task_name, sort=sort)
            self._task_added = True

    def remove(self, ik):
        """Give `ik` back its own task (unless it was destroyed)."""
        self.iks.remove(ik)
        if not ik.destroyed:
            ik.join_task()

    def destroy(self):
        """Remove the batch's task and give every ContactIK back its own."""
        for ik in list(self.iks):
            self.remove(ik)
        self._taskmgr.remove(self._task_name)
        self._task_added = False

    def _task(self, task):
        self.step(ClockObject.getGlobalClock().getDt())
        return task.cont

    def step(self, dt):
        """One frame of every ContactIK held: [how many limbs each bent], in `iks` order after those
        that left. A ContactIK that fails reports it and is left out of this frame; the others go on."""
        self.iks = [ik for ik in self.iks if not ik.destroyed and not ik.actor.isEmpty()]
        limbs = self._limbs
        limbs.clear()
        frames = []
        for ik in self.iks:
            try:
                frames.append(ik.gather(dt, limbs))
            except Exception as exc:  # a game's task loop must never see motionwarp fail
                ik.fail(exc)
                frames.append(None)
        try:
            bent = limbs.bend()
        except Exception as exc:
            for ik in self.iks:
                ik.fail(exc)
            return [0] * len(self.iks)
        counts = []
        for ik, frame in zip(self.iks, frames):
            try:
                counts.append(0 if frame is None else ik.finish(frame, bent))
            except Exception as exc:
                ik.fail(exc)
                counts.append(0)
        return counts
