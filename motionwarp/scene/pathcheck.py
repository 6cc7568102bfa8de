"""Collision-checked warps (docs/design.md 4 and 7): before a warp plays, the character's body is
swept along the path the warp will take, and a warp whose path passes through the scene is refused,
naming what it hits and when."""
import dataclasses
import numbers

from panda3d.core import NodePath, Point3

from ..base.errors import UsageError, shown


@dataclasses.dataclass
class PathCheck:
    """The body to sweep along a warp's planned path: an upright capsule of `radius` from `lift` above
    the root (the feet) up to `height`, against `probe` (a SceneProbe), leaving out `ignore` (scene
    NodePaths, with what is under them: the obstacle the warp traverses, the character itself).

    Pass it as `MotionWarper.play(..., path_check=)` (or `check`): the warper asks `refusal`."""

    probe: object
    radius: float
    height: float
    lift: float = 0.0
    ignore: tuple = ()

    def __post_init__(self):
        for name in ("radius", "height", "lift"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise UsageError(f"PathCheck {name}: expected a number of metres, got {shown(value)}")
        ignore = (self.ignore,) if isinstance(self.ignore, NodePath) else self.ignore
        if not isinstance(ignore, (list, tuple)) or not all(isinstance(node, NodePath) for node in ignore):
            raise UsageError(f"PathCheck ignore: expected NodePaths (the scene nodes to leave out), got {shown(self.ignore)}")
        self.ignore = tuple(ignore)
        if not (0.0 < self.radius and 0.0 <= self.lift <= self.height - 2.0 * self.radius + 1e-9):
            raise UsageError(f"PathCheck: expected 0 < radius and 0 <= lift <= height - 2 radius, got radius "
                             f"{self.radius:g}, lift {self.lift:g}, height {self.height:g}")
        if not callable(getattr(self.probe, "capsule_overlaps", None)):
            raise UsageError(f"PathCheck probe: expected a SceneProbe, got {type(self.probe).__name__} {shown(self.probe)}")

    def obstacle(self, path):
        """(seconds, scene node) of the first place along `path` ([(seconds, root position)]) where the
        capsule overlaps the scene, or None. Between samples further apart than half the radius, it is
        tested at points in between."""
        spacing = self.radius / 2.0
        before = None
        for seconds, root in path:
            points = [(seconds, root)]
            if before is not None:
                gap = (root - before[1]).length()
                count = int(gap / spacing)
                points = [(before[0] + (seconds - before[0]) * i / (count + 1),
                           before[1] + (root - before[1]) * (i / (count + 1))) for i in range(1, count + 1)] + points
            for when, point in points:
                node = self._overlap(point)
                if node is not None:
                    return when, node
            before = (seconds, root)
        return None

    def refusal(self, asset, path):
        """Why the warp of `asset` along `path` cannot play: "the path through the vault hits 'beam'
        at 0.80 s", or None."""
        found = self.obstacle(path)
        if found is None:
            return None
        seconds, node = found
        what = f"the path through the {asset.traversal.meaning.verb}" if asset.traversal else f"the path of {asset.clip!r}"
        return f"{what} hits {node.getName()!r} at {seconds:.2f} s"

    def _overlap(self, root):
        centre = Point3(root[0], root[1], root[2] + (self.lift + self.height) / 2.0)
        return self.probe.capsule_overlaps(self.radius, self.height - self.lift, centre, self.ignore)
