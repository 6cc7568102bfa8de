"""The demo's HUD: text on dark translucent panels pinned to the window's edges.

Panels hang from the a2d* corner nodes, so they stay in their corners at any aspect ratio, and
aspect2d scales them with the window's height, so text keeps its size relative to the window.
"""
from direct.gui.OnscreenText import OnscreenText
from panda3d.core import TextNode, TransparencyAttrib

from .report import arrival_error

PANEL_COLOR = (0.04, 0.05, 0.07, 0.92)
TEXT_SCALE = 0.055
#: The demo's own keys, in the order the F1 panel lists them (the tuner adds its own).
KEYS = (
    ("W A S D / arrows", "move (camera-relative)"),
    ("Shift", "run"),
    ("Space", "vault or mantle what is in front"),
    ("E", "dodge (characters with a dodge clip)"),
    ("C", "compare: play what Space would, with warping off"),
    ("T", "slow motion: x1, x0.25, x0.1"),
    ("P", "pause"),
    (".", "step one frame while paused"),
    ("drag / wheel", "turn the camera / zoom"),
    ("F1", "show or hide this help"),
    ("F2", "debug view: targets, edges, normal, root trails"),
    ("F3", "show or hide the curve panel and the tuner"),
    ("Esc", "quit"),
)


def panel_text(parent, pos, align=TextNode.ALeft, scale=TEXT_SCALE, fg=(1, 1, 1, 1)):
    """An OnscreenText drawn on a dark translucent card that grows with its text."""
    text = OnscreenText(parent=parent, text="", pos=pos, scale=scale, align=align, fg=fg, mayChange=True)
    text.textNode.setCardColor(*PANEL_COLOR)
    text.textNode.setCardAsMargin(0.5, 0.5, 0.3, 0.3)
    text.setTransparency(TransparencyAttrib.M_alpha)
    return text


def key_lines(keys):
    """The F1 panel's rows: each key, a tab, what it does."""
    return "\n".join(f"{key}\t{action}" for key, action in keys)


def warp_line(warper):
    """The clip, phase and play rate of the warp in progress ("" when none is)."""
    warp = warper.current
    if warp is None:
        return ""
    phases = warp.asset.phases
    if warp.in_phase:
        where = f"phase {warp.phase_index + 1}/{len(phases)} {phases[warp.phase_index].name}"
    else:
        where = "between phases" if warp.phase_index < len(phases) else "after the last phase"
    return f"warp {warp.asset.clip}: {where}, play rate {warper.play_rate:.2f}"


def arrival_lines(warp):
    """Each finished phase of `warp` and how far from its target it arrived, in metres and degrees."""
    lines = []
    for result in warp.results:
        metres, degrees = arrival_error(result)
        lines.append(f"  {result['name']}: {metres * 100:.1f} cm, {degrees:.1f} deg off")
    return lines


class Hud:
    """The info panel (top left), the prompt and status (bottom centre) and the F1 help panel."""

    def __init__(self, base, keys):
        self.info = panel_text(base.a2dTopLeft, (0.06, -0.1))
        self.status = panel_text(base.a2dBottomCenter, (0, 0.2), TextNode.ACenter)
        self.prompt = panel_text(base.a2dBottomCenter, (0, 0.08), TextNode.ACenter, fg=(1, 1, 0.6, 1))
        self.help = panel_text(base.aspect2d, (-0.75, 0.55))
        self.help.textNode.setTabWidth(10)
        self.help.setText("Keys\n" + key_lines(keys))
        self.help.hide()

    def toggle_help(self):
        self.help.show() if self.help.isHidden() else self.help.hide()

    def show_info(self, fps, clip, warper, last_warp, clock=""):
        """Refresh the info panel: frame rate, clip (and `clock`: slow motion, pause), the warp in progress,
        the last warp's arrival errors."""
        lines = [f"{fps:.0f} fps   clip {clip}   {clock + '   ' if clock else ''}F1: keys",
                 warp_line(warper) or "no warp playing"]
        if last_warp is not None and last_warp.results:
            lines += [f"last {last_warp.asset.clip} arrived:"] + arrival_lines(last_warp)
        self.info.setText("\n".join(lines))

    def destroy(self):
        for text in (self.info, self.status, self.prompt, self.help):
            text.destroy()
