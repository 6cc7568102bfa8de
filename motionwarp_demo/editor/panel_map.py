"""Where things are in the curve panel, as plain functions: clip time <-> panel x, what a press
grabs (a phase's start or end edge, its body, or the time axis), and what a drag makes of it.

Panel coordinates are a2dBottomLeft's (the panel's parent); `box` is (left, right, bottom, top).
Below the box lies the time ruler: a press there always scrubs, even under a phase window.
"""
import collections

from .phase_edit import move_phase, resize_phase

#: How close to a window's edge (panel units) a press grabs the edge instead of the body.
EDGE_REACH = 0.025
#: Height of the time ruler under the box (panel units).
RULER = 0.05

#: What a press took: `part` is "start", "end" or "body" of phase `index`, or "time" (index None).
Grab = collections.namedtuple("Grab", "index part")


def x_at(box, duration, seconds):
    """The panel x of clip time `seconds`."""
    left, right = box[0], box[1]
    return left + (right - left) * seconds / duration


def time_at(box, duration, x):
    """The clip time under panel x `x`, clamped to the clip."""
    left, right = box[0], box[1]
    return min(max((x - left) / (right - left), 0.0), 1.0) * duration


def grab_at(box, duration, windows, x, z, reach=EDGE_REACH):
    """What a press at panel point (x, z) takes, or None outside the panel and its ruler.

    `windows` are the phases' (start, end) in seconds. Inside a window, a press within `reach` of
    an edge (at most a third of the window, so a narrow one keeps a body) takes that edge; just
    outside a window, within `reach`, it takes the nearest edge; anywhere else it scrubs.
    """
    left, right, bottom, top = box
    if not (left - reach <= x <= right + reach and bottom - RULER <= z <= top):
        return None
    if z < bottom:
        return Grab(None, "time")
    edges = [(x_at(box, duration, start), x_at(box, duration, end)) for start, end in windows]
    for index, (x0, x1) in enumerate(edges):
        if x0 <= x <= x1:
            near = min(reach, (x1 - x0) / 3)
            if x - x0 <= near:
                return Grab(index, "start")
            if x1 - x <= near:
                return Grab(index, "end")
            return Grab(index, "body")
    gap, nearest = min((abs(x - edge), Grab(index, part)) for index, pair in enumerate(edges)
                       for part, edge in zip(("start", "end"), pair))
    return nearest if gap <= reach else Grab(None, "time")


def dragged(asset, grab, box, x_from, x_to):
    """`asset` after dragging `grab` (a phase's edge or body) from panel x `x_from` to `x_to`:
    snapped to frames and stopped by the neighbours and the clip's ends (motionwarp_demo/editor/phase_edit.py)."""
    left, right = box[0], box[1]
    seconds = (x_to - x_from) / (right - left) * asset.track.duration
    if grab.part == "body":
        return move_phase(asset, grab.index, seconds)
    return resize_phase(asset, grab.index, grab.part, getattr(asset.phases[grab.index], grab.part) + seconds)
