"""Root motion for Panda3D clips: extraction from the animation tables, and stripping (DESIGN.md 3).

A clip's root motion is the translation (model space) and heading of one joint, sampled at
every baked frame. Stripping removes it from the shared table so the pose plays in place;
the character's NodePath then carries the motion (see `driver.RootMotionDriver`).
"""
import numpy as np
from panda3d.core import AnimChannelMatrixXfmTable, LVector3f, LVector3

from .errors import LoadError
from .motion import Motion, turn_points

if LVector3 is LVector3f:
    from panda3d.core import CPTA_float as _CPTA, PTA_float as _PTA
else:  # a Panda3D built with STDFLOAT_DOUBLE
    from panda3d.core import CPTA_double as _CPTA, PTA_double as _PTA

ROOT_MODES = ("bone", "projected")


class RootMotionTrack:
    """Root position (x, y, z, model space) and heading (degrees, unwrapped) of one clip per frame.

    Values are relative to frame 0 (in the root's frame-0 heading): `position(0)` is (0, 0, 0)
    and `heading(0)` is 0; `origin_pos` and `origin_h` give frame 0 in model space.
    Fractional frames interpolate linearly, like Panda3D's frame blending; frames outside
    the clip clamp to its ends.
    """

    def __init__(self, clip, fps, positions, headings):
        self.clip = clip
        self.fps = float(fps)
        positions = np.asarray(positions, dtype=np.float64).reshape(-1, 3)
        headings = np.unwrap(np.radians(np.asarray(headings, dtype=np.float64)))
        #: Absolute root position and heading (degrees) at frame 0, in model space.
        self.origin_pos, self.origin_h = positions[0].copy(), float(np.degrees(headings[0]))
        # Every frame's position in the frame-0 root frame (the initial heading undone).
        self.positions = turn_points(positions - positions[0], -self.origin_h)
        self.headings = np.degrees(headings - headings[0])
        self.num_frames = len(self.positions)
        # Plain-float copies for the per-frame path: numpy costs more than it saves on 3-vectors.
        self._rows = [(float(x), float(y), float(z), float(h))
                      for (x, y, z), h in zip(self.positions, self.headings)]

    @property
    def duration(self):
        """Seconds from the first to the last baked frame."""
        return (self.num_frames - 1) / self.fps

    def sample(self, fframe):
        """(x, y, z, heading) at a fractional frame, clamped to the clip, as plain floats."""
        rows = self._rows
        last = self.num_frames - 1
        if fframe <= 0.0 or last == 0:
            return rows[0]
        if fframe >= last:
            return rows[last]
        i = int(fframe)
        a = fframe - i
        r0, r1 = rows[i], rows[i + 1]
        return (r0[0] + (r1[0] - r0[0]) * a, r0[1] + (r1[1] - r0[1]) * a,
                r0[2] + (r1[2] - r0[2]) * a, r0[3] + (r1[3] - r0[3]) * a)

    def position(self, fframe):
        """Root position at a (fractional) frame, as a numpy 3-vector."""
        return np.array(self.sample(fframe)[:3])

    def heading(self, fframe):
        """Root heading in degrees at a (fractional) frame."""
        return self.sample(fframe)[3]

    def motion(self, fframe):
        """The root at a (fractional) frame as a Motion, relative to frame 0."""
        x, y, z, h = self.sample(fframe)
        return Motion((x, y, z), h)


def find_channel(bundle, joint):
    """The AnimChannelMatrixXfmTable of `joint` in an AnimBundle, or None."""
    group = bundle.findChild(joint)
    if group is None or not isinstance(group, AnimChannelMatrixXfmTable):
        return None
    return group


def _table(channel, component, num_frames):
    values = np.array(channel.getTable(component), dtype=np.float64)
    if len(values) == 0:
        return np.zeros(num_frames)
    if len(values) < num_frames:  # a constant channel is stored as one value
        return np.pad(values, (0, num_frames - len(values)), mode="edge")
    return values[:num_frames]


def extract(bundle, joint, mode="bone", projected_yaw=False, clip=None):
    """Read the root motion of `joint` from an AnimBundle's tables (no rendering)."""
    if mode not in ROOT_MODES:
        raise LoadError(f"root mode {mode!r} not understood; expected one of {', '.join(ROOT_MODES)}")
    channel = find_channel(bundle, joint)
    if channel is None:
        raise LoadError(f"clip {clip or bundle.getName()!r} has no animation channel for joint {joint!r}")
    n = bundle.getNumFrames()
    x, y, z, h = (_table(channel, c, n) for c in ("x", "y", "z", "h"))
    if mode == "projected":
        z = np.zeros(n)  # the hips keep their height in the pose
        if not projected_yaw:
            h = np.zeros(n)
    return RootMotionTrack(clip or bundle.getName(), bundle.getBaseFrameRate(), np.column_stack([x, y, z]), h)


def strip(bundle, joint, mode="bone", projected_yaw=False):
    """Remove the extracted motion from the joint's tables so the clip plays in place."""
    channel = find_channel(bundle, joint)
    zero = _CPTA(_PTA([0.0]))
    components = ("x", "y", "z", "h") if mode == "bone" else ("x", "y") + (("h",) if projected_yaw else ())
    for component in components:
        channel.setTable(component, zero)


# Root motion of every stripped bundle, by the bundle's C++ address. Bundles are shared between
# Actors (model cache), so each is stripped once and later Actors reuse the extracted track.
# Holding the bundle keeps its address from being reused.
_stripped = {}


def extract_and_strip(bundle, joint, mode="bone", projected_yaw=False, clip=None):
    """The root motion of a bundle, stripping it on first use; later calls return the same track."""
    key = bundle.this
    entry = _stripped.get(key)
    if entry is None:
        track = extract(bundle, joint, mode, projected_yaw, clip)
        strip(bundle, joint, mode, projected_yaw)
        entry = _stripped[key] = (bundle, (joint, mode, projected_yaw), track)
    elif entry[1] != (joint, mode, projected_yaw):
        raise LoadError(
            f"clip {clip!r} was already stripped with root joint {entry[1][0]!r} ({entry[1][1]} mode); "
            f"it cannot also be driven by {joint!r} ({mode} mode)")
    return entry[2]


def track_for(bundle, joint, mode="bone", projected_yaw=False, clip=None):
    """The root motion of a bundle without stripping it (the stored track if it was stripped)."""
    entry = _stripped.get(bundle.this)
    if entry is not None:
        return entry[2]
    return extract(bundle, joint, mode, projected_yaw, clip)


def is_stripped(bundle):
    """True once motionwarp has removed the bundle's root motion from its tables."""
    return bundle.this in _stripped


def is_closed_loop(bundle, root_joint, tolerance=1e-4):
    """True when the last frame repeats the first pose (apart from root motion): a closed loop."""
    n = bundle.getNumFrames()
    if n < 3:
        return False
    stack = [bundle]
    while stack:
        group = stack.pop()
        stack.extend(group.getChild(i) for i in range(group.getNumChildren()))
        if not isinstance(group, AnimChannelMatrixXfmTable):
            continue
        for component in "xyzhprijk":
            if group.getName() == root_joint and component in "xyzh":
                continue
            values = _table(group, component, n)
            difference = values[-1] - values[0]
            if component in "hpr":
                difference = (difference + 180.0) % 360.0 - 180.0
            if abs(difference) > tolerance:
                return False
    return True
