"""The scene's moving obstacles (a scene file's `motion`, docs/design.md 6), moved every frame by the game clock."""
from panda3d.core import ClockObject, Point3

#: Before the demo's input (39) and the warper (45): a warp that follows a marker on a mover reads where
#: the mover is this frame.
TASK_SORT = 30


class Movers:
    """Moves each obstacle with a `motion` (from `obstacles`, built as `nodes`) by the seconds the game clock
    counted since its motion started: the sum of the frames' dt, so a run at a fixed frame rate moves them
    the same every time, and slow motion and pause slow and stop them (never wall time)."""

    def __init__(self, obstacles, nodes, taskmgr, clock=None):
        self._clock = clock or ClockObject.getGlobalClock()
        #: [motion, node, where it stands still, seconds since it started (None: not started)] per mover.
        self._moving = [[o.motion, node, Point3(*o.pos), 0.0 if o.motion.start == "scene" else None]
                        for o, node in zip(obstacles, nodes) if o.motion is not None]
        self._taskmgr, self._name = taskmgr, f"demo-movers-{id(self)}"
        if self._moving:
            taskmgr.add(self._task, self._name, sort=TASK_SORT)

    @property
    def nodes(self):
        """The moving obstacles' nodes: the markers on them are followed (MarkerProvider `moving`)."""
        return [node for _, node, _, _ in self._moving]

    def interaction_started(self, node):
        """An interaction with `node` (a marker, or a prop) started: the mover it is on, if its motion starts
        then and has not started yet, starts now."""
        for mover in self._moving:
            motion, mover_node = mover[0], mover[1]
            if (motion.start == "interaction" and mover[3] is None
                    and (node == mover_node or mover_node.isAncestorOf(node))):
                mover[3] = 0.0

    def _task(self, task):
        dt = self._clock.getDt()
        for mover in self._moving:
            motion, node, rest, elapsed = mover
            if elapsed is None or node.isEmpty():
                continue
            mover[3] = elapsed = elapsed + dt
            node.setPos(rest + motion.offset_at(elapsed))
        return task.cont

    def destroy(self):
        self._taskmgr.remove(self._name)
