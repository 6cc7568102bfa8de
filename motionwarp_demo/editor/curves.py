"""A HUD panel: a warp asset's root-motion curves with its phase windows, their edge handles, a time
ruler and a playhead. motionwarp_demo/editor/curve_editor.py makes it a mouse editor; motionwarp_demo/editor/panel_map.py maps it."""
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import CardMaker, LineSegs, TextNode, TransparencyAttrib

from ..views.hud import PANEL_COLOR, panel_text
from .panel_map import RULER, Grab, x_at
from .phase_edit import windows

AXIS_COLORS = ((0.95, 0.35, 0.3, 1), (0.35, 0.9, 0.4, 1), (0.4, 0.6, 1.0, 1))  # x, y, z
PHASE_COLORS = ((1.0, 0.85, 0.3, 0.3), (0.3, 0.85, 1.0, 0.3))
#: A handle as drawn, under the mouse, and held by it.
HANDLE_COLOR, HOT_COLOR, HELD_COLOR = (1.0, 1.0, 1.0, 0.55), (1.0, 1.0, 0.4, 1.0), (1.0, 0.55, 0.1, 1.0)
SELECTED_COLOR = (1.0, 1.0, 1.0, 0.9)
#: Handle sizes (panel units): the bar along a window's edge, the grip across its middle.
BAR_W, GRIP_W, GRIP_H = 0.007, 0.022, 0.14
LABEL_SCALE = 0.04
INFO_SCALE = 0.042
TITLE_H = 0.06  # the title's strip above the box, on the panel
TICK_S = 0.1  # seconds between ruler ticks (every fifth is longer)
#: The panel's box (left, right, bottom, top) in a2dBottomLeft units: above the prompt and status lines.
BOX = (0.08, 1.3, 0.36, 0.9)


class CurvePanel:
    """Draws under `parent` (the window's bottom-left corner, a2dBottomLeft) in the box (left, right, bottom, top).

    The plot (curves, title, ruler) is redrawn when the clip changes, the windows when a phase
    moves or the handle under the mouse changes, so a drag redraws only what it changes.
    """

    def __init__(self, parent, box=BOX):
        self.root = parent.attachNewNode("motionwarp-curves")
        self.root.setTransparency(TransparencyAttrib.M_alpha)
        self.box = box
        self.asset = None
        self.plot = self.windows = None
        self._plot_key = self._windows_key = None
        self.info = panel_text(self.root, (box[0], box[3]), scale=INFO_SCALE)  # placed by show()
        self.cursor = self._line([(0, 0), (0, 1)], (1, 1, 1, 0.95), "playhead", thickness=3)
        self.cursor.setBin("fixed", 3)
        self.cursor.hide()

    def _to_panel(self, u, v):
        left, right, bottom, top = self.box
        return left + (right - left) * u, bottom + (top - bottom) * v

    def _line(self, points, color, name, parent=None, thickness=2):
        segs = LineSegs(name)
        segs.setColor(*color)
        segs.setThickness(thickness)
        segs.moveTo(points[0][0], 0, points[0][1])
        for x, z in points[1:]:
            segs.drawTo(x, 0, z)
        return (parent or self.root).attachNewNode(segs.create())

    @staticmethod
    def _rect(x0, x1, z0, z1, color, parent):
        maker = CardMaker("rect")
        maker.setFrame(x0, x1, z0, z1)
        card = parent.attachNewNode(maker.generate())
        card.setColor(*color)
        return card

    def _layer(self, old, name, sort):
        if old is not None:
            old.removeNode()
        layer = self.root.attachNewNode(name)
        layer.setBin("fixed", sort)
        return layer

    def show(self, asset, selected=None, hot=None, held=False, rates=None, info=""):
        """Draw `asset`: its curves (x, y, z of the root, one shared scale) and phase windows, phase
        `selected` outlined, the handle or body `hot` (a panel_map.Grab) lit (another colour when
        `held` by the mouse), each window's play rate from `rates` (one per phase, or None), and
        `info` above the panel."""
        self.asset = asset
        plot_key = (asset.clip, asset.path, asset.model, asset.track.num_frames)   # model_path costs path work
        if plot_key != self._plot_key:
            self._plot_key = plot_key
            self.plot = self._layer(self.plot, "plot", 0)
            self._draw_plot(asset, self.plot)
        # The rates as they are shown: the offer's change a little every frame as the character walks up.
        windows_key = (tuple(windows(asset)), selected, hot, held, tuple(f"{rate:.2f}" for rate in rates or ()))
        if windows_key != self._windows_key:
            self._windows_key = windows_key
            self.windows = self._layer(self.windows, "windows", 1)
            self._draw_windows(asset, selected, hot, HELD_COLOR if held else HOT_COLOR, rates, self.windows)
        if self.info.getText() != info:
            self.info.setText(info)
            left, _, _, top = self.box  # the info grows upward from just above the title
            self.info.setPos(left, top + TITLE_H + 0.04 + 1.2 * INFO_SCALE * info.count("\n"))

    def _draw_plot(self, asset, layer):
        left, right, bottom, top = self.box
        self._rect(left, right, bottom - RULER, top + TITLE_H, PANEL_COLOR, layer)  # the title on it too
        positions = asset.track.positions
        low, high = float(positions.min()), float(positions.max())
        span = max(high - low, 1e-6)
        last = len(positions) - 1
        for axis, color in enumerate(AXIS_COLORS):
            points = [self._to_panel(i / last, 0.05 + 0.8 * (positions[i][axis] - low) / span) for i in range(last + 1)]
            self._line(points, color, "xyz"[axis], layer).setBin("fixed", 2)  # over the windows
        OnscreenText(text=f"{asset.clip} root motion: x red, y green, z blue ({low:+.1f} to {high:+.1f} m)",
                     pos=(left + 0.01, top + 0.018), scale=0.04, align=TextNode.ALeft, fg=(1, 1, 1, 1),
                     shadow=(0, 0, 0, 1), parent=layer)
        self._draw_ruler(asset.track.duration, layer)

    def _draw_ruler(self, duration, layer):
        """Ticks every 0.1 s under the box, longer each 0.5 s, and the clip's length at the end."""
        left, right, bottom, _ = self.box
        segs = LineSegs("ruler")
        segs.setColor(0.8, 0.8, 0.8, 0.9)
        segs.moveTo(left, 0, bottom)
        segs.drawTo(right, 0, bottom)
        for tick in range(int(duration / TICK_S + 1e-9) + 1):
            x = x_at(self.box, duration, tick * TICK_S)
            segs.moveTo(x, 0, bottom)
            segs.drawTo(x, 0, bottom - (0.03 if tick % 5 == 0 else 0.015))
        layer.attachNewNode(segs.create())
        for seconds, align in ((0.0, TextNode.ALeft), (duration, TextNode.ARight)):
            OnscreenText(text=f"{seconds:.2f} s", pos=(x_at(self.box, duration, seconds), bottom - RULER + 0.008),
                         scale=0.036, align=align, fg=(0.9, 0.9, 0.9, 1), parent=layer)

    def _draw_windows(self, asset, selected, hot, hot_color, rates, layer):
        _, _, bottom, top = self.box
        duration = asset.track.duration
        for index, phase in enumerate(asset.phases):
            x0, x1 = x_at(self.box, duration, phase.start), x_at(self.box, duration, phase.end)
            body_lit = hot == Grab(index, "body")
            color = PHASE_COLORS[index % 2]
            self._rect(x0, x1, bottom, top, color[:3] + (0.45 if body_lit else color[3],), layer)
            if index == selected:
                self._line([(x0, bottom), (x0, top), (x1, top), (x1, bottom), (x0, bottom)], SELECTED_COLOR,
                           "selected", layer)
            for part, x, inward in (("start", x0, 1), ("end", x1, -1)):
                lit = hot_color if hot == Grab(index, part) else HANDLE_COLOR
                bar, grip, middle = x + inward * BAR_W, x + inward * GRIP_W, (bottom + top) / 2
                self._rect(min(x, bar), max(x, bar), bottom, top, lit, layer)
                self._rect(min(x, grip), max(x, grip), middle - GRIP_H / 2, middle + GRIP_H / 2, lit, layer)
            middle_x = (x0 + x1) / 2
            OnscreenText(text=phase.name, pos=(middle_x, top - 0.045), scale=LABEL_SCALE, fg=(1, 1, 1, 1),
                         shadow=(0, 0, 0, 1), parent=layer)
            if rates is not None:
                OnscreenText(text=f"x{rates[index]:.2f}", pos=(middle_x, top - 0.09), scale=LABEL_SCALE,
                             fg=(1, 1, 0.6, 1), shadow=(0, 0, 0, 1), parent=layer)

    def set_time(self, seconds):
        """Put the playhead at `seconds` of clip time, or hide it (None)."""
        if seconds is None or self.asset is None:
            self.cursor.hide()
            return
        _, _, bottom, top = self.box
        self.cursor.show()
        self.cursor.setPos(x_at(self.box, self.asset.track.duration, min(max(seconds, 0.0), self.asset.track.duration)),
                           0, bottom - RULER)
        self.cursor.setSz(top - bottom + RULER)

    def keep_above(self, z):
        """Lift the panel (its ruler) clear of what the HUD stacks at the bottom up to `z` (a2dBottomLeft units)."""
        self.root.setZ(max(0.0, z - (self.box[2] - RULER)))

    @property
    def visible(self):
        return not self.root.isHidden()

    def set_visible(self, visible):
        """Show or hide the panel (the editor takes no press while it is hidden)."""
        if visible:
            self.root.show()
        else:
            self.root.hide()

    def destroy(self):
        self.info.destroy()
        self.root.removeNode()


__all__ = ["CurvePanel"]
