"""Root motion for Panda3D clips: extraction from the animation tables, and stripping (docs/design.md 3).

A clip's root motion is the translation (model space) and heading of one joint, sampled at
every baked frame. Stripping removes it from the shared table so the pose plays in place;
the character's NodePath then carries the motion (see `driver.RootMotionDriver`).
"""
import math

import numpy as np
from panda3d.core import AnimChannelMatrixXfmTable, LMatrix4f, LVecBase3f, LVector3f, LVector3, decompose_matrix

from ..base.errors import LoadError
from .motion import Motion

if LVector3 is LVector3f:
    from panda3d.core import CPTA_float as _CPTA, PTA_float as _PTA
else:  # a Panda3D built with STDFLOAT_DOUBLE
    from panda3d.core import CPTA_double as _CPTA, PTA_double as _PTA  # type: ignore[assignment]

#: How a root joint's motion is read: its own 3-D path, or that path projected on the ground.
ROOT_MODES = ("bone", "projected")


class RootMotionTrack:
    """Per frame, the motion of the character's model frame that one clip's root carries.

    Frame f's row is the planar motion S(f) = R(f) R(0)^-1 (x, y, z in model space, heading in
    degrees, unwrapped), R(f) being the root's frame (position, heading about Z) in model space:
    moving the NodePath by S(f) carries the root from where frame 0 has it to where frame f has
    it. `sample(0)` is (0, 0, 0, 0); `origin_pos` and `origin_h` give R(0).
    Fractional frames interpolate linearly, like Panda3D's frame blending; frames outside
    the clip clamp to its ends.
    """

    def __init__(self, clip, fps, positions, headings):
        self.clip = clip
        self.fps = float(fps)
        positions = np.asarray(positions, dtype=np.float64).reshape(-1, 3)
        headings = np.degrees(np.unwrap(np.radians(np.asarray(headings, dtype=np.float64))))
        #: Absolute root position and heading (degrees) at frame 0, in model space.
        self.origin_pos, self.origin_h = positions[0].copy(), float(headings[0])
        self.headings = headings - headings[0]
        turned = np.radians(self.headings)
        x0, y0 = self.origin_pos[:2]
        # S(f).pos = p(f) - turn(S(f).h) p(0): the frame-0 root turned about the model origin.
        self.positions = positions - np.column_stack([np.cos(turned) * x0 - np.sin(turned) * y0,
                                                      np.sin(turned) * x0 + np.cos(turned) * y0,
                                                      np.full(len(turned), self.origin_pos[2])])
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
        if fframe <= 0.0:
            return rows[0]
        i = int(fframe)
        if i >= self.num_frames - 1:
            return rows[-1]
        a = fframe - i
        x0, y0, z0, h0 = rows[i]
        x1, y1, z1, h1 = rows[i + 1]
        return (x0 + (x1 - x0) * a, y0 + (y1 - y0) * a, z0 + (z1 - z0) * a, h0 + (h1 - h0) * a)

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

    def relative(self, start, end):
        """(x, y, z, heading) of frame `end` seen from frame `start`, as plain floats: the per-frame
        step of a clip that crossed no loop seam (`between` with `wraps` 0)."""
        return row_step(self.sample(start), self.sample(end))

    def between(self, start, end, wraps=0, cycle=None):
        """Motion from frame `start` to frame `end` of a clip looping over frames [0, cycle) that crossed
        its seam `wraps` times (negative: playing backwards). Frame 0 is the identity, so each crossing
        adds the whole cycle's motion."""
        if wraps == 0:
            x, y, z, h = self.relative(start, end)
            return Motion((x, y, z), h)
        return self.motion(start).inverse() * self.motion(cycle) ** wraps * self.motion(end)


def row_step(before, after):
    """(x, y, z, heading) of the track row `after` seen from the row `before`: before^-1 * after."""
    dx, dy, h0 = after[0] - before[0], after[1] - before[1], before[3]
    if h0:
        turn = math.radians(h0)
        c, s = math.cos(turn), math.sin(turn)
        dx, dy = c * dx + s * dy, c * dy - s * dx
    return (dx, dy, after[2] - before[2], after[3] - h0)


def straight_track(clip, fps, num_frames, speed):
    """A track that goes straight forward (+Y) at `speed` metres per second: for cycles authored in place."""
    forward = np.arange(num_frames) * (float(speed) / float(fps))
    return RootMotionTrack(clip, fps, np.column_stack([np.zeros(num_frames), forward, np.zeros(num_frames)]),
                           np.zeros(num_frames))


def find_channel(bundle, joint):
    """The AnimChannelMatrixXfmTable of `joint` in an AnimBundle, or None."""
    group = bundle.findChild(joint)
    if group is None or not isinstance(group, AnimChannelMatrixXfmTable):
        return None
    return group


def channel_path(bundle, joint):
    """The matrix channels from the skeleton's top down to `joint` (the joint last), or None."""
    def search(group):
        for i in range(group.getNumChildren()):
            child = group.getChild(i)
            if child.getName() == joint and isinstance(child, AnimChannelMatrixXfmTable):
                return [child]
            below = search(child)
            if below is not None:
                return ([child] if isinstance(child, AnimChannelMatrixXfmTable) else []) + below
        return None
    return search(bundle)


def local_matrices(channel, num_frames):
    """Per-frame local matrices (row-vector convention, like Panda3D's) of one channel, Nx4x4."""
    mat = LMatrix4f()
    out = np.empty((num_frames, 4, 4))
    for frame in range(num_frames):
        channel.getValue(frame, mat)
        out[frame] = [list(mat.getRow(r)) for r in range(4)]
    return out


def joint_model_matrices(bundle, joint, base=None, clip=None):
    """(model-space matrices of `joint`, of its parent) at every frame, Nx4x4 each (row vectors).

    The joint's channel is composed with every ancestor joint's channel and with `base`, the
    Character node's transform in the model (a rotated armature node ends up there).
    """
    path = channel_path(bundle, joint)
    if path is None:
        raise LoadError(f"clip {clip or bundle.getName()!r} has no animation channel for joint {joint!r}; "
                        f"it animates: {', '.join(channel_names(bundle)) or 'nothing'}")
    n = bundle.getNumFrames()
    parent = np.broadcast_to(np.eye(4) if base is None else np.asarray(base, dtype=np.float64), (n, 4, 4))
    for channel in path[:-1]:   # row vectors: a child's model matrix is its local matrix times its parent's
        parent = local_matrices(channel, n) @ parent
    return local_matrices(path[-1], n) @ parent, parent


def channel_names(bundle):
    """Names of the joints a bundle animates, in skeleton order."""
    names, stack = [], [bundle]
    while stack:
        group = stack.pop()
        if isinstance(group, AnimChannelMatrixXfmTable):
            names.append(group.getName())
        stack.extend(group.getChild(i) for i in reversed(range(group.getNumChildren())))
    return names


def character_base(root):
    """Where the skeleton's top sits relative to `root` (an Actor or model NodePath), 4x4 row vectors:
    the PartBundle's root transform (`setRootXform`) in the Character node's transform."""
    character = root.find("**/+Character")
    if character.isEmpty():
        return None
    mat = character.node().getBundle(0).getRootXform() * character.getMat(root)
    return np.array([list(mat.getRow(r)) for r in range(4)])


def skeleton_change(model_base, base):
    """The matrix (LMatrix4f, row vectors) taking points of a model file's skeleton frame
    (`model_base`, its `character_base`) into an Actor's whose skeleton sits at `base` (its
    `character_base`), or None when they sit alike: an Actor whose skeleton a character file
    turned (its `setRootXform`) shows the file's clips turned, so what was measured on the file
    (an alignment offset, a contact's touchdown) turns with it."""
    if _same_base(model_base, base):
        return None
    change = np.linalg.inv(model_base) @ base
    return LMatrix4f(*change.ravel().tolist())


def yaw_of(rotations):
    """Heading in degrees (the twist about model Z) of Nx3x3 row-vector rotation matrices."""
    return np.degrees(np.arctan2(rotations[:, 0, 1] - rotations[:, 1, 0], rotations[:, 0, 0] + rotations[:, 1, 1]))


def root_frames(model, mode="bone", projected_yaw=False):
    """The root's planar frame (position Nx3, heading N degrees) from its model-space matrices.

    Heading is the joint's turn about model Z since frame 0 plus frame 0's own heading, so a
    joint rotated by its rig (e.g. -90 degrees about X) still reads 0 when it does not turn.
    """
    positions = model[:, 3, :3].copy()
    rotations = model[:, :3, :3]
    turn = yaw_of(np.linalg.inv(rotations[0])[None] @ rotations)
    headings = yaw_of(rotations[:1])[0] + np.degrees(np.unwrap(np.radians(turn)))
    if mode == "projected":
        positions[:, 2] = 0.0  # the hips keep their height in the pose
        if not projected_yaw:
            headings = np.zeros(len(headings))
    return positions, headings


def extract(bundle, joint, mode="bone", projected_yaw=False, clip=None, base=None):
    """Read the root motion of `joint` from an AnimBundle's tables (no rendering); `base` as in
    `joint_model_matrices`."""
    if mode not in ROOT_MODES:
        raise LoadError(f"root mode {mode!r} not understood; expected one of {', '.join(ROOT_MODES)}")
    model, _ = joint_model_matrices(bundle, joint, base, clip)
    positions, headings = root_frames(model, mode, projected_yaw)
    return RootMotionTrack(clip or bundle.getName(), bundle.getBaseFrameRate(), positions, headings)


def motion_matrix(pos, h):
    """Row-vector 4x4 of a planar Motion (turn by `h` degrees about Z, then move by `pos`)."""
    c, s = math.cos(math.radians(h)), math.sin(math.radians(h))
    return np.array([[c, s, 0, 0], [-s, c, 0, 0], [0, 0, 1, 0], [pos[0], pos[1], pos[2], 1.0]])


def top_channels(bundle):
    """The skeleton's topmost matrix channels (the joints with no parent joint)."""
    tops, stack = [], [bundle]
    while stack:
        group = stack.pop()
        for i in range(group.getNumChildren()):
            child = group.getChild(i)
            (tops if isinstance(child, AnimChannelMatrixXfmTable) else stack).append(child)
    return tops


def strip(bundle, track, base=None):
    """Take `track`'s motion out of the clip so it plays in place.

    The motion comes off at the top of the skeleton: each frame, every joint's model-space
    matrix becomes the authored one followed by `S(f)^-1`, S being the track's motion of the
    model frame. Frame 0 keeps its pose exactly (offsets and heights stay), the root joint's
    ancestors stay with the body, and the NodePath moved by S(f) puts every joint back
    where the untouched clip has it.
    """
    n = bundle.getNumFrames()
    base = np.eye(4) if base is None else np.asarray(base, dtype=np.float64)
    undo = [np.linalg.inv(motion_matrix(row[:3], row[3])) for row in (track.sample(f) for f in range(n))]
    for channel in top_channels(bundle):
        write_tables(channel, [local @ base @ undo[frame] @ np.linalg.inv(base)
                               for frame, local in enumerate(local_matrices(channel, n))])


def write_tables(channel, matrices):
    """Set a matrix channel's scale, shear, hpr and pos tables from per-frame local matrices (row
    vectors); a table that never changes keeps one value."""
    scale, shear, hpr, pos = LVecBase3f(), LVecBase3f(), LVecBase3f(), LVecBase3f()
    tables = {c: [] for c in "ijkabchprxyz"}
    for local in matrices:
        decompose_matrix(LMatrix4f(*np.asarray(local).ravel()), scale, shear, hpr, pos)
        for names, values in (("ijk", scale), ("abc", shear), ("hpr", hpr), ("xyz", pos)):
            for name, value in zip(names, values):
                tables[name].append(value)
    for name, values in tables.items():
        if max(values) - min(values) < 1e-7:
            values = values[:1]
        channel.setTable(name, _CPTA(_PTA(values)))


# Root motion of every stripped bundle, by the bundle's C++ address. Bundles are shared between
# Actors (model cache), so each is stripped once and later Actors reuse the extracted track.
# Holding the bundle keeps its address from being reused.
_stripped: dict = {}
# is_closed_loop of stripped bundles, by (bundle address, root joint): kept alive by `_stripped`.
_closed_loops: dict = {}


def extract_and_strip(bundle, joint, mode="bone", projected_yaw=False, clip=None, base=None):
    """The root motion of a bundle, stripping it on first use; later calls return the same track."""
    key = bundle.this
    entry = _stripped.get(key)
    if entry is None:
        track = extract(bundle, joint, mode, projected_yaw, clip, base)
        strip(bundle, track, base)
        entry = _stripped[key] = (bundle, (joint, mode, projected_yaw), track, base)
    elif entry[1] != (joint, mode, projected_yaw):
        raise LoadError(
            f"clip {clip!r} was already stripped with root joint {entry[1][0]!r} ({entry[1][1]} mode); "
            f"it cannot also be driven by {joint!r} ({mode} mode)")
    elif not _same_base(entry[3], base):
        # The track is in the first Actor's skeleton frame: another frame would replay it turned or scaled.
        raise LoadError(
            f"clip {clip!r} was already stripped for an Actor whose skeleton sits otherwise (another root "
            "transform: a character file's turn, say); Actors of one model file share its clips, so give "
            "them the same root transform, or load the other from a copy of the file")
    return entry[2]


def _same_base(first, other):
    """Whether two `character_base` matrices (or None: no Character) place the skeleton alike."""
    if first is None or other is None:
        return first is None and other is None
    return bool(np.allclose(first, other, atol=1e-6))


def track_for(bundle, joint, mode="bone", projected_yaw=False, clip=None, base=None):
    """The root motion of a bundle without stripping it (the stored track if it was stripped)."""
    entry = _stripped.get(bundle.this)
    if entry is not None:
        return entry[2]
    return extract(bundle, joint, mode, projected_yaw, clip, base)


def stripped_is_closed_loop(bundle, root_joint):
    """`is_closed_loop` of a stripped bundle, found once: its tables no longer change."""
    entry = _stripped[bundle.this]
    closed = _closed_loops.get((bundle.this, root_joint))
    if closed is None:
        closed = _closed_loops[(bundle.this, root_joint)] = is_closed_loop(entry[0], root_joint)
    return closed


def is_stripped(bundle):
    """True once motionwarp has removed the bundle's root motion from its tables."""
    return bundle.this in _stripped


def is_closed_loop(bundle, root_joint, tolerance=1e-4, track=None, base=None):
    """True when the clip's last frame repeats its first pose, root motion apart: a closed loop.

    On a stripped bundle the poses are compared as they are; on an untouched one, pass its
    `track` (and `base`) and the last frame is compared with the track's motion taken off.
    Either way a cycle that travels or turns is closed when its body returns to its first
    pose. The root joint's ancestors are left out: the motion taken off them is the cycle's own.
    """
    n = bundle.getNumFrames()
    if n < 3:
        return False
    ancestors = {group.getName() for group in (channel_path(bundle, root_joint) or [None])[:-1]}
    top = np.eye(4) if base is None else np.asarray(base, dtype=np.float64)
    undo = np.eye(4) if track is None else np.linalg.inv(motion_matrix(track.sample(n - 1)[:3], track.sample(n - 1)[3]))
    first, last = LMatrix4f(), LMatrix4f()
    stack = [(bundle, top, top)]
    while stack:
        group, above_first, above_last = stack.pop()
        if isinstance(group, AnimChannelMatrixXfmTable):
            group.getValue(0, first)
            group.getValue(n - 1, last)
            above_first = np.array([list(first.getRow(r)) for r in range(4)]) @ above_first
            above_last = np.array([list(last.getRow(r)) for r in range(4)]) @ above_last
            if group.getName() not in ancestors and np.abs(above_first - above_last @ undo).max() > tolerance:
                return False
        stack.extend((group.getChild(i), above_first, above_last) for i in range(group.getNumChildren()))
    return True
