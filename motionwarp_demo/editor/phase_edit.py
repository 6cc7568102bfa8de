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


def stuck(asset, index, later):
    """Why phase `index` cannot move later (or earlier): what it already touches on that side; None when it can."""
    phases, phase = asset.phases, asset.phases[index]
    low, high = _bounds(asset, index)
    if later and phase.end >= high - 1e-9:
        return f"{phases[index + 1].name} starts where it ends" if index + 1 < len(phases) else "it ends with the clip"
    if not later and phase.start <= low + 1e-9:
        return f"{phases[index - 1].name} ends where it starts" if index > 0 else "it starts with the clip"
    return None


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


def _shown(value):
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(f"{v:+.2f}" for v in value) + "]"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def changes(before, after):
    """What differs from `before` to `after` (two versions of one asset), phase by phase, such as
    "landing 1.43-2.30 s -> 1.40-2.27 s" or "close_edge min_rate 0.50 -> 0.45" ("" when nothing does)."""
    said = []
    for old, new in zip(before.phases, after.phases):
        if (old.start, old.end) != (new.start, new.end):
            said.append(f"{new.name} {old.start:.2f}-{old.end:.2f} s -> {new.start:.2f}-{new.end:.2f} s")
        old_data, new_data = old.to_dict(), new.to_dict()
        for key in sorted((old_data.keys() | new_data.keys()) - {"name", "start", "end"}):
            if old_data.get(key) != new_data.get(key):
                said.append(f"{new.name} {key} {_shown(old_data.get(key))} -> {_shown(new_data.get(key))}")
    return "; ".join(said)


@dataclasses.dataclass
class EditHistory:
    """The assets before each edit, newest last."""

    undo_stack: list = dataclasses.field(default_factory=list)

    def record(self, before):
        self.undo_stack.append(before)

    def undo(self, current):
        """The asset before the last edit (`current` when there is nothing to undo)."""
        return self.undo_stack.pop() if self.undo_stack else current
