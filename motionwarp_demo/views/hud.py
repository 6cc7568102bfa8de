"""The demo's HUD: text on dark translucent panels pinned to the window's edges.

Panels hang from the a2d* corner nodes, so they stay in their corners at any aspect ratio, and
aspect2d scales them with the window's height, so text keeps its size relative to the window.
Lines wrap at word boundaries at the window's width (the prompt, status and F1 help) or half of it
(the corner panels), and are wrapped again when the window's shape changes, so nothing is cut at
800x600 or at 1920x1080. The frame rate shown is frames per second of real time.
"""
import math

from direct.gui.OnscreenText import OnscreenText
from direct.showbase.DirectObject import DirectObject
from panda3d.core import TextNode, TransparencyAttrib

from motionwarp.warp.assetdata import TRAVERSAL_KINDS

from .report import arrival_error

PANEL_COLOR = (0.04, 0.05, 0.07, 0.92)
TEXT_SCALE = 0.055
#: The card's margins around a panel's text (left, right, bottom, top), in text units.
CARD_MARGIN = (0.5, 0.5, 0.3, 0.3)
#: Space kept between a panel and the window's edge, and between stacked panels (aspect2d units).
EDGE_GAP = 0.04
#: The F1 help panel, at the left edge under the info panel: its largest text size (smaller when its rows
#: would not fit above the status), the share of the window's width it may take (the character is in the
#: middle) and the width of its key column (text units).
HELP_SCALE = 0.045
HELP_SHARE = 0.4
HELP_TAB = 7.5
#: The demo's own keys, in the order the F1 panel lists them (the tuner adds its own).
KEYS = (
    ("WASD / arrows", "move (camera-relative)"),
    ("Shift", "run"),
    ("Space", "do what the prompt offers"),
    ("E", "dodge (with a dodge clip)"),
    ("C", "compare: play it unwarped"),
    ("T", "slow motion x1, x0.25, x0.1"),
    ("P", "pause"),
    (".", "step a frame while paused"),
    ("drag / wheel", "turn the camera / zoom"),
    ("F1", "show or hide this help"),
    ("F2", "debug view: targets, trails"),
    ("F3", "show or hide the curve editor"),
    ("Esc", "quit"),
)


def panel_text(parent, pos, align=TextNode.ALeft, scale=TEXT_SCALE, fg=(1, 1, 1, 1)):
    """An OnscreenText drawn on a dark translucent card that grows with its text."""
    text = OnscreenText(parent=parent, text="", pos=pos, scale=scale, align=align, fg=fg, mayChange=True)
    text.textNode.setCardColor(*PANEL_COLOR)
    text.textNode.setCardAsMargin(*CARD_MARGIN)
    text.setTransparency(TransparencyAttrib.M_alpha)
    return text


def show_text(text, value):
    """Set a panel_text's text only when it changes: Panda3D lays a TextNode out anew after every
    setText, and the prompt is set every frame (the same text most frames; 0.3 ms a frame before)."""
    if text.getText() != value:
        text.setText(value)


def wrap_to(text, width, balance=False):
    """Wrap `text` (a panel_text) so its card is at most `width` aspect2d units wide; with `balance`,
    in rows of about equal length for the text it shows now (no word left alone on the last row), but
    never narrower than its widest word: Panda3D cuts a word wider than the wrap width in two (a file
    path). Only a word wider than the window itself is cut."""
    node = text.textNode
    wrap = max(width / text.getScale()[0] - CARD_MARGIN[0] - CARD_MARGIN[1], 1.0)
    if balance:
        lines = text.getText().split("\n")
        longest = max(node.calcWidth(line) for line in lines)
        if longest > wrap:
            widest_word = max(node.calcWidth(word) for line in lines for word in line.split())
            wrap = min(wrap, max(longest / math.ceil(longest / wrap), widest_word) + 1.0)
    if abs(node.getWordwrap() - wrap) > 1e-4:  # kept as a float32: an exact != would lay the text out every frame
        node.setWordwrap(wrap)


def extent(text):
    """(bottom, top) of a panel_text's card, in its parent's units from the text's origin (0, 0 when empty)."""
    if not text.getText():
        return 0.0, 0.0
    node, scale = text.textNode, text.getScale()[1]
    return (node.getBottom() - CARD_MARGIN[2]) * scale, (node.getTop() + CARD_MARGIN[3]) * scale


class FrameRate:
    """Frames drawn per second of real time, counted over about UPDATE_S: the game clock's own average
    counts game time, which runs slow in slow motion (24 fps at x0.1) and stops when paused ("inf").
    `now` reads real time in seconds (the clock's getRealTime)."""

    UPDATE_S = 0.5

    def __init__(self, now):
        self.now = now
        self.fps = 0.0
        self._since, self._frames = now(), 0
        self._measured = False   # True once a whole UPDATE_S was

    def tick(self):
        """Count one frame; returns the frame rate over the last whole UPDATE_S (in the first, over the
        frames so far)."""
        self._frames += 1
        now = self.now()
        elapsed = now - self._since
        if elapsed >= self.UPDATE_S:
            self.fps, self._measured = self._frames / elapsed, True
            self._since, self._frames = now, 0
        elif not self._measured and elapsed > 0:
            self.fps = self._frames / elapsed
        return self.fps


def key_lines(keys, width=None, measure=len):
    """The F1 panel's rows: each key, a tab, what it does; an action wider than `width` (in `measure`'s
    units, a TextNode's calcWidth) goes on in rows of its own under it, broken between words, so the
    key column stays a column."""
    rows = []
    for key, action in keys:
        pieces = [""]
        for word in action.split():
            joined = f"{pieces[-1]} {word}" if pieces[-1] else word
            if width is not None and pieces[-1] and measure(joined) > width:
                pieces.append(word)
            else:
                pieces[-1] = joined
        rows += [f"{key}\t{pieces[0]}"] + [f"\t{piece}" for piece in pieces[1:]]
    return "\n".join(rows)


def warp_line(warper, unwarped=False):
    """The clip, phase and play rate of the warp in progress ("" when none is); `unwarped`: it is the
    compare key's, the clip on its own root motion."""
    warp = warper.current
    if warp is None:
        return ""
    phases = warp.asset.phases
    if warp.in_phase:
        where = f"phase {warp.phase_index + 1}/{len(phases)} {phases[warp.phase_index].name}"
    else:
        where = "between phases" if warp.phase_index < len(phases) else "after the last phase"
    if unwarped:
        return f"{warp.asset.clip} plays unwarped (C): {where}"
    return f"warp {warp.asset.clip}: {where}, play rate {warper.play_rate:.2f}"


def offer_line(found, name):
    """What Space would do with `found` (an Interaction) at the obstacle called `name`, in a player's
    words and with what matters for its kind: a marker's height and distance (a marker has no depth),
    a gap's width, a ledge's height, an obstacle's height and depth."""
    verb, away = TRAVERSAL_KINDS[found.kind].verb, f"{found.distance:.1f} m away"
    if TRAVERSAL_KINDS[found.kind].found_by == "marker":
        return f"Space: {verb} ({name}, {_rise(found.height)}, {away})"
    if found.kind == "jump_gap":
        rise = "" if round(found.height, 2) == 0 else f", {_rise(found.height)}"
        return f"Space: {verb} ({found.depth:.2f} m gap to {name}{rise}, {away})"
    if found.kind == "jump_onto":
        return f"Space: {verb} ({name}, {found.height:.2f} m high, {away})"
    return (f"Space: {verb} {name} ({found.asset.clip}, {found.height:.2f} m high, "
            f"{found.depth:.2f} m deep, {away})")


def _rise(height):
    """A height above (up) or below (down) the feet or the take-off."""
    return f"{abs(height):.2f} m {'down' if round(height, 2) < 0 else 'up'}"


def arrival_lines(misses):
    """One line per (phase name, metres, degrees): how far from its target a phase ended."""
    return [f"  {name}: {metres * 100:.1f} cm, {degrees:.1f} deg off" for name, metres, degrees in misses]


class Hud(DirectObject):
    """The info panel (top left), the prompt and status (bottom centre, stacked from the window's
    bottom edge up) and the F1 help panel (at the left edge under the info panel, hidden at start)."""

    def __init__(self, base, keys):
        super().__init__()
        self.base = base
        self.info = panel_text(base.a2dTopLeft, (0.06, -0.1))
        self.status = panel_text(base.a2dBottomCenter, (0, 0.2), TextNode.ACenter)
        self.prompt = panel_text(base.a2dBottomCenter, (0, 0.08), TextNode.ACenter, fg=(1, 1, 0.6, 1))
        self.keys = keys
        self.help = panel_text(base.a2dTopLeft, self.info.getPos(), scale=HELP_SCALE)   # placed by stack()
        self.help.textNode.setTabWidth(HELP_TAB)
        self.help.hide()
        self.frame_rate = FrameRate(base.clock.getRealTime)
        #: The top of the status card (a2dBottomCenter units), as stack() left it: the help stays above.
        self.status_top = EDGE_GAP
        #: (prompt, status, window width) as stack() last laid them out: the same again moves nothing.
        self._stacked = None
        #: (warp, phases ended, lines) of the last warp's arrival lines: made again when a phase ends.
        self._arrived = (None, 0, [])
        #: (panel_text, share of the window's width it may take): wrapped again when the window changes.
        self.wrapped = [(self.info, 0.5)]
        self.accept("aspectRatioChanged", self.fit)
        self.fit()

    @property
    def width(self):
        """The window's width in aspect2d units."""
        return self.base.a2dRight - self.base.a2dLeft

    def wrap(self, text, share):
        """Keep `text` (a panel_text, such as the tuner's) within `share` of the window's width."""
        self.wrapped.append((text, share))
        self.fit()

    def fit(self):
        """Wrap every panel to its share of the window's width (less the gaps at the edges); the help
        panel's actions wrap inside their column."""
        for text, share in self.wrapped:
            wrap_to(text, self.width * share - 2 * EDGE_GAP)
        width = self.width * HELP_SHARE - 2 * EDGE_GAP
        column = width / HELP_SCALE - CARD_MARGIN[0] - CARD_MARGIN[1] - HELP_TAB
        show_text(self.help, "Keys\n" + key_lines(self.keys, column, self.help.textNode.calcWidth))
        wrap_to(self.help, width)   # a single word wider than the column still stays inside

    def stack(self):
        """Once a frame: wrap the prompt and status (their text changes often) and place the prompt on the
        window's bottom edge and the status above it, however many rows each has. Returns the top of the
        status card (a2dBottomCenter units), for panels that must stay above. Laid out only when a text or
        the window's width changed (measuring the rows cost about 0.1 ms a frame)."""
        stacked = (self.prompt.getText(), self.status.getText(), self.width)
        if stacked == self._stacked:
            return self.status_top
        self._stacked = stacked
        z = EDGE_GAP
        for text in (self.prompt, self.status):
            wrap_to(text, self.width - 2 * EDGE_GAP, balance=True)
            bottom, top = extent(text)
            if top > bottom:
                if text.getPos() != (0, z - bottom):  # OnscreenText.setPos lays the text out anew
                    text.setPos(0, z - bottom)
                z += top - bottom + EDGE_GAP / 2
        self.status_top = z
        return z

    def _place_help(self):
        """The help card under the info card, however many rows that has, and above the status card, its
        text made smaller if it must be."""
        status_top = self.status_top   # a2dBottomCenter units
        card_top = self.info.getPos()[1] + extent(self.info)[0] - EDGE_GAP / 2    # a2dTopLeft units
        room = card_top - (status_top - (self.base.a2dTop - self.base.a2dBottom)) - EDGE_GAP / 2
        node = self.help.textNode
        rows = node.getTop() - node.getBottom() + CARD_MARGIN[2] + CARD_MARGIN[3]   # text units
        scale = min(HELP_SCALE, room / rows)
        if abs(self.help.getScale()[0] - scale) > 1e-6:
            self.help.setScale(scale)
        z = card_top - (node.getTop() + CARD_MARGIN[3]) * scale
        if abs(self.help.getPos()[1] - z) > 1e-6:   # OnscreenText.setPos lays the text out anew
            self.help.setPos(self.info.getPos()[0], z)

    def toggle_help(self):
        self.help.show() if self.help.isHidden() else self.help.hide()

    def show_info(self, clip, warper, last_warp, clock="", comparison=None):
        """Once a frame, after stack(): refresh the info panel (and place the help under it): frame rate
        (real frames per real second), clip (and `clock`: slow motion, pause), the warp in progress, the
        last warp's arrival errors; for the `comparison` (C, motionwarp_demo.editor.compare.Comparison) how far from
        the warp's targets the unwarped clip ended."""
        fps = self.frame_rate.tick()
        compared = comparison is not None and comparison.warp is last_warp
        lines = [f"{fps:.0f} fps   clip {clip}   {clock + '   ' if clock else ''}F1: keys",
                 warp_line(warper, compared and warper.current is last_warp) or "no warp playing"]
        if compared and last_warp.results:
            lines += [f"last {last_warp.asset.clip} unwarped ended from the targets:"] + arrival_lines(
                comparison.misses())
        elif last_warp is not None and last_warp.results:
            lines += [f"last {last_warp.asset.clip} arrived:"] + self._arrival_lines(last_warp)
        show_text(self.info, "\n".join(lines))
        if not self.help.isHidden():
            self._place_help()

    def _arrival_lines(self, warp):
        """How far from its targets each ended phase of `warp` arrived, worked out again only when one more
        phase has ended (a warp's results only grow)."""
        kept, count, lines = self._arrived
        if kept is not warp or count != len(warp.results):
            lines = arrival_lines((result.name, *arrival_error(result)) for result in warp.results)
            self._arrived = (warp, len(warp.results), lines)
        return lines

    def destroy(self):
        self.ignoreAll()
        for text in (self.info, self.status, self.prompt, self.help):
            text.destroy()
