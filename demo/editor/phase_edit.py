"""The curve editor's edits as plain functions: move or resize a phase window, snapped to frames.

Each edit builds a new WarpAsset through `WarpAsset.rebind`, so it is validated exactly like
a loaded file and bound to the clip already loaded; a window stops at its neighbours and the
clip's ends. `EditHistory` undoes.
"""
import dataclasses


def windows(asset):
    """The phases' (start, end) in seconds."""
    return [(phase.start, phase.end) for phase in asset.phases]


def snap(seconds, fps):
    """`seconds` on the nearest frame of a clip at `fps`."""
    return round(seconds * fps) / fps


def _bounds(asset, index):
    """Where phase `index` may lie: from the previous phase's end to the next one's start (or the clip's ends)."""
    phases = asset.phases
    low = phases[index - 1].end if index > 0 else 0.0
    high = phases[index + 1].start if index + 1 < len(phases) else asset.track.duration
    return low, high


def _with_phase(asset, index, start, end):
    data = asset.to_dict()
    data["phases"][index]["start"], data["phases"][index]["end"] = round(start, 6), round(end, 6)
    return asset.rebind(data)


def move_phase(asset, index, seconds):
    """Phase `index` dragged by `seconds` (snapped to frames, stopped by its neighbours), same length."""
    phase, fps = asset.phases[index], asset.track.fps
    low, high = _bounds(asset, index)
    shift = min(max(snap(seconds, fps), low - phase.start), high - phase.end)
    return _with_phase(asset, index, phase.start + shift, phase.end + shift)


def resize_phase(asset, index, edge, seconds):
    """Phase `index` with its `edge` ("start" or "end") put at `seconds`, snapped, at least one frame long."""
    phase, fps = asset.phases[index], asset.track.fps
    low, high = _bounds(asset, index)
    at = snap(seconds, fps)
    if edge == "start":
        return _with_phase(asset, index, min(max(at, low), phase.end - 1 / fps), phase.end)
    if edge == "end":
        return _with_phase(asset, index, phase.start, max(min(at, high), phase.start + 1 / fps))
    raise ValueError(f"edge must be 'start' or 'end', not {edge!r}")


def phase_motion(asset, index):
    """The root motion over phase `index` (metres along x, y, z of the clip's frame 0)."""
    phase, track = asset.phases[index], asset.track
    start, end = track.motion(phase.start * track.fps).pos, track.motion(phase.end * track.fps).pos
    return tuple(float(b - a) for a, b in zip(start, end))


@dataclasses.dataclass
class EditHistory:
    """The assets before each edit, newest last."""

    undo_stack: list = dataclasses.field(default_factory=list)

    def record(self, before):
        self.undo_stack.append(before)

    def undo(self, current):
        """The asset before the last edit (`current` when there is nothing to undo)."""
        return self.undo_stack.pop() if self.undo_stack else current
