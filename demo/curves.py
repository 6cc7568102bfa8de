"""A HUD panel: a warp asset's root-motion curves with its phases shaded and the clip time marked."""
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import CardMaker, LineSegs, TextNode, TransparencyAttrib

AXIS_COLORS = ((0.95, 0.35, 0.3, 1), (0.35, 0.9, 0.4, 1), (0.4, 0.6, 1.0, 1))  # x, y, z
PHASE_COLORS = ((1.0, 0.85, 0.3, 0.28), (0.3, 0.85, 1.0, 0.28))


class CurvePanel:
    """Draws under `parent` (the window's bottom-left corner, a2dBottomLeft) in the box (left, right, bottom, top)."""

    def __init__(self, parent, box=(0.08, 1.12, 0.34, 0.8)):
        self.root = parent.attachNewNode("motionwarp-curves")
        self.root.setTransparency(TransparencyAttrib.M_alpha)
        self.box = box
        self.asset = None
        self.drawing = None
        self.cursor = self._line([(0, 0), (0, 1)], (1, 1, 1, 0.9), "cursor")
        self.cursor.hide()

    def _to_panel(self, u, v):
        left, right, bottom, top = self.box
        return left + (right - left) * u, bottom + (top - bottom) * v

    def _line(self, points, color, name, parent=None):
        segs = LineSegs(name)
        segs.setColor(*color)
        segs.setThickness(2)
        segs.moveTo(points[0][0], 0, points[0][1])
        for x, z in points[1:]:
            segs.drawTo(x, 0, z)
        return (parent or self.root).attachNewNode(segs.create())

    def _card(self, u0, u1, color, parent):
        maker = CardMaker("phase")
        (x0, z0), (x1, z1) = self._to_panel(u0, 0), self._to_panel(u1, 1)
        maker.setFrame(x0, x1, z0, z1)
        card = parent.attachNewNode(maker.generate())
        card.setColor(*color)
        return card

    def show(self, asset):
        """Draw `asset`'s curves (x, y, z of the root, one shared scale) and its phase windows."""
        if asset is self.asset:
            return
        self.asset = asset
        if self.drawing is not None:
            self.drawing.removeNode()
        self.drawing = self.root.attachNewNode("drawing")
        self.drawing.setBin("fixed", 0)
        self._card(0, 1, (0.04, 0.05, 0.07, 0.72), self.drawing)
        duration = asset.track.duration
        for index, phase in enumerate(asset.phases):
            self._card(phase.start / duration, phase.end / duration, PHASE_COLORS[index % 2], self.drawing)
            x, z = self._to_panel((phase.start + phase.end) / 2 / duration, 0.9)
            OnscreenText(text=phase.name, pos=(x, z), scale=0.038, fg=(1, 1, 1, 1), parent=self.drawing)
        positions = asset.track.positions
        low, high = float(positions.min()), float(positions.max())
        span = max(high - low, 1e-6)
        last = len(positions) - 1
        for axis, color in enumerate(AXIS_COLORS):
            points = [self._to_panel(i / last, 0.05 + 0.8 * (positions[i][axis] - low) / span) for i in range(last + 1)]
            self._line(points, color, "xyz"[axis], self.drawing)
        x, z = self._to_panel(0.0, 1.06)
        OnscreenText(text=f"{asset.clip} root motion: x red, y green, z blue ({low:+.1f} to {high:+.1f} m)",
                     pos=(x, z), scale=0.04, align=TextNode.ALeft, fg=(1, 1, 1, 1), shadow=(0, 0, 0, 1), parent=self.drawing)
        self.cursor.reparentTo(self.root)

    def set_time(self, seconds):
        """Put the cursor at `seconds` of clip time, or hide it (None)."""
        if seconds is None or self.asset is None:
            self.cursor.hide()
            return
        u = min(max(seconds / self.asset.track.duration, 0.0), 1.0)
        left, right, bottom, top = self.box
        self.cursor.show()
        self.cursor.setPos(left + (right - left) * u, 0, bottom)
        self.cursor.setSz(top - bottom)

    def destroy(self):
        self.root.removeNode()


__all__ = ["CurvePanel"]
