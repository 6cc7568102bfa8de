"""The demo's debug view (F2): what the providers found, where the warp aims, and how it bent the path.

Drawn in the scene each frame while shown: each target with its axes, the close and far edges,
the landing point and the obstacle's normal of the interaction on offer (or of the last one),
and after a warp starts its root trails: the clip's own root motion from where the warp started
(unwarped, grey) and where the character really went (warped, magenta).
"""
from panda3d.core import LineSegs, Point3, Vec3

AXES = ((Vec3(1, 0, 0), (1, 0.2, 0.2, 1)), (Vec3(0, 1, 0), (0.2, 1, 0.2, 1)), (Vec3(0, 0, 1), (0.3, 0.5, 1, 1)))
EDGE_COLORS = {"close_edge": (1, 0.9, 0.2, 1), "far_edge": (1, 0.55, 0.1, 1), "landing": (0.2, 1, 1, 1)}
NORMAL_COLOR = (1, 1, 1, 1)
UNWARPED_COLOR, WARPED_COLOR = (0.55, 0.55, 0.55, 1), (1, 0.2, 0.9, 1)
TRIPOD_M, CROSS_M, NORMAL_M = 0.3, 0.08, 0.5


def draw_tripod(segs, pos, quat, size=TRIPOD_M):
    """A target's x, y and z axes (red, green, blue) from its position."""
    for axis, color in AXES:
        segs.setColor(*color)
        segs.moveTo(pos)
        segs.drawTo(pos + quat.xform(axis) * size)


def draw_cross(segs, pos, color, size=CROSS_M):
    segs.setColor(*color)
    for axis in (Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)):
        segs.moveTo(pos - axis * size)
        segs.drawTo(pos + axis * size)


def draw_path(segs, points, color):
    if len(points) < 2:
        return
    segs.setColor(*color)
    segs.moveTo(points[0])
    for point in points[1:]:
        segs.drawTo(point)


def unwarped_trail(track, start):
    """The root path the clip would take from `start` (a NodePath at the warp's start) without warping."""
    space = start.getParent()
    return [space.getRelativePoint(start, Point3(*track.motion(frame).pos)) for frame in range(track.num_frames)]


class DebugView:
    """Redraws under `render` each frame while shown; `interaction` is the providers' find (or None)."""

    def __init__(self, render):
        self.render = render
        self.root = render.attachNewNode("motionwarp-debug")
        self.root.setLightOff(1)
        self.root.setShaderOff(1)   # plain coloured lines, also under simplepbr
        self.root.setDepthTest(False)
        self.root.setDepthWrite(False)
        self.root.setBin("fixed", 10)
        self.root.hide()
        self.start = render.attachNewNode("motionwarp-debug-warp-start")
        self.warp = None
        self.warped, self.unwarped = [], []
        self._drawing = None

    @property
    def shown(self):
        return not self.root.isHidden()

    def toggle(self):
        self.root.hide() if self.shown else self.root.show()

    def warp_started(self, warp, start):
        """Remember where `warp` starts from (the actor's TransformState under render), begin its trails."""
        self.warp = warp
        self.start.setTransform(start)
        self.unwarped = unwarped_trail(warp.track, self.start)
        self.warped = [self.start.getPos()]

    def update(self, actor, warping, interaction):
        """Record the warped trail, then redraw if shown."""
        if warping and self.warp is not None:
            self.warped.append(actor.getPos(self.render))
        if not self.shown:
            return
        segs = LineSegs("motionwarp-debug-lines")
        segs.setThickness(2)
        if interaction:
            self._draw_interaction(segs, interaction)
        draw_path(segs, self.unwarped, UNWARPED_COLOR)
        draw_path(segs, self.warped, WARPED_COLOR)
        if self._drawing is not None:
            self._drawing.removeNode()
        self._drawing = self.root.attachNewNode(segs.create())

    def _draw_interaction(self, segs, interaction):
        for target in interaction.targets:
            draw_tripod(segs, Point3(target.pos), target.local_quat())
        for name, color in EDGE_COLORS.items():
            point = getattr(interaction, name)
            if point is not None:
                draw_cross(segs, Point3(point), color)
        segs.setColor(*NORMAL_COLOR)
        segs.moveTo(Point3(interaction.close_edge))
        segs.drawTo(Point3(interaction.close_edge) + Vec3(interaction.normal) * NORMAL_M)

    def destroy(self):
        self.root.removeNode()
        self.start.removeNode()


__all__ = ["DebugView"]
