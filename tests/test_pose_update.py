"""The warper task computes the Actor's pose as `actor.update()` does (docs/design.md 9: it
calls it first), without going through Actor.update's per-part lookups; an Actor class with
its own `update` keeps it."""
from direct.actor.Actor import Actor
from panda3d.core import LMatrix4f

from motionwarp import MotionWarper, load_actor

from .conftest import MANNEQUIN, step


def _net_transforms(actor):
    """{joint: net transform} as last computed: reading them does not update the pose."""
    character = actor.find("**/+Character").node()
    out = {}
    for joint in actor.getJoints():
        mat = LMatrix4f()
        character.findJoint(joint.getName()).getNetTransform(mat)
        out[joint.getName()] = mat
    return out


def _largest_difference(a, b):
    return max(abs(a[name].getCell(r, c) - b[name].getCell(r, c)) for name in a for r in range(4) for c in range(4))


def test_the_warper_task_leaves_the_pose_actor_update_computes(base):
    warped, plain = load_actor(MANNEQUIN), load_actor(MANNEQUIN)
    for actor in (warped, plain):
        actor.reparentTo(base.render)
    warper = MotionWarper(warped, taskmgr=base.taskMgr, render=base.render)
    try:
        warper.driver.loop("walk")
        plain.loop("walk", fromFrame=0, toFrame=warper.driver.loop_range("walk")[1])
        before = None
        for _ in range(5):
            plain.update()              # at the clock time the warper task sees (the clock ticks after the tasks)
            step(base, 1 / 30)          # the warper task updates `warped`; nothing else updates either
            now = _net_transforms(warped)
            assert _largest_difference(now, _net_transforms(plain)) < 1e-6
            if before is not None:
                assert _largest_difference(now, before) > 1e-3   # the pose moved: the task did update it
            before = now
    finally:
        warper.destroy()
        for actor in (warped, plain):
            actor.cleanup()
            actor.removeNode()


class _CountingActor(Actor):
    """An Actor whose class has its own update(), as a game's may."""

    def update(self, *args, **kwargs):
        self.updates = getattr(self, "updates", 0) + 1
        return Actor.update(self, *args, **kwargs)


def test_an_actor_class_with_its_own_update_has_it_called_every_frame(base):
    actor = load_actor(MANNEQUIN)
    actor.__class__ = _CountingActor
    actor.reparentTo(base.render)
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    try:
        for frames in (1, 2, 3):
            step(base, 1 / 60)
            assert actor.updates == frames
    finally:
        warper.destroy()
        actor.cleanup()
        actor.removeNode()
